#!/usr/bin/env bash
# End-to-end checks of `simulate plan`: a plan over three GPU types for the
# seeds' question (a 70B LoRA within a week) ranks simulated candidates that
# meet the deadline, gives a Pareto front and a recommendation whose --set
# flags reproduce its step; bad input (a deadline without a unit, a budget in
# another currency, GPUs nobody prices) exits 2 naming the flag.
set -u
SIM="$1"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
source "$(dirname "$0")/../lib/check.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
SC="$ROOT/scenarios/70b_8xA800_tp8.yaml"

"$SIM" plan "$SC" --deadline 7d --gpus A800,H800,RTX-4090 --max-gpus 16 >plan.txt 2>err.txt; rc=$?
check "plan exits 0" test $rc -eq 0
check "says how many it screened" grep -q "screened [0-9]* configurations" plan.txt
check "says how far the screen was off" grep -q "the screen was within" plan.txt
check "ranks simulated candidates" grep -q "^  1    " plan.txt
check "has a Pareto front" grep -q "Pareto front" plan.txt
check "recommends one" grep -q "Recommendation:" plan.txt
check "no candidate over 16 GPUs" bash -c '! grep -qE "^  [0-9]+ +[a-z0-9-]+ +[0-9]+ +(32|64|128)  " plan.txt'
# The recommendation's flags reproduce its step time.
cmd=$(sed -n 's/.*run it: build\/simulate //p' plan.txt)
step=$(grep -m1 "^  1    " plan.txt | grep -oE "[0-9]+\.[0-9]+s" | head -1)
got=$(eval "\"$SIM\" $cmd" | awk '/step time/ {print $3}')
check "the recommended flags give its step ($step vs ${got}s)" test "${step%s}" = "$got"

"$SIM" plan "$SC" --deadline 1h --gpus A800 --max-gpus 8 >none.txt 2>/dev/null; rc=$?
check "an impossible deadline is an answer, not an error" test $rc -eq 0
check "and says so" grep -q "no configuration meets the constraints" none.txt

# A Megatron scenario with its distributed optimizer (ZeRO stage 1): the
# plan's base layout keeps the stage the switch needs, so every node type
# loads it; a recommendation in a known gap (16 experts a GPU) says so.
OSS="$ROOT/tests/data/recipes/mb2604_gpt_oss_120b_64xH100.yaml"
"$SIM" plan "$OSS" --deadline 7d --gpus H100 --max-gpus 64 >oss.txt 2>err.txt; rc=$?
check "a scenario with the distributed optimizer plans ($(head -c 200 err.txt))" test $rc -eq 0
check "and recommends" grep -q "Recommendation:" oss.txt
check "with its known gap" grep -q "known gap: 16 experts on each GPU under Megatron-Core" oss.txt
check "and what the job would take at the published runs' range" grep -qE "at their range its .* and [0-9]+ USD would be about .* and [0-9]+ to [0-9]+ USD" oss.txt
check "trying other expert parallelisms than the scenario's" grep -qE "EP(1|2|4|16|32|64) ZeRO" oss.txt
# An EP group wider than a node (Qwen3-30B-A3B at EP16): the base layout has
# none, so the plan runs (every node type was refused before).
QW="$ROOT/tests/data/recipes/mb2604_qwen3_30b_a3b_16xH100.yaml"
"$SIM" plan "$QW" --deadline 7d --gpus H100 --max-gpus 32 >qw.txt 2>err.txt; rc=$?
check "an EP16 scenario plans ($(head -c 200 err.txt))" test $rc -eq 0
check "and recommends" grep -q "Recommendation:" qw.txt

# A one-GPU torchtune scenario (gpus_per_node: 1 of an 8-GPU box): planned on
# whole boxes and on shares of one (1, 2, 4 GPUs), data-parallel under FSDP2
# (its recipes' sharding), and the recommendation's flags say so and
# reproduce its step.
TT="$ROOT/tests/data/stacks/tt_llama32_3b_full_packed.yaml"
"$SIM" plan "$TT" --deadline 7d --gpus A100 --max-gpus 16 --set training.global_batch=64 >tt.txt 2>err.txt; rc=$?
check "a one-GPU torchtune scenario plans ($(head -c 200 err.txt))" test $rc -eq 0
check "and recommends" grep -q "Recommendation:" tt.txt
check "with the GPUs of the box it takes" grep -qE "cluster.gpus_per_node=(1|2|4|8)" tt.txt
check "whole boxes among the candidates" grep -qE "^  [0-9]+ +a100-40gb-sxm-8x +[0-9]+ +(8|16) " tt.txt
check "sharded as torchtune shards" grep -qE "ZeRO-(2|3) mb" tt.txt
# Its own global batch of 2 cannot spread over an 8-GPU box's data-parallel
# ranks: the plan rents a share of one (it refused every node type before).
"$SIM" plan "$TT" --deadline 30d --gpus A100 --max-gpus 16 >tt2.txt 2>err.txt; rc=$?
check "a batch of 2 plans on a share of a box ($(head -c 200 err.txt))" test $rc -eq 0
check "on 1 or 2 of its GPUs" grep -qE "run it: .*cluster.gpus_per_node=(1|2) " tt2.txt
check "priced for the share" grep -qE "USD an hour for (1 GPU|2 GPUs) of a node.s 8 GPUs \(" tt2.txt
# The scenario's own per-node-hour price is for the GPUs it takes (1 of
# the box): a 2-GPU share of the same box costs twice as much an hour.
"$SIM" plan "$TT" --deadline 7d --gpus H100 --max-gpus 16 --set cluster.node=h100-sxm-8x \
  --set 'price={per_node_hour: 16USD}' >tt3.txt 2>err.txt; rc=$?
check "an own per-node price plans on shares ($(head -c 200 err.txt))" test $rc -eq 0
rate2=$(awk '$2 == "h100-sxm-8x" && $4 == 2 && $13 == "h" {printf "%.0f", $14 / $12; exit}' tt3.txt)
check "a 2-GPU share at twice the 1-GPU rate (${rate2} USD/h)" test "$rate2" = "32"
cmd=$(sed -n 's/.*run it: build\/simulate //p' tt.txt)
step=$(grep -m1 "^  1    " tt.txt | grep -oE "[0-9]+\.[0-9]+s" | head -1)
got=$(eval "\"$SIM\" $cmd" | awk '/step time/ {print $3}')
check "the recommended flags give its step ($step vs ${got}s)" test "${step%s}" = "$got"

bad "deadline without a unit" "--deadline 14: \"14\": missing unit" "$SIM" plan "$SC" --deadline 14
bad "budget in euros" "--budget 50kEUR: \"50kEUR\": unknown unit \"kEUR\" for a price (accepted: USD)" "$SIM" plan "$SC" --deadline 7d --budget 50kEUR
bad "GPUs nobody prices" "--gpus: no bundled node with a price has these GPUs" "$SIM" plan "$SC" --deadline 7d --gpus B300

bad "a deadline of centuries" "--deadline 1e308d: is beyond 10 years" "$SIM" plan "$SC" --deadline 1e308d
bad "a budget past any company's" "--budget 1e308USD: is above 10,000,000,000 USD" "$SIM" plan "$SC" --deadline 7d --budget 1e308USD
bad "an empty GPU list" "names no GPU type" "$SIM" plan "$SC" --deadline 7d --gpus ,,,
cp "$SC" mine.yaml
bad "a report over the scenario" "--report mine.yaml: is the scenario file itself" "$SIM" plan mine.yaml --deadline 7d --report mine.yaml
check "the scenario is left" cmp -s mine.yaml "$SC"

finish plan_test
