#!/usr/bin/env bash
# End-to-end checks of `simulate sweep` and `simulate merge` as a user runs
# them: the same file whatever -j; an interrupted file (cut mid-row) resumed
# to exactly the uninterrupted one; shards merged to the whole sweep, in CSV
# and JSON lines; infeasible points as rows with a reason; and bad input (an
# unknown grid key, an empty value, a shard 3/2, a file of another sweep to
# resume or merge, a missing shard) refused with exit 2 and the flag named,
# without touching the results file.
set -u
SIM="$1"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
source "$(dirname "$0")/../lib/check.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
SC="$ROOT/scenarios/7b_lora_4x4090.yaml"
GRID=(--grid parallel.dp=1,2,4 --grid training.micro_batch=1,2,4 --grid training.recompute=none,full)

"$SIM" sweep "$SC" "${GRID[@]}" -o one.csv -j 1 -q 2>err.txt; rc=$?
check "sweep exits 0" test $rc -eq 0
check "a line per point after the two header lines" test "$(wc -l <one.csv)" -eq 20
check "first line names the sweep" grep -q "^# preflight sweep [0-9a-f]\{16\} points=18 shard=0/1$" one.csv
check "columns name the swept keys" grep -q "^point,parallel.dp,training.micro_batch,training.recompute,status,reason,fits" one.csv
check "infeasible points are rows with a reason" grep -q "^0,1,1,none,rejected,\"parallel.dp: tp x pp x dp = 1 x 1 x 1 = 1" one.csv
check "feasible points have a step time" grep -q "^[0-9]*,4,[124],[a-z]*,ok,," one.csv
# A point that fits states its headroom: the GPU's memory less what it needs
# (the 4090's 24 GiB), and what nvidia-smi would show, no less than that.
check "fitting points state their spare memory" awk -F, '$5 == "ok" { n++; if ($9 == "" || $8 + $9 < 23.9 || $8 + $9 > 24.1 || $10 < $8) bad++ } END { exit !(n > 0 && bad == 0) }' one.csv
check "the header names the headroom columns" grep -q ",fits,per_gpu_gib,spare_gib,observed_gib,host_gib," one.csv
check "the summary line counts the points" grep -q "18 points" err.txt

"$SIM" sweep "$SC" "${GRID[@]}" -o two.csv -j 2 -q 2>/dev/null
check "same file with -j 2" cmp -s one.csv two.csv

head -c 900 one.csv >cut.csv   # an interruption in the middle of a row
"$SIM" sweep "$SC" "${GRID[@]}" -o cut.csv --resume -q 2>err.txt; rc=$?
check "resume exits 0" test $rc -eq 0
check "resumed file is the uninterrupted one" cmp -s one.csv cut.csv
check "resume says what it kept" grep -q "kept from the file" err.txt
"$SIM" sweep "$SC" "${GRID[@]}" -o cut.csv --resume -q 2>/dev/null
check "resuming a finished file changes nothing" cmp -s one.csv cut.csv

for k in 0 1 2; do "$SIM" sweep "$SC" "${GRID[@]}" -o "s$k.csv" --shard "$k/3" -q 2>/dev/null; done
check "a shard has its third of the points" test "$(wc -l <s1.csv)" -eq 8
"$SIM" merge -o merged.csv s2.csv s0.csv s1.csv 2>/dev/null; rc=$?
check "merge exits 0" test $rc -eq 0
check "merged shards are the whole sweep" cmp -s one.csv merged.csv
for k in 0 1; do "$SIM" sweep "$SC" "${GRID[@]}" --format jsonl -o "j$k.jsonl" --shard "$k/2" -q 2>/dev/null; done
"$SIM" sweep "$SC" "${GRID[@]}" --format jsonl -o jall.jsonl -q 2>/dev/null
"$SIM" merge -o jmerged.jsonl j0.jsonl j1.jsonl 2>/dev/null
check "merged JSON-lines shards are the whole sweep" cmp -s jall.jsonl jmerged.jsonl
check "JSON lines carry the point and its status" grep -q '"point":17,.*"status":"ok"' jall.jsonl

# Bad input: exit 2, the flag named, the results file untouched.
cp one.csv keep.csv
bad_keeping() {  # bad, and the results file is untouched
  bad "$@"
  check "$1 leaves the results file" cmp -s one.csv keep.csv
}
bad_keeping "unknown grid key" "--grid parallel.foo: unknown key 'foo'" "$SIM" sweep "$SC" --grid parallel.foo=1,2 -o one.csv -q
bad_keeping "empty value" "--grid parallel.dp=1,,2: an empty value" "$SIM" sweep "$SC" --grid parallel.dp=1,,2 -o one.csv -q
bad_keeping "no values" "--grid parallel.dp=: an empty value" "$SIM" sweep "$SC" --grid parallel.dp= -o one.csv -q
bad_keeping "shard 3/2" "--shard 3/2: expected K/N with 0 <= K < N" "$SIM" sweep "$SC" "${GRID[@]}" --shard 3/2 -o one.csv -q
bad_keeping "resume of another sweep" "is not this sweep's results" "$SIM" sweep "$SC" --grid parallel.dp=1,2 -o one.csv --resume -q
bad_keeping "merge of two sweeps" "is from another sweep" "$SIM" merge -o one.csv s0.csv j0.jsonl
bad_keeping "merge with a shard missing" "6 of 18 points are missing (first: 1, 4, 7" "$SIM" merge -o one.csv s0.csv s2.csv
cp "$SC" scenario_copy.yaml
"$SIM" sweep scenario_copy.yaml --grid parallel.dp=1,2 -o scenario_copy.yaml -q >out.txt 2>err.txt; rc=$?
check "-o onto the scenario exits 2" test $rc -eq 2
check "-o onto the scenario says so" grep -q "is the scenario file itself" err.txt
check "-o onto the scenario leaves it" cmp -s scenario_copy.yaml "$SC"
bad_keeping "unbalanced brackets" "its [ ] and { } do not balance" "$SIM" sweep "$SC" --grid "parallel.dp=[1,2" -o one.csv -q
bad_keeping "an unknown key below a known one" "--grid training.bogus.x: training.bogus: unknown key 'bogus'" "$SIM" sweep "$SC" --grid training.bogus.x=1 -o one.csv -q
bad_keeping "merge of a shard twice" "is given twice" "$SIM" merge -o one.csv s0.csv s0.csv s1.csv s2.csv
{ cat s0.csv; tail -n 1 s1.csv; } >joined.csv   # a row of shard 1/3 appended to shard 0/3
bad_keeping "merge of a row from another shard" "joined.csv:9: point 16 is not in the shard 0/3" "$SIM" merge -o one.csv joined.csv s1.csv s2.csv
sed '2s/,status,/,state,/' s1.csv >columns.csv   # the column names edited
bad_keeping "merge of shards naming other columns" "columns.csv:2: names other columns than line 2 of s0.csv" "$SIM" merge -o one.csv s0.csv columns.csv s2.csv

bad_keeping "a missing scenario" "nothing.yaml: no such file" "$SIM" sweep nothing.yaml --grid parallel.dp=1,2 -o one.csv -q
mkdir folder.csv
bad_keeping "a folder as a shard" "folder.csv: is a directory, not a sweep results file" "$SIM" merge -o one.csv folder.csv
bad_keeping "a device as a shard" "/dev/zero: is not a regular file" "$SIM" merge -o one.csv /dev/zero
"$SIM" sweep "$SC" --grid parallel.dp=1,2 -o /dev/full -q >out.txt 2>err.txt; rc=$?
check "a full disk under -o exits 2" test $rc -eq 2
check "a full disk under -o says so" grep -q "cannot write: No space left on device (0 rows written this run; --resume" err.txt
"$SIM" merge -o /dev/null s0.csv s1.csv s2.csv 2>err.txt; rc=$?
check "merge -o onto a device exits 2" test $rc -eq 2
check "merge -o onto a device leaves it a device" test -c /dev/null
check "merge -o onto a device says why" grep -q "exists and is not a regular file" err.txt

sed '$s/^\(17,4,4,full,ok,,1\),[^,]*,/\1,1e999,/' one.csv >edited.csv  # the last row's memory made infinite
bad_keeping "merge of an edited row" "is not a finite number >= 0: the file was edited or damaged" "$SIM" merge -o one.csv edited.csv
cp edited.csv edited_copy.csv
"$SIM" sweep "$SC" "${GRID[@]}" -o edited.csv --resume -q >out.txt 2>err.txt; rc=$?
check "resume of an edited row exits 2" test $rc -eq 2
check "resume of an edited row says so" grep -q "the file was edited or damaged; refusing to append" err.txt
check "resume of an edited row leaves the file" cmp -s edited.csv edited_copy.csv

finish sweep_test
