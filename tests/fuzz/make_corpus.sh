#!/usr/bin/env bash
# Regenerates the seed corpora of tests/fuzz/corpus/ from the bundled
# scenarios (run from anywhere, after building build/):
#   scenario_fuzzer/  every scenarios/*.yaml as it is, a few with #--set
#                     override lines, and one with its model and node inline
#   workload_fuzzer/  the task graphs `simulate --emit-workload` writes for
#                     small variants of the 2-, 8- and 32-GPU scenarios that
#                     workload_fuzzer.cc simulates on (kClusters)
# Keep the seeds small: the fuzzer mutates them whole.
set -euo pipefail
cd "$(dirname "$0")/../.."
SIM=${1:-build/simulate}
S=tests/fuzz/corpus/scenario_fuzzer
W=tests/fuzz/corpus/workload_fuzzer
rm -rf "$S" "$W"; mkdir -p "$S" "$W"

cp scenarios/*.yaml "$S"/
with_sets() {  # scenario, output name, KEY=VALUE...
  local src=$1 out=$2; shift 2
  { cat "scenarios/$src.yaml"; printf '#--set %s\n' "$@"; } >"$S/$out.yaml"
}
with_sets 70b_8xA800 70b_8xA800_tp4_pp2 parallel.tp=4 parallel.pp=2
with_sets 70b_8xA800_full 70b_8xA800_full_qlora training.method=qlora
with_sets 7b_qlora_2x4090 7b_qlora_2x4090_pp2 parallel.pp=2 parallel.dp=1
with_sets megatron_1p7b_32xA100 megatron_1p7b_tp2_pp2_vp2 parallel.tp=2 parallel.pp=2 parallel.vp=2 parallel.dp=8
with_sets foundry_mpt1b_8xA100 foundry_mpt1b_h100_fp8 cluster.node=h100-sxm-8x training.precision=fp8
with_sets 7b_qlora_2x4090 7b_qlora_2x4090_bad_override parallel.tp parallel.tp.x=1
with_sets mixtral_8x7b_64xH100 mixtral_ep4_deepep_imbalance parallel.ep=4 parallel.ep_dispatcher=deepep \
  training.expert_imbalance=1.2 training.capacity_factor=1.25
with_sets 7b_qlora_2x4090 7b_qlora_2x4090_hf_upcast training.stack=hf parallel.dp=2 training.qlora_upcast=norms \
  training.transformers=4.47 training.lora_dropout=0.05
with_sets 7b_lora_4x4090 7b_lora_4x4090_pure_bf16 training.stack=hf training.pure_bf16=true training.lora_dropout=0.1
with_sets mixtral_8x7b_64xH100 deepseek_v2_lite_ep8 "model={hf_config: deepseek-v2-lite}" parallel.pp=1 \
  parallel.vp=1 parallel.dp=64 training.global_batch=64
# The model and the node inline, so that mutations reach their fields.
{
  sed -n '/^name:/p' scenarios/7b_qlora_2x4090.yaml
  echo "model:"; grep -v '^#' models/llama2-7b.yaml | sed 's/^/  /'
  echo "cluster:"
  echo "  node:"; grep -v '^#' topologies/rtx4090-pcie-8x.yaml | sed 's/^/    /'
  echo "  nodes: 2"
  echo "  gpus_per_node: 2"
  sed -n '/^parallel:/,$p' scenarios/7b_qlora_2x4090.yaml | sed 's/dp: 2/dp: 4/'
} >"$S/7b_qlora_inline_model_and_node.yaml"

emit() {  # scenario, output name, KEY=VALUE...
  local src=$1 out=$2; shift 2
  local sets=(); for kv in "$@"; do sets+=(--set "$kv"); done
  "$SIM" "scenarios/$src.yaml" "${sets[@]}" --emit-workload "$W/$out.pb" >/dev/null
}
emit 7b_qlora_2x4090 2gpu_dp2_qlora
emit 7b_qlora_2x4090 2gpu_pp2 parallel.pp=2 parallel.dp=1
emit 7b_qlora_2x4090 2gpu_zero3 parallel.zero=3 training.global_batch=8
emit 70b_8xA800 8gpu_tp8_lora training.global_batch=16
emit 70b_8xA800 8gpu_tp2_pp4 parallel.tp=2 parallel.pp=4 training.global_batch=8
emit foundry_mpt1b_8xA100 8gpu_dp8_zero3 training.micro_batch=1 training.global_batch=8
emit megatron_1p7b_32xA100 32gpu_dp32 training.global_batch=32
emit megatron_1p7b_32xA100 32gpu_tp2_pp2_vp2 parallel.tp=2 parallel.pp=2 parallel.vp=2 parallel.dp=8 training.global_batch=16
du -sh "$S" "$W"
