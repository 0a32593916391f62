#!/usr/bin/env bash
# The layering check (sim/check_layers.cmake) must reject a lower stage
# including a higher one and SimGrid outside the engine: run it on a
# scratch copy of sim/ with each violation planted, expect failure.
set -u
CMAKE="$1"; ROOT="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
plant() {  # name, file under sim/, line to add
  rm -rf "$tmp/sim"; cp -r "$ROOT/sim" "$tmp/sim"
  printf '%s\n' "$3" >>"$tmp/sim/$2"
  if "$CMAKE" -DPF_ROOT="$tmp" -P "$tmp/sim/check_layers.cmake" >"$tmp/out" 2>&1; then
    fail=$((fail+1)); echo "FAIL: $1 was not caught"
  elif ! grep -q "layering violated" "$tmp/out"; then
    fail=$((fail+1)); echo "FAIL: $1: unexpected output"; cat "$tmp/out"
  else
    pass=$((pass+1))
  fi
}
plant "model includes engine" model/memory_model.cc '#include "sim/engine/engine.h"'
plant "spec includes scenario" spec/spec.h '#include "sim/scenario/scenario_loader.h"'
plant "workload includes SimGrid" workload/workload_builder.cc '#include <simgrid/s4u.hpp>'
plant "report includes SimGrid" report/report_text.cc '#include "simgrid/s4u.hpp"'
# The untouched tree passes.
rm -rf "$tmp/sim"; cp -r "$ROOT/sim" "$tmp/sim"
if "$CMAKE" -DPF_ROOT="$tmp" -P "$tmp/sim/check_layers.cmake"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: clean tree rejected"; fi
echo "layering: $pass passed, $fail failed"
test $fail -eq 0
