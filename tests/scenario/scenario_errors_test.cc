// Scenario loading errors: each case mutates a valid scenario and checks
// that LoadScenario throws an InputError whose text names the file, the
// 1-based line:column, the key path, the bad value and what is wrong.
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/scenario/scenario_fixture.h"
#include "tests/test_util.h"

namespace pf {
namespace {

using namespace scenario_fixture;

struct Case {
  std::string name;
  Edits edits;
  int line, column;
  std::string key;     // "" when the error has no key path
  std::string value;   // the bad value as the message quotes it
  std::string phrase;  // what is wrong
};
// Names the case in test listings (ctest) instead of dumping its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> Cases() {
  return {
      // yaml-cpp reports where parsing stopped (the ':' of "cluster:" on line 3),
      // not the unclosed '[' on line 2.
      {"MalformedYaml", {{"model: llama2-70b", "model: [llama2-70b"}}, 3, 8, "", "",
       "malformed YAML: end of sequence flow not found"},
      {"TopLevelTypo", {{"parallel:", "paralel:"}}, 6, 1, "paralel", "'paralel'",
       "did you mean 'parallel'?"},
      {"NestedTypo", {{"seq_len:", "seq_lne:"}}, 14, 3, "training.seq_lne", "'seq_lne'",
       "did you mean 'seq_len'?"},
      {"UnknownModel", {{"llama2-70b", "llama2-70"}}, 2, 8, "model", "\"llama2-70\"",
       "did you mean 'llama2-70b'?"},
      {"UnknownNode", {{"a800-80gb-sxm-8x", "a800-80gb-sxm"}}, 4, 9, "cluster.node",
       "\"a800-80gb-sxm\"", "did you mean 'a800-80gb-sxm-8x'?"},
      {"UnknownGpuInline", With(kInline, {{"A800-SXM4-80GB", "A800-SXM4-80G"}}), 5, 10,
       "cluster.node.gpu", "\"A800-SXM4-80G\"", "did you mean 'A800-SXM4-80GB'?"},
      {"BandwidthMissingUnit", With(kInline, {{"200Gbps", "400"}}), 9, 33,
       "cluster.node.nics.bandwidth", "\"400\"", "missing unit"},
      {"SizeMissingUnit", With(kInline, {{"1TiB", "1024"}}), 10, 17, "cluster.node.cpu_memory",
       "\"1024\"", "missing unit"},
      {"UnknownUnit", With(kInline, {{"200Gbps", "400Gbs"}}), 9, 33,
       "cluster.node.nics.bandwidth", "\"400Gbs\"", "unknown unit \"Gbs\""},
      {"UnknownNicKind", With(kInline, {{"latency: 2us}", "latency: 2us, kind: rocev3}"}}), 9, 62,
       "cluster.node.nics.kind", "\"rocev3\"", "did you mean 'roce'?"},
      {"TcpWithGpuDirect", With(kInline, {{"latency: 2us}", "latency: 2us, kind: tcp, gpudirect_rdma: true}"}}),
       9, 83, "cluster.node.nics.gpudirect_rdma", "true", "TCP sockets cannot write GPU memory"},
      {"NvlinkGenOutOfRange", With(kInline, {{"kind: nvswitch", "kind: nvswitch, nvlink_gen: 12"}}), 7, 48,
       "cluster.node.interconnect.nvlink_gen", "12", "out of range (must be between 1 and 9)"},
      {"NvlsOnPcie", With(kInline, {{"kind: nvswitch", "kind: pcie, nvls: true"}}), 7, 38,
       "cluster.node.interconnect.nvls", "true", "needs kind: nvswitch"},
      {"ZeroSize", With(kInline, {{"1TiB", "0GiB"}}), 10, 17, "cluster.node.cpu_memory",
       "\"0GiB\"", "must be greater than zero"},
      {"NegativeSize", With(kInline, {{"1TiB", "-1TiB"}}), 10, 17, "cluster.node.cpu_memory",
       "\"-1TiB\"", "must be greater than zero"},
      {"GpuOnAMissingIndex", With(kInline, {{"    pcie: {gen: 4, lanes: 16, latency: 1us}\n", "    pcie: {gen: 4, lanes: 16, latency: 1us, switches: [{socket: 0, gpus: [0, 1, 2, 3, 4, 5, 6, 9]}]}\n"}}), 8, 96,
       "cluster.node.pcie.switches[0].gpus[7]", "9", "GPU 9, but the node has 8 GPUs (0..7)"},
      {"GpuBehindNoSwitch", With(kInline, {{"    pcie: {gen: 4, lanes: 16, latency: 1us}\n", "    pcie: {gen: 4, lanes: 16, latency: 1us, switches: [{socket: 0, gpus: [0, 1, 2, 3, 4, 5, 6]}]}\n"}}), 8, 55,
       "cluster.node.pcie.switches", "GPU 7", "is behind no switch"},
      {"NicPastTheCount", With(kInline, {{"    pcie: {gen: 4, lanes: 16, latency: 1us}\n", "    pcie: {gen: 4, lanes: 16, latency: 1us, switches: [{socket: 0, gpus: [0, 1, 2, 3], nics: [0, 4]}, {socket: 0, gpus: [4, 5, 6, 7]}]}\n"}}), 8, 98,
       "cluster.node.pcie.switches[0].nics[1]", "NIC 4", "but the node has 4 NICs (0..3)"},
      {"NicSharedTwice", With(kInline, {{"    pcie: {gen: 4, lanes: 16, latency: 1us}\n", "    pcie: {gen: 4, lanes: 16, latency: 1us, switches: [{socket: 0, gpus: [0, 1, 2, 3, 4, 5, 6, 7], nics: [0, 0]}]}\n"}}), 8, 110,
       "cluster.node.pcie.switches[0].nics[1]", "NIC 0", "is already in switches[0]"},
      {"SwitchOnAMissingSocket", With(kInline, {{"    pcie: {gen: 4, lanes: 16, latency: 1us}\n", "    pcie: {gen: 4, lanes: 16, latency: 1us, switches: [{socket: 1, gpus: [0, 1, 2, 3, 4, 5, 6, 7]}]}\n"}}), 8, 65,
       "cluster.node.pcie.switches[0].socket", "socket 1", "but the node has 1 socket"},
      {"ZeroBandwidthLink", With(kInline, {{"    pcie: {gen: 4, lanes: 16, latency: 1us}\n", "    pcie: {gen: 4, lanes: 16, latency: 1us, p2p: false, host_memory: 0GB/s}\n"}}), 8, 70,
       "cluster.node.pcie.host_memory", "\"0GB/s\"", "must be greater than zero"},
      {"ThreeLanes", With(kInline, {{"    pcie: {gen: 4, lanes: 16, latency: 1us}\n", "    pcie: {gen: 4, lanes: 3, latency: 1us}\n"}}), 8, 27,
       "cluster.node.pcie.lanes", "3 lanes", "accepted: 1, 2, 4, 8, 16, 32"},
      {"BridgeOnAnNvswitchNode", With(kInline, {{"    cpu_memory: 1TiB\n", "    cpu_memory: 1TiB\n    nvlink_bridges: {pairs: [[0, 1]], bandwidth: 50GB/s}\n"}}), 11, 21,
       "cluster.node.nvlink_bridges", "NVLink bridges", "join GPUs of a PCIe node"},
      {"OversubscriptionBelowOne",
       {{"  nodes: 1\n", "  nodes: 1\n  fabric: {kind: fat_tree, radix: 64, oversubscription: 0.5, switch_latency: 0.3us}\n"}},
       6, 57, "cluster.fabric.oversubscription", "\"0.5\"", "accepted: 1 (non-blocking) to 64"},
      {"OversubscribedRail",
       {{"  nodes: 1\n", "  nodes: 1\n  fabric: {kind: rail, oversubscription: 2, switch_latency: 0.3us}\n"}},
       6, 42, "cluster.fabric.oversubscription", "given", "a rail-optimized fabric is non-blocking"},
      {"LeafTooSmallForANode",
       {{"  nodes: 1\n", "  nodes: 1\n  fabric: {kind: fat_tree, radix: 6, oversubscription: 1, switch_latency: 0.3us}\n"}},
       6, 35, "cluster.fabric.radix", "6 ports", "fewer than one node's 4 NICs"},
      {"UnknownCluster", {{"cluster:\n  node: a800-80gb-sxm-8x\n  nodes: 1\n", "cluster: h100-ib-rail-128nod\n"}},
       3, 10, "cluster", "\"h100-ib-rail-128nod\"", "did you mean 'h100-ib-rail-128node'?"},
      {"StorageTierNamedTwice", {{"  nodes: 1\n", "  nodes: 1\n  storage: [{kind: local_nvme, read: 6GB/s, write: 3GB/s}, {name: local_nvme, kind: nfs, read: 6GB/s, write: 3GB/s, network: 100Gbps}]\n"}},
       6, 67, "cluster.storage[1].name", "\"local_nvme\"", "give each tier its own name"},
      {"ServersOnALocalTier", {{"  nodes: 1\n", "  nodes: 1\n  storage: [{kind: page_cache, read: 50GB/s, servers: 2}]\n"}},
       6, 55, "cluster.storage[0].servers", "given", "a page_cache tier is inside each node"},
      {"TooManyStorageServers", {{"  nodes: 1\n", "  nodes: 1\n  storage: [{name: a, kind: parallel_fs, servers: 4000, read: 1GB/s, write: 1GB/s, network: 100Gbps}, {name: b, kind: nfs, servers: 100, read: 1GB/s, write: 1GB/s, network: 100Gbps}]\n"}},
       6, 133, "cluster.storage[1].servers", "4100 storage servers", "at most 4096"},
      // The data path (line 20 appended after the price; a local NVMe tier on line 6).
      {"DataOnATierTheClusterLacks", {{"16USD}\n", "16USD}\ndata: {tier: nfs, format: tokens}\n"}},
       20, 14, "data.tier", "\"nfs\"", "is not a storage tier of the cluster (it declares none: add cluster.storage)"},
      {"ZeroDataWorkers", {{"  nodes: 1\n", "  nodes: 1\n  storage: [{kind: local_nvme, read: 6GB/s, write: 3GB/s}]\n"},
                           {"16USD}\n", "16USD}\ndata: {tier: local_nvme, format: tokens, workers: 0}\n"}},
       21, 51, "data.workers", "0", "out of range (must be between 1 and 256)"},
      {"ImagesForATransformer", {{"  nodes: 1\n", "  nodes: 1\n  storage: [{kind: local_nvme, read: 6GB/s, write: 3GB/s}]\n"},
                                 {"16USD}\n", "16USD}\ndata: {tier: local_nvme, format: jpeg, sample_bytes: 110KB}\n"}},
       21, 34, "data.format", "\"jpeg\" holds images", "reads text: text or tokens"},
      {"CheckpointEveryZero", {{"  nodes: 1\n", "  nodes: 1\n  storage: [{kind: local_nvme, read: 6GB/s, write: 3GB/s}]\n"},
                               {"16USD}\n", "16USD}\ncheckpoint: {tier: local_nvme, every: 0s}\n"}},
       21, 39, "checkpoint.every", "\"0s\"", "must be between 1s and 1d"},
      {"CheckpointOnATierTheClusterLacks", {{"16USD}\n", "16USD}\ncheckpoint: {tier: pfs, every: 30min}\n"}},
       20, 20, "checkpoint.tier", "\"pfs\"", "is not a storage tier of the cluster"},
      {"PageCacheBeyondHostMemory", {{"  nodes: 1\n", "  nodes: 1\n  storage: [{kind: page_cache, read: 50GB/s, capacity: 4TiB}]\n"}},
       6, 56, "cluster.storage[0].capacity", "4096 GiB", "more than the node's host memory (cpu_memory 1024 GiB)"},
      {"OffloadToNvmeWithoutNvme", {{"  zero: 0\n", "  zero: 3\n  offload: nvme\n"}, {"method: lora", "method: full"}},
       11, 12, "parallel.offload", "\"nvme\"", "needs a local_nvme tier in cluster.storage"},
      {"TpDoesNotDivideHeads", {{"tp: 8", "tp: 6"}}, 7, 7, "parallel.tp", "6",
       "does not divide attention heads (64)"},
      {"LayoutNotGpus", {{"dp: 1", "dp: 2"}}, 9, 7, "parallel.dp", "8 x 1 x 2 = 16",
       "but the cluster has 8 GPUs (1 nodes x 8)"},
      {"SequenceParallelWithoutTp", {{"tp: 8", "tp: 1"}, {"  dp: 1\n", "  dp: 8\n  sp: true\n"}}, 10, 7,
       "parallel.sp", "true", "needs tensor parallelism (tp = 1)"},
      {"DistributedOptimizerWithZero2", {{"  zero: 0\n", "  zero: 2\n  distributed_optimizer: true\n"}}, 11, 26,
       "parallel.distributed_optimizer", "true", "is ZeRO stage 1, the optimizer states sharded over the DP ranks; it cannot be combined with zero: 2"},
      {"ContextParallelDoesNotSplitTheSequence", {{"tp: 8", "tp: 2"}, {"  pp: 1\n", "  pp: 1\n  cp: 4\n"}, {"seq_len: 4096", "seq_len: 4100"}}, 9, 7,
       "parallel.cp", "4", "does not split training.seq_len (4100) into 2 x cp = 8 equal chunks"},
      {"EpDoesNotDivideExperts", {{"llama2-70b", "mixtral-8x7b"}, {"method: lora", "method: full"}, {"tp: 8", "tp: 1"},
                                  {"  dp: 1\n", "  dp: 8\n  ep: 3\n"}}, 10, 7,
       "parallel.ep", "3", "does not divide the model's 8 experts; accepted: 1, 2, 4, 8"},
      {"DeepEpWithExpertTp", {{"llama2-70b", "mixtral-8x7b"}, {"method: lora", "method: full"}, {"tp: 8", "tp: 2"},
                              {"  dp: 1\n", "  dp: 4\n  ep: 4\n  sp: true\n  ep_dispatcher: deepep\n"}}, 12, 18,
       "parallel.ep_dispatcher", "\"deepep\"", "but expert_tp is 2; set parallel.expert_tp: 1"},
      {"LoraOnExpertsWithEp", {{"llama2-70b", "mixtral-8x7b"}, {"tp: 8", "tp: 1"}, {"  dp: 1\n", "  dp: 8\n  ep: 8\n"}},
       13, 11, "training.method", "\"lora\"", "with expert parallelism (ep = 8) is not modelled; accepted: full, or ep 1"},
      {"CapacityFactorBelowOne", {{"llama2-70b", "mixtral-8x7b"}, {"method: lora", "method: full"}, {"tp: 8", "tp: 1"},
                                  {"  dp: 1\n", "  dp: 8\n"}, {"  tokens: 500M\n", "  tokens: 500M\n  capacity_factor: 0.5\n"}},
       19, 20, "training.capacity_factor", "\"0.5\"", "0 (dropless) or a factor in [1, 64]"},
      {"ExpertImbalanceBelowOne", {{"llama2-70b", "mixtral-8x7b"}, {"method: lora", "method: full"}, {"tp: 8", "tp: 1"},
                                   {"  dp: 1\n", "  dp: 8\n"}, {"  tokens: 500M\n", "  tokens: 500M\n  expert_imbalance: 0.9\n"}},
       19, 21, "training.expert_imbalance", "\"0.9\"", "the busiest expert rank's tokens over the mean, in [1, 64]"},
      {"ExpertTpNotDividingTp", {{"llama2-70b", "mixtral-8x7b"}, {"method: lora", "method: full"}, {"tp: 8", "tp: 4"},
                                 {"  dp: 1\n", "  dp: 2\n  sp: true\n  ep: 2\n  expert_tp: 3\n"}},
       12, 14, "parallel.expert_tp", "3", "does not divide tp (4); accepted: 1 or a divisor of tp"},
      {"OpCheckpointOffTorchtitansStack", {{"  recompute: full\n", "  recompute: selective_op\n"}},
       17, 14, "training.recompute", "\"selective_op\"",
       "(torchtitan's op-level selective checkpointing) with stack \"megatron\", which has no such policy; "
       "accepted here: none, selective, full, or stack fsdp"},
      {"Flash3OffHopper", {{"  tokens: 500M\n", "  tokens: 500M\n  attention: flash3\n"}},
       19, 14, "training.attention", "\"flash3\"", "runs on Hopper GPUs only (H100, H800, H200, H20), not on A800-SXM4-80GB; accepted here: flash, cudnn, triton, unfused"},
      {"AttentionMisspelt", {{"  tokens: 500M\n", "  tokens: 500M\n  attention: cudnnn\n"}},
       19, 14, "training.attention", "\"cudnnn\"", "did you mean 'cudnn'?"},
      {"PerSampleAttentionOnTriton", {{"  tokens: 500M\n", "  tokens: 500M\n  attention: triton\n  per_sample_attention: true\n"}},
       20, 25, "training.per_sample_attention", "true", "attention is triton, which has no variable-length form"},
      {"PerSampleAttentionWithoutPacking", {{"  tokens: 500M\n", "  tokens: 500M\n  packing: false\n  per_sample_attention: true\n"}},
       20, 25, "training.per_sample_attention", "true", "needs packed samples and a fused attention kernel"},
      {"LaunchBlockingBesideAnOverlappedReduce",
       {{"tp: 8", "tp: 4"}, {"  dp: 1\n", "  dp: 2\n"}, {"  tokens: 500M\n", "  tokens: 500M\n  launch_blocking: true\n"}},
       19, 20, "training.launch_blocking", "true",
       "here parallel.dp_overlap is true (the gradient all-reduce runs beside the backward); accepted: false, or a job"},
      {"LaunchBlockingNotABoolean", {{"  tokens: 500M\n", "  tokens: 500M\n  launch_blocking: maybe\n"}},
       19, 20, "training.launch_blocking", "\"maybe\"", "is not a boolean (accepted: true, false)"},
      {"DispatcherMisspelt", {{"llama2-70b", "mixtral-8x7b"}, {"method: lora", "method: full"}, {"tp: 8", "tp: 1"},
                              {"  dp: 1\n", "  dp: 8\n  ep: 8\n  ep_dispatcher: deepepp\n"}},
       11, 18, "parallel.ep_dispatcher", "\"deepepp\"", "did you mean 'deepep'?"},
      {"EpOverlapWithFullRecompute", {{"llama2-70b", "mixtral-8x7b"}, {"method: lora", "method: full"}, {"tp: 8", "tp: 1"},
                                      {"  dp: 1\n", "  dp: 8\n  ep: 8\n  ep_overlap: true\n"}},
       11, 15, "parallel.ep_overlap", "true", "cannot be combined with training.recompute: full (Megatron-Core refuses it)"},
      {"EpOverlapNotABoolean", {{"llama2-70b", "mixtral-8x7b"}, {"method: lora", "method: full"}, {"tp: 8", "tp: 1"},
                                {"  dp: 1\n", "  dp: 8\n  ep: 8\n  ep_overlap: maybe\n"}},
       11, 15, "parallel.ep_overlap", "\"maybe\"", "is not a boolean (accepted: true, false)"},
      {"EpOnADenseModel", {{"tp: 8", "tp: 4"}, {"  dp: 1\n", "  dp: 2\n  ep: 2\n"}}, 10, 7,
       "parallel.ep", "2", "llama2-70b has none"},
      {"MoeWithTpWithoutSp", {{"llama2-70b", "mixtral-8x7b"}, {"method: lora", "method: full"}, {"tp: 8", "tp: 2"},
                              {"  dp: 1\n", "  dp: 4\n  ep: 4\n  sp: false\n"}}, 11, 7,
       "parallel.sp", "false", "needs sequence parallelism"},
      {"TopKAboveExperts", {{"model: llama2-70b", "model: {name: m, layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, ffn_kind: swiglu, vocab: 32000, tied_embeddings: false, position: rope, max_seq: 32768, norm: rmsnorm, moe: {experts: 8, top_k: 9}}"}}, 2, 208,
       "model.moe.top_k", "9 experts per token", "exceed the 8 experts; accepted: 1 to 8"},
      {"MoeGroupsNotDividingTheExperts", {{"model: llama2-70b", "model: {name: m, layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, ffn_kind: swiglu, vocab: 32000, tied_embeddings: false, position: rope, max_seq: 32768, norm: rmsnorm, moe: {experts: 8, top_k: 2, groups: 3, group_topk: 1}}"}}, 2, 219,
       "model.moe.groups", "3 groups", "do not divide the 8 experts (accepted: a divisor of 8)"},
      {"MoeGroupTopkTooFewForTopK", {{"model: llama2-70b", "model: {name: m, layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, ffn_kind: swiglu, vocab: 32000, tied_embeddings: false, position: rope, max_seq: 32768, norm: rmsnorm, moe: {experts: 8, top_k: 3, groups: 4, group_topk: 1}}"}}, 2, 234,
       "model.moe.group_topk", "1 of 4 groups of 2 experts", "each hold 2, fewer than the 3 experts a token is routed to (accepted: at least 2)"},
      {"MoeGroupsWithoutGroupTopk", {{"model: llama2-70b", "model: {name: m, layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, ffn_kind: swiglu, vocab: 32000, tied_embeddings: false, position: rope, max_seq: 32768, norm: rmsnorm, moe: {experts: 8, top_k: 2, groups: 4}}"}}, 2, 188,
       "model.moe", "", "missing required key 'group_topk'"},
      {"RecomputeModuleMisspelt", {{"  tokens: 500M\n", "  tokens: 500M\n  recompute_modules: [layernorm, moe_ac]\n"}},
       19, 34, "training.recompute_modules[1]", "\"moe_ac\"", "did you mean 'moe_act'?"},
      {"RecomputeModulesNotAList", {{"  tokens: 500M\n", "  tokens: 500M\n  recompute_modules: layernorm\n"}},
       19, 22, "training.recompute_modules", "\"layernorm\"", "is not a list; give a list of core_attn, layernorm"},
      {"TransformersTooOld", {{"  tokens: 500M\n", "  tokens: 500M\n  transformers: 4.2\n"}},
       19, 17, "training.transformers", "\"4.2\"", "a Hugging Face transformers release such as 4.48 (4.30 or later)"},
      {"TransformersNotAVersion", {{"  tokens: 500M\n", "  tokens: 500M\n  transformers: latest\n"}},
       19, 17, "training.transformers", "\"latest\"", "a Hugging Face transformers release such as 4.48"},
      {"QloraUpcastMisspelt", {{"  tokens: 500M\n", "  tokens: 500M\n  qlora_upcast: norm\n"}},
       19, 17, "training.qlora_upcast", "\"norm\"", "did you mean 'norms'?"},
      {"TransformersLeadingZero", {{"  tokens: 500M\n", "  tokens: 500M\n  transformers: \"4.048\"\n"}},
       19, 17, "training.transformers", "\"4.048\"", "a Hugging Face transformers release such as 4.48"},
      {"TransformersOverflow", {{"  tokens: 500M\n", "  tokens: 500M\n  transformers: 4.4294967344\n"}},
       19, 17, "training.transformers", "\"4.4294967344\"", "a Hugging Face transformers release such as 4.48"},
      {"GroupByLengthNotANumber", {{"  tokens: 500M\n", "  tokens: 500M\n  group_by_length: often\n"}},
       19, 20, "training.group_by_length", "\"often\"", "false (samples in random order), true (the Trainer's group_by_length"},
      {"GroupByLengthOne", {{"  tokens: 500M\n", "  tokens: 500M\n  group_by_length: 1\n"}},
       19, 20, "training.group_by_length", "\"1\"", "an integer from 2 to 10000"},
      {"GroupByLengthWithPacking", {{"  tokens: 500M\n", "  tokens: 500M\n  group_by_length: 20\n"}},
       19, 20, "training.group_by_length", "", "but packing is true (each sequence is filled with whole samples); accepted: false, or packing: false with padding: longest"},
      {"GroupByLengthPaddedToSeqLen",
       {{"  tokens: 500M\n", "  tokens: 500M\n  group_by_length: true\n  packing: false\n  padding: max_length\n"}},
       19, 20, "training.group_by_length", "", "but padding is max_length, every sample padded to seq_len"},
      {"GroupByLengthOnTheStacksPaddingDefault",
       {{"  tokens: 500M\n", "  tokens: 500M\n  group_by_length: 20\n  packing: false\n"}},
       19, 20, "training.group_by_length", "", "but padding is max_length (stack megatron's default), every sample padded"},
      {"GroupByLengthTrueOffTheTrainer",
       {{"  tokens: 500M\n", "  tokens: 500M\n  group_by_length: true\n  packing: false\n  padding: longest\n"}},
       19, 20, "training.group_by_length", "", "true is the Hugging Face Trainer's LengthGroupedSampler, which stack \"megatron\" does not run; accepted: false, an integer"},
      {"DoraOnMegatron", {{"  tokens: 500M\n", "  tokens: 500M\n  dora: true\n"}},
       19, 9, "training.dora", "", "true with stack \"megatron\", whose adapters are not PEFT's; accepted: stack hf or llama-factory (PEFT's use_dora)"},
      {"DoraNotABoolean", {{"  tokens: 500M\n", "  tokens: 500M\n  dora: often\n"}},
       19, 9, "training.dora", "\"often\"", "is not a boolean (accepted: true, false)"},
      {"LoraDropoutOne", {{"  tokens: 500M\n", "  tokens: 500M\n  lora_dropout: 1\n"}},
       19, 17, "training.lora_dropout", "\"1\"", "a dropout probability in [0, 1)"},
      {"PureBf16AtFp16",
       {{"  precision: bf16\n", "  precision: fp16\n"}, {"  tokens: 500M\n", "  tokens: 500M\n  stack: fsdp\n  pure_bf16: true\n"}},
       20, 14, "training.pure_bf16", "", "true with precision \"fp16\"; accepted: with precision bf16"},
      {"PureBf16WithQloraUpcast",
       {{"  tp: 8\n", "  tp: 1\n"}, {"  dp: 1\n", "  dp: 8\n"}, {"  method: lora\n", "  method: qlora\n"},
        {"  tokens: 500M\n", "  tokens: 500M\n  stack: hf\n  pure_bf16: true\n"}},
       20, 14, "training.pure_bf16", "", "true with QLoRA prepared with qlora_upcast \"all\": without autocast"},
      {"LoraDropoutOnFullTraining",
       {{"  method: lora\n", "  method: full\n"}, {"  tokens: 500M\n", "  tokens: 500M\n  lora_dropout: 0.1\n"}},
       19, 17, "training.lora_dropout", "", "given, but training.method is full (no adapters)"},
      {"QloraUpcastNotAName", {{"  tokens: 500M\n", "  tokens: 500M\n  qlora_upcast: [all]\n"}},
       19, 17, "training.qlora_upcast", "", "expected a value, got a list"},
      {"PureBf16OnMegatron", {{"  tokens: 500M\n", "  tokens: 500M\n  pure_bf16: true\n"}},
       19, 14, "training.pure_bf16", "", "which keeps an fp32 master copy; accepted: stacks hf, llama-factory, unsloth, fsdp"},
      {"WindowShareAboveOne", {{"model: llama2-70b", "model: {name: m, layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, ffn_kind: swiglu, vocab: 32000, tied_embeddings: false, position: rope, max_seq: 32768, norm: rmsnorm, window: 4096, window_share: 1.5}"}}, 2, 211,
       "model.window_share", "1.5", "is not a share of the layers (accepted: above 0, at most 1)"},
      {"WindowShareWithoutWindow", {{"model: llama2-70b", "model: {name: m, layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, ffn_kind: swiglu, vocab: 32000, tied_embeddings: false, position: rope, max_seq: 32768, norm: rmsnorm, window_share: 0.5}"}}, 2, 197,
       "model.window_share", "", "needs a window"},
      {"GluClampOnGelu", {{"model: llama2-70b", "model: {name: m, layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, ffn_kind: gelu, vocab: 32000, tied_embeddings: false, position: rope, max_seq: 32768, norm: rmsnorm, glu_clamp: 7}"}}, 2, 192,
       "model.glu_clamp", "", "ffn_kind is not swiglu (accepted: with ffn_kind: swiglu)"},
      {"GluClampNegative", {{"model: llama2-70b", "model: {name: m, layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, ffn_kind: swiglu, vocab: 32000, tied_embeddings: false, position: rope, max_seq: 32768, norm: rmsnorm, glu_clamp: -1}"}}, 2, 194,
       "model.glu_clamp", "-1", "is not a clamp limit (accepted: above 0, below 1e6; GPT-OSS: 7)"},
      {"DropoutOfOne", {{"model: llama2-70b", "model: {name: m, layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, ffn_kind: swiglu, vocab: 32000, tied_embeddings: false, position: rope, max_seq: 32768, norm: rmsnorm, dropout: 1}"}}, 2, 192,
       "model.dropout", "1", "is not a dropout probability (accepted: at least 0, below 1; Megatron-LM's GPT: 0.1)"},
      {"StageLayersDoNotAddUp", {{"tp: 8", "tp: 4"}, {"  pp: 1\n", "  pp: 2\n  stage_layers: [40, 41]\n"}}, 9, 17,
       "parallel.stage_layers", "40 + 41 = 81 layers", "but the model has 80"},
      {"GlobalBatchNotMultiple", {{"micro_batch: 1", "micro_batch: 3"}}, 16, 17,
       "training.global_batch", "64", "is not a multiple of micro_batch x dp = 3 x 1 = 3"},
      {"ZeroOutOfRange", {{"zero: 0", "zero: 4"}}, 10, 9, "parallel.zero", "4",
       "out of range (must be between 0 and 3)"},
      {"Zero2WithPipeline", {{"tp: 8", "tp: 4"}, {"pp: 1", "pp: 2"}, {"zero: 0", "zero: 2"}},
       10, 9, "parallel.zero", "ZeRO stage 2", "cannot be combined with pipeline parallelism"},
      {"BadChoice", {{"method: lora", "method: lorra"}}, 12, 11, "training.method",
       "\"lorra\"", "did you mean 'lora'?"},
      {"Fp8OnA100", {{"bf16", "fp8"}, {"a800-80gb-sxm-8x", "a100-80gb-sxm-8x"}}, 13, 14,
       "training.precision", "\"fp8\"", "has no tensor-core rate on A100-SXM4-80GB"},
      {"SeqBeyondLearnedPositions",
       {{"llama2-70b", "megatron-gpt-1.7b"}, {"tp: 8", "tp: 4"}, {"dp: 1", "dp: 2"}}, 14, 12,
       "training.seq_len", "4096", "exceeds the model's learned position table (2048)"},
  };
}

class ScenarioErrorTest : public ::testing::TestWithParam<Case> {};

TEST_P(ScenarioErrorTest, NamesFileLineKeyAndValue) {
  const Case& c = GetParam();
  const std::string path = WriteScenario(c.name, c.edits);
  try {
    LoadScenario(path);
    FAIL() << "no error for " << c.name;
  } catch (const InputError& e) {
    const std::string what = e.what();
    std::string prefix = path + ":" + std::to_string(c.line) + ":" + std::to_string(c.column) + ": ";
    if (!c.key.empty()) prefix += c.key + ": ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << "want prefix " << prefix << "\n got " << what;
    EXPECT_EQ(e.where().line, c.line) << what;
    EXPECT_EQ(e.where().column, c.column) << what;
    EXPECT_EQ(e.key(), c.key) << what;
    EXPECT_NE(what.find(c.value), std::string::npos) << "value " << c.value << " in " << what;
    EXPECT_NE(what.find(c.phrase), std::string::npos) << "phrase " << c.phrase << " in " << what;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ScenarioErrorTest, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.name; });

// Messages suggest the unit the user meant: "Gbs" is a typo of "Gbps" (bits),
// not of "GB/s" (bytes, 8x more).
TEST(ScenarioErrors, UnknownUnitSuggestsBitUnit) {
  const std::string path = WriteScenario("gbs", With(kInline, {{"200Gbps", "400Gbs"}}));
  try {
    LoadScenario(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'Gbps'?"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pf
