#!/usr/bin/env bash
# The plan's HTML report in a real browser: `simulate plan --report` on the
# seeds' 70B question, rendered by headless Chromium (Debian's chromium,
# which scripts/setup.sh test installs): the DOM it builds has the five
# charts, each an SVG with its size; a screenshot renders; the file loads
# nothing from the network; and a scenario path with HTML in it comes
# through as text, not markup.
# Usage: tests/integration/plan_report_test.sh build/simulate
set -u
SIM="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
source "$(dirname "$0")/../lib/check.sh"
command -v chromium >/dev/null || { echo "FAIL: chromium not installed (scripts/setup.sh test installs it)"; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
# A scenario whose path carries markup.
SC="$T/<b>70b&\"plan\".yaml"
cp "$ROOT/scenarios/70b_8xA800_tp8.yaml" "$SC"
"$SIM" plan "$SC" --deadline 7d --gpus A800,H800,RTX-4090 --max-gpus 16 --report "$T/plan.html" >"$T/plan.txt" 2>&1; rc=$?
check "plan --report exits 0" test $rc -eq 0
check "the report is written" test -s "$T/plan.html"
check "nothing is loaded from elsewhere" bash -c "! grep -qiE '<script|<link|src=\"http|url\\(' '$T/plan.html'"
browser=(chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/profile")
timeout 120 "${browser[@]}" --dump-dom "file://$T/plan.html" >"$T/dom.html" 2>"$T/chromium.log"; rc=$?
check "chromium renders the DOM" test $rc -eq 0
for id in pareto breakdown scaling memory timeline; do
  check "chart $id is in the DOM" grep -q "<figure id=\"$id\">" "$T/dom.html"
done
check "five sized SVG charts" test "$(grep -oE '<svg class="chart" width="[0-9]+" height="[0-9]+"' "$T/dom.html" | wc -l)" -eq 5
check "the Pareto chart has points" test "$(grep -o '<circle' "$T/dom.html" | wc -l)" -gt 10
check "the path's markup is text" grep -qF '&lt;b&gt;70b&amp;"plan".yaml' "$T/dom.html"
check "no <b> element came from it" bash -c "! grep -qF '<b>70b' '$T/dom.html'"
timeout 120 "${browser[@]}" --screenshot="$T/plan.png" --window-size=840,2400 "file://$T/plan.html" >>"$T/chromium.log" 2>&1
check "a screenshot renders" test "$(stat -c %s "$T/plan.png" 2>/dev/null || echo 0)" -gt 20000
finish plan_report_test
