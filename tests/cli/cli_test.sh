#!/usr/bin/env bash
# End-to-end checks of the simulate command as a user runs it: exit codes,
# report contents, JSON keys, --set, --emit-workload/--workload round trip
# (byte-identical JSON), bad workload files (one line naming the file, exit
# 2), outputs that would overwrite an input, the in-process engine
# (PREFLIGHT_IN_PROCESS=1), and running from another working directory.
set -u
SIM="$1"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
source "$(dirname "$0")/../lib/check.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"   # not the repo: bundled models and topologies must still be found

"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" >out.txt 2>err.txt; rc=$?
check "fits scenario exits 0" test $rc -eq 0
check "report says FITS" grep -q "FITS" out.txt
check "report has step time" grep -q "step time" out.txt
check "report has cost" grep -q "USD" out.txt

"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --format json >out.json; rc=$?
check "json exits 0" test $rc -eq 0
"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --format json >again.json
check "JSON is byte-identical across runs" cmp -s out.json again.json
for key in step_time_s tokens_per_s mfu scaling_efficiency per_gpu_bytes fits breakdown wall_clock_s cost_usd; do
  check "json has $key" grep -q "\"$key\"" out.json
done

# SimGrid in the calling process (for a profiler or a debugger): same answer.
# It runs one simulation, so no intervals (--no-intervals) and no faster
# layout (--no-alternative), and a scenario without checkpoints (whose write
# and restore are simulations of their own).
"$SIM" "$ROOT/scenarios/foundry_mpt7b_8xA100.yaml" --format json --no-intervals --no-alternative >forked.json
PREFLIGHT_IN_PROCESS=1 "$SIM" "$ROOT/scenarios/foundry_mpt7b_8xA100.yaml" --format json >inproc.json 2>inproc.err; rc=$?
check "in-process run exits 0" test $rc -eq 0
check "in-process JSON is byte-identical" cmp -s forked.json inproc.json
check "in-process run says it skips the intervals" grep -q "no 90% intervals" inproc.err

"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --verbose >verbose.txt 2>verbose.err; rc=$?
check "--verbose exits 0" test $rc -eq 0
check "--verbose prints the estimate" grep -q "simulate: estimate: at most" verbose.err
check "--verbose prints the real size" grep -q "simulate: simulated 257 tasks and 128 network flows" verbose.err
check "--verbose leaves the report alone" cmp -s verbose.txt <("$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml")

"$SIM" "$ROOT/scenarios/70b_8xA800_full.yaml" >full.txt; rc=$?
check "not-fits exits 0 by default" test $rc -eq 0
check "not-fits verdict" grep -q "DOES NOT FIT" full.txt
check "not-fits suggestions" grep -q "Would fit with" full.txt
"$SIM" "$ROOT/scenarios/70b_8xA800_full.yaml" --fail-on-oom >/dev/null; rc=$?
check "--fail-on-oom exits 1" test $rc -eq 1

"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --set parallel.tp=6 >/dev/null 2>err.txt; rc=$?
check "bad --set exits 2" test $rc -eq 2
check "bad --set names the flag and value" grep -q "set parallel.tp=6: parallel.tp: 6 does not divide attention heads (64)" err.txt
check "one line of error" test "$(wc -l <err.txt)" -eq 1

# calibrate's starting points are range-checked (exit 2, the flag and the range).
"$(dirname "$SIM")/calibrate" --start-triton 5 >/dev/null 2>err.txt; rc=$?
check "calibrate --start-triton out of range exits 2" test $rc -eq 2
check "calibrate names the flag and the range" grep -q -- "--start-triton: Value 5 not in range 0.050000 to 2.000000" err.txt

printf 'name: x\nmodel: llama2-7b\ncluster: {node: a100-80gb-sxm-8x, nodes: 1\n' >broken.yaml
"$SIM" broken.yaml >/dev/null 2>err.txt; rc=$?
check "malformed YAML exits 2" test $rc -eq 2
check "malformed YAML names the file" grep -q "broken.yaml:" err.txt

"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --format json --set parallel.tp=4 --set parallel.dp=2 >tp4.json; rc=$?
check "valid --set exits 0" test $rc -eq 0
check "valid --set applied" grep -q '"tp": 4' tp4.json

# A replayed workload has no other layouts to try: compare without the alternative.
"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --format json --no-alternative --emit-workload w.pb >a.json; rc=$?
check "emit-workload exits 0" test $rc -eq 0
check "workload file written" test -s w.pb
"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --format json --workload w.pb >b.json; rc=$?
check "replay exits 0" test $rc -eq 0
check "replay JSON is byte-identical" cmp -s a.json b.json
check "a built run names a faster layout" grep -q '"layout": "TP2 PP4 DP1 ZeRO-0 mb1 none"' out.json
"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --format json --no-alternative >plain.json
check "emitting does not change the report" cmp -s a.json plain.json
"$SIM" "$ROOT/scenarios/70b_8xA800_full.yaml" --format json --emit-workload full.pb >c.json
"$SIM" "$ROOT/scenarios/70b_8xA800_full.yaml" --format json --workload full.pb >d.json; rc=$?
check "replay of a job that does not fit is not simulated either" cmp -s c.json d.json

# Bad workload files: exit 2, one line naming the file, nothing else.
head -c 1000 w.pb >cut.pb
"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --workload cut.pb >/dev/null 2>err.txt; rc=$?
check "truncated workload exits 2" test $rc -eq 2
check "truncated workload message" grep -qx "simulate: cut.pb: not a preflight.Workload (truncated or corrupt Protobuf data, 1000 bytes)" err.txt
"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --set cluster.nodes=2 --set parallel.dp=2 --workload w.pb >/dev/null 2>err.txt; rc=$?
check "workload for another cluster exits 2" test $rc -eq 2
check "workload for another cluster names both" grep -qx "simulate: w.pb: built for 8 x A800-SXM4-80GB (8 per node), bf16, but the scenario has 16 x A800-SXM4-80GB (8 per node), bf16 (emit a workload for this scenario with --emit-workload)" err.txt
check "one line of error" test "$(wc -l <err.txt)" -eq 1
if command -v protoc >/dev/null; then  # the build's own Protobuf compiler
  decode() { protoc -I"$ROOT" --decode=preflight.Workload sim/proto/workload.proto; }
  encode() { protoc -I"$ROOT" --encode=preflight.Workload sim/proto/workload.proto; }
  (cd "$ROOT" && decode <"$tmp/w.pb" | sed '0,/duration_s: .*/s//duration_s: nan/' | encode) >nan.pb
  "$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --workload nan.pb >/dev/null 2>err.txt; rc=$?
  check "NaN duration exits 2, not 3" test $rc -eq 2
  check "NaN duration message" grep -qx 'simulate: nan.pb: tasks\[0\].compute.duration_s: nan is not a duration in \[0, 1e+06\] s (task "fwd")' err.txt
fi

# An output never overwrites an input, also through a link; nothing is written.
cp "$ROOT/scenarios/70b_8xA800_tp8.yaml" s.yaml; cp s.yaml s.orig; cp w.pb w.orig
ln -s s.yaml link.yaml; ln s.yaml hard.yaml
for out in s.yaml link.yaml hard.yaml "$tmp/s.yaml"; do
  "$SIM" s.yaml --emit-workload "$out" >/dev/null 2>err.txt; rc=$?
  check "--emit-workload onto the scenario ($out) exits 2" test $rc -eq 2
  check "--emit-workload onto the scenario ($out) says so" grep -qx "simulate: --emit-workload $out: is the same file as the scenario (s.yaml); refusing to overwrite an input" err.txt
done
"$SIM" s.yaml --workload w.pb --emit-workload ./w.pb >/dev/null 2>err.txt; rc=$?
check "--emit-workload onto the --workload file exits 2" test $rc -eq 2
check "--emit-workload onto the --workload file says so" grep -qx "simulate: --emit-workload ./w.pb: is the same file as the --workload file (w.pb); refusing to overwrite an input" err.txt
check "scenario untouched" cmp -s s.yaml s.orig
check "workload untouched" cmp -s w.pb w.orig
"$SIM" s.yaml --emit-workload nodir/w.pb >/dev/null 2>err.txt; rc=$?
check "unwritable output exits 2" test $rc -eq 2
check "unwritable output message" grep -qx "simulate: nodir/w.pb: cannot write: No such file or directory" err.txt
check "no temporary file left" test -z "$(ls -A | grep '\.tmp\.' )"

"$SIM" nonexistent.yaml >/dev/null 2>err.txt; rc=$?
check "missing file exits 2" test $rc -eq 2

"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --max-tasks 100 >/dev/null 2>err.txt; rc=$?
check "a step past --max-tasks exits 2" test $rc -eq 2
check "the budget message says what to reduce" grep -q "over the budget of 100 tasks (--max-tasks): 64 micro-batches per step" err.txt
check "one line of error for the budget" test "$(wc -l <err.txt)" -eq 1
"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --set training.global_batch=16777216 >/dev/null 2>err.txt; rc=$?
check "a huge step is refused at once, in one line" test $rc -eq 2 -a "$(wc -l <err.txt)" -eq 1
"$SIM" "$ROOT/scenarios/70b_8xA800_tp8.yaml" --max-tasks 0 >/dev/null 2>err.txt; rc=$?
check "--max-tasks 0 exits 2" test $rc -eq 2

# simulate collectives: an nccl-tests table, JSON rows, one-line errors.
"$SIM" collectives a100-80gb-sxm-8x --op all_reduce --gpus 8 --sizes 1M:8M >coll.txt 2>err.txt; rc=$?
check "collectives exits 0" test $rc -eq 0
check "collectives table has 4 sizes" test "$(grep -c ' float ' coll.txt)" -eq 4
check "collectives table header" grep -q "algbw" coll.txt
bad "collectives past a GPU's memory" "--sizes 1:1PB: the largest buffer (5.6295e+14 bytes) exceeds the memory of one A100-SXM4-80GB" "$SIM" collectives a100-80gb-sxm-8x --sizes 1:1PB
bad "collectives under one element" "the smallest buffer is under one 4-byte float element" "$SIM" collectives a100-80gb-sxm-8x --sizes 1:1
"$SIM" collectives h100-sxm-8x --nodes 2 --sizes 1G --format json >coll.json; rc=$?
check "collectives json exits 0" test $rc -eq 0
for key in size_bytes time_s algbw_gbps busbw_gbps; do
  check "collectives json has $key" grep -q "\"$key\"" coll.json
done
"$SIM" collectives a100-80gb-sxm-8x --algo nvls >/dev/null 2>err.txt; rc=$?
check "nvls on A100 exits 2" test $rc -eq 2
check "nvls on A100 says why" grep -q -- "--algo: NCCL offers no nvls algorithm" err.txt
"$SIM" collectives no-such-node >/dev/null 2>err.txt; rc=$?
check "unknown topology exits 2" test $rc -eq 2
check "unknown topology one line" test "$(wc -l <err.txt)" -eq 1
"$SIM" collectives a100-80gb-sxm-8x --sizes 8G:1M >/dev/null 2>err.txt; rc=$?
check "reversed sizes exit 2" test $rc -eq 2
"$SIM" collectives a100-80gb-sxm-8x --sizes 1X >/dev/null 2>err.txt; rc=$?
check "bad size exits 2" test $rc -eq 2
check "bad size names the flag" grep -q -- "--sizes" err.txt
"$SIM" collectives a100-80gb-sxm-8x --gpus 12 >/dev/null 2>err.txt; rc=$?
check "too many GPUs per node exits 2" test $rc -eq 2
check "too many GPUs per node says why" grep -q -- "--gpus: 12 GPUs per node, but a100-80gb-sxm-8x has 8; add --nodes" err.txt
"$SIM" collectives a100-80gb-sxm-8x --op allreduce >/dev/null 2>err.txt; rc=$?
check "unknown --op exits 2" test $rc -eq 2
check "unknown --op names the flag" grep -q -- "--op" err.txt
"$SIM" collectives a100-80gb-sxm-8x --algo double_tree >/dev/null 2>err.txt; rc=$?
check "unknown --algo exits 2" test $rc -eq 2
"$SIM" collectives a100-80gb-sxm-8x --nodes 0 >/dev/null 2>err.txt; rc=$?
check "--nodes 0 exits 2" test $rc -eq 2
"$SIM" collectives a100-80gb-sxm-8x --nodes 3 --gpus 16 >/dev/null 2>err.txt; rc=$?
check "uneven GPUs per node exit 2" test $rc -eq 2
check "uneven GPUs per node says why" grep -q "16 GPUs do not divide evenly among 3 nodes" err.txt

# simulate collectives on a cluster file, with --set patching it.
"$SIM" collectives h100-fattree-2to1-1024node --nodes 10 --sizes 1G --set fabric.placement=spread >coll_ft.txt 2>err.txt; rc=$?
check "collectives on a cluster exits 0" test $rc -eq 0
check "collectives on a cluster names its node" grep -q "10 node(s) of h100-sxm-8x" coll_ft.txt
"$SIM" collectives h100-ib-rail-128node --nodes 200 >/dev/null 2>err.txt; rc=$?
check "--nodes past the cluster exits 2" test $rc -eq 2
check "--nodes past the cluster says why" grep -q "200, but cluster h100-ib-rail-128node has 128 nodes" err.txt
"$SIM" collectives rtx4090-pcie-4x --set pcie.lanes=3 >/dev/null 2>err.txt; rc=$?
check "collectives bad --set value exits 2" test $rc -eq 2
check "collectives bad --set value names the flag" grep -q -- "--set pcie.lanes=3: pcie.lanes: 3 lanes; accepted: 1, 2, 4, 8, 16, 32" err.txt
"$SIM" collectives rtx4090-pcie-4x --set pcie.lane=8 >/dev/null 2>err.txt; rc=$?
check "collectives --set typo exits 2" test $rc -eq 2
check "collectives --set typo suggests" grep -q "did you mean 'lanes'" err.txt

# --trace: a Chrome trace of the step; never over an input.
"$SIM" "$ROOT/scenarios/7b_lora_4x4090.yaml" --trace step.json >/dev/null 2>err.txt; rc=$?
check "--trace exits 0" test $rc -eq 0
check "--trace writes trace events" python3 -c "import json,sys; j=json.load(open('step.json')); sys.exit(0 if any(e['ph']=='X' for e in j['traceEvents']) else 1)"
cp "$ROOT/scenarios/7b_lora_4x4090.yaml" mine.yaml
"$SIM" mine.yaml --trace mine.yaml >/dev/null 2>err.txt; rc=$?
check "--trace onto the scenario exits 2" test $rc -eq 2
check "--trace onto the scenario says so" grep -q "is the same file as the scenario" err.txt
check "--trace left the scenario" cmp -s mine.yaml "$ROOT/scenarios/7b_lora_4x4090.yaml"
"$SIM" "$ROOT/scenarios/70b_8xA800_full.yaml" --trace full.json >/dev/null 2>err.txt; rc=$?
check "--trace of a job that does not fit exits 2" test $rc -eq 2
check "--trace of a job that does not fit says why" grep -q "no step was simulated" err.txt

# An output path that exists as a device, a pipe or a link is left alone.
"$SIM" "$ROOT/scenarios/7b_lora_4x4090.yaml" --trace /dev/null >/dev/null 2>err.txt; rc=$?
check "--trace onto /dev/null exits 2" test $rc -eq 2
check "--trace onto /dev/null leaves the device" test -c /dev/null
check "--trace onto /dev/null says why" grep -q "exists and is not a regular file" err.txt
ln -s step.json link.pb
"$SIM" "$ROOT/scenarios/7b_lora_4x4090.yaml" --emit-workload link.pb >/dev/null 2>err.txt; rc=$?
check "--emit-workload onto a symbolic link exits 2" test $rc -eq 2
check "--emit-workload onto a symbolic link leaves it" test -L link.pb

"$SIM" "$ROOT/scenarios/7b_lora_4x4090.yaml" --trace same.pb --emit-workload same.pb >/dev/null 2>err.txt; rc=$?
check "--trace and --emit-workload on one path exit 2" test $rc -eq 2
check "--trace and --emit-workload on one path say so" grep -q "is also the --emit-workload file" err.txt
"$SIM" "$ROOT/scenarios/llama3_405b_16kxH100.yaml" --trace big.json >/dev/null 2>err.txt; rc=$?
check "--trace of a 1.3M-task step exits 2" test $rc -eq 2
check "--trace of a 1.3M-task step says why" grep -q "a trace holds about 3 KB of memory a task" err.txt
check "--trace of a 1.3M-task step writes nothing" test ! -e big.json

# An option a command does not have is named, even with a required
# argument missing (CLI11 would say "scenario is required").
for cmd in "" sweep plan merge collectives; do
  "$SIM" $cmd --bogus >/dev/null 2>err.txt; rc=$?
  check "simulate $cmd --bogus exits 2" test $rc -eq 2
  check "simulate $cmd --bogus names the option" grep -q "not expected: --bogus" err.txt
done
"$SIM" sweep --grid=parallel.tp=1 -j4 >/dev/null 2>err.txt
check "sweep's own options are not called unknown" grep -q "scenario is required" err.txt

# Llama 3's 128K-token step (CP16 on 16,384 GPUs): its K/V exchanges would
# keep the engine past its in-flight limit for minutes; refused at once.
"$SIM" "$ROOT/scenarios/llama3_405b_16kxH100.yaml" --set parallel.cp=16 --set parallel.dp=8 \
  --set training.seq_len=131072 --set training.global_batch=128 >/dev/null 2>err.txt; rc=$?
check "a step past the in-flight limit exits 2" test $rc -eq 2
check "a step past the in-flight limit says what to change" grep -q "in flight at each completion.*fewer nodes (cluster.nodes) or a shorter sequence" err.txt

finish cli
