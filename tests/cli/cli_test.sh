#!/usr/bin/env bash
# End-to-end checks of the simulate command as a user runs it: exit codes,
# report contents, JSON keys, --set, --emit-workload/--workload round trip,
# the in-process engine (PREFLIGHT_IN_PROCESS=1), and running from another
# working directory.
set -u
SIM="$1"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
pass=0; fail=0
check() {  # name, condition (exit status of the rest)
  local name="$1"; shift
  if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: $name"; fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"   # not the repo: bundled models and topologies must still be found

"$SIM" "$ROOT/scenarios/70b_8xA800.yaml" >out.txt 2>err.txt; rc=$?
check "fits scenario exits 0" test $rc -eq 0
check "report says FITS" grep -q "FITS" out.txt
check "report has step time" grep -q "step time" out.txt
check "report has cost" grep -q "USD" out.txt

"$SIM" "$ROOT/scenarios/70b_8xA800.yaml" --format json >out.json; rc=$?
check "json exits 0" test $rc -eq 0
for key in step_time_s tokens_per_s mfu scaling_efficiency per_gpu_bytes fits breakdown wall_clock_s cost_usd; do
  check "json has $key" grep -q "\"$key\"" out.json
done

# SimGrid in the calling process (for a profiler or a debugger): same answer.
PREFLIGHT_IN_PROCESS=1 "$SIM" "$ROOT/scenarios/70b_8xA800.yaml" --format json >inproc.json; rc=$?
check "in-process run exits 0" test $rc -eq 0
check "in-process JSON is byte-identical" cmp -s out.json inproc.json

"$SIM" "$ROOT/scenarios/70b_8xA800_full.yaml" >full.txt; rc=$?
check "not-fits exits 0 by default" test $rc -eq 0
check "not-fits verdict" grep -q "DOES NOT FIT" full.txt
check "not-fits suggestions" grep -q "Would fit with" full.txt
"$SIM" "$ROOT/scenarios/70b_8xA800_full.yaml" --fail-on-oom >/dev/null; rc=$?
check "--fail-on-oom exits 1" test $rc -eq 1

"$SIM" "$ROOT/scenarios/70b_8xA800.yaml" --set parallel.tp=6 >/dev/null 2>err.txt; rc=$?
check "bad --set exits 2" test $rc -eq 2
check "bad --set names the flag and value" grep -q "set parallel.tp=6: parallel.tp: 6 does not divide attention heads (64)" err.txt
check "one line of error" test "$(wc -l <err.txt)" -eq 1

printf 'name: x\nmodel: llama2-7b\ncluster: {node: a100-80gb-sxm-8x, nodes: 1\n' >broken.yaml
"$SIM" broken.yaml >/dev/null 2>err.txt; rc=$?
check "malformed YAML exits 2" test $rc -eq 2
check "malformed YAML names the file" grep -q "broken.yaml:" err.txt

"$SIM" "$ROOT/scenarios/70b_8xA800.yaml" --format json --set parallel.tp=4 --set parallel.dp=2 >tp4.json; rc=$?
check "valid --set exits 0" test $rc -eq 0
check "valid --set applied" grep -q '"tp": 4' tp4.json

"$SIM" "$ROOT/scenarios/70b_8xA800.yaml" --format json --emit-workload w.pb >a.json; rc=$?
check "emit-workload exits 0" test $rc -eq 0
check "workload file written" test -s w.pb
"$SIM" "$ROOT/scenarios/70b_8xA800.yaml" --format json --workload w.pb >b.json; rc=$?
check "replay exits 0" test $rc -eq 0
check "replay gives the same step time" test "$(grep step_time_s a.json)" = "$(grep step_time_s b.json)"

"$SIM" nonexistent.yaml >/dev/null 2>err.txt; rc=$?
check "missing file exits 2" test $rc -eq 2

echo "cli: $pass passed, $fail failed"
test $fail -eq 0
