#!/usr/bin/env bash
# Installs Preflight's Debian packages (if missing) and builds it into build/.
# Idempotent: a second run installs nothing and rebuilds only what changed.
#   scripts/setup.sh            install + build
#   scripts/setup.sh run ARGS   install + build + build/simulate ARGS
#   scripts/setup.sh test       install + build + these phases, in order, stopping
#                               after the first that fails:
#     tests        ctest in build/
#     integration  tests/integration/*.sh: a sharded sweep on a private
#                  single-node Slurm (slurm-wlm + munge), started and stopped
#                  by the test; the plan's HTML report in headless Chromium
#     sanitizers   build-asan/ (ASan + UBSan, GCC) and the whole ctest suite in it
#     fuzz         build-fuzz/ (libFuzzer + ASan + UBSan, clang), each target of
#                  tests/fuzz/ for FUZZ_SECONDS (60) seconds
#     regressions  each file of tests/fuzz/regressions/<target>/ through its target
#                               then prints each phase's time and the line
#                               "N passed, M failed" (ctest cases, fuzz runs and
#                               regression files; a failed build counts as one).
#   scripts/setup.sh bench      install + build + run bench/ (Google Benchmark)
# JOBS (2) sets the build and ctest parallelism. Only `test` installs clang and
# builds build-asan/ and build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake g++ make pkg-config libsimgrid-dev libyaml-cpp-dev libeigen3-dev
          libprotobuf-dev protobuf-compiler libgtest-dev libgmock-dev libbenchmark-dev
          libfmt-dev nlohmann-json3-dev libcli11-dev)
# For `test`: clang and its runtimes (libFuzzer, ASan, UBSan: libclang-rt-14-dev,
# which clang only recommends) and llvm-symbolizer (llvm-14) for the stacks of
# clang's sanitizer reports (GCC's sanitizer runtimes come with g++); Slurm
# and munge for the integration test's private cluster, Chromium to render
# the plan's HTML report.
TEST_PACKAGES=(clang libclang-rt-14-dev llvm-14 slurm-wlm munge chromium)

JOBS=${JOBS:-2}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_TARGETS=(scenario_fuzzer workload_fuzzer)

install_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    local SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# build_tree DIR [cmake --build args...]: builds, showing only errors and
# warnings; fails loudly when the build is broken.
build_tree() {
  local dir=$1; shift
  cmake --build "$dir" -j"$JOBS" "$@" 2>&1 | grep -E "(error|warning):|Error [0-9]" || true
  cmake --build "$dir" -j"$JOBS" "$@" >/dev/null
}

if [ "${1:-}" = test ]; then echo "==== build: packages and build/ (Release) ===="; fi
install_packages "${PACKAGES[@]}"
if [ "${1:-}" = test ]; then install_packages "${TEST_PACKAGES[@]}"; fi

start_build=$SECONDS
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
build_tree build

case "${1:-}" in
  run)   shift; exec build/simulate "$@" ;;
  test)  ;;
  bench) exec build/preflight_bench ;;
  "")    exit 0 ;;
  *)     echo "setup: unknown action '$1' (run, test, bench)" >&2; exit 2 ;;
esac

# ---- test: the phases ---------------------------------------------------------

passed=0 failed=0 skipped=0
timings=("build          $((SECONDS - start_build)) s (build/, Release)")
phase_name="" phase_start=0
phase() {  # name, description
  phase_name=$1 phase_start=$SECONDS
  echo
  echo "==== $1: $2 ===="
}
phase_done() {  # [note]
  timings+=("$(printf '%-14s %d s%s' "$phase_name" $((SECONDS - phase_start)) "${1:+ ($1)}")")
  phase_name=""
}
summary() {
  if [ -n "$phase_name" ]; then phase_done "failed; later phases not run"; fi
  echo
  echo "==== summary ===="
  printf '  %s\n' "${timings[@]}"
  if [ "$skipped" -gt 0 ]; then
    echo "  ($skipped ctest cases skipped, not counted: the sanitizer suite's simulations over its task budget, tests/test_util.h)"
  fi
  echo "$passed passed, $failed failed"
}
trap summary EXIT

# ctest_phase DIR: runs the whole suite of DIR; counts its cases.
ctest_phase() {
  local dir=$1 log=$1/ctest.log rc=0
  (cd "$dir" && ctest --output-on-failure -j"$JOBS") 2>&1 | tee "$log" || rc=$?
  local line total fails skips
  line=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$log" | tail -1 || true)
  if [ -n "$line" ]; then
    fails=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
    total=$(sed -E 's/.* failed out of ([0-9]+).*/\1/' <<<"$line")
    skips=$(grep -cE "\(Skipped\)$" "$log" || true)
    passed=$((passed + total - fails - skips)); failed=$((failed + fails)); skipped=$((skipped + skips))
  elif [ $rc -ne 0 ]; then
    failed=$((failed + 1))
  fi
  return $rc
}

# A build that fails is one failed check.
checked_build() {  # DIR, what, [cmake --build args...]
  local dir=$1 what=$2; shift 2
  if ! build_tree "$dir" "$@"; then
    echo "setup: building $what failed" >&2
    failed=$((failed + 1)); exit 1
  fi
}

# The first line of the most telling report in a log: a sanitizer's, an
# assertion's, the target's finding, libFuzzer's; or the last line.
first_report() {
  local pattern
  for pattern in 'runtime error|Assertion .* failed|ERROR: (Address|Leak)Sanitizer' \
                 'preflight fuzz finding' 'ERROR: libFuzzer'; do
    grep -m1 -E "$pattern" "$1" && return
  done
  tail -n 1 "$1"
}

phase tests "ctest in build/"
ctest_phase build || exit 1
phase_done

phase integration "tests/integration/: a sharded sweep on a private Slurm, the plan report in Chromium"
integration_failed=0
for t in tests/integration/*.sh; do
  log="build/$(basename "$t" .sh).log"
  bash "$t" build/simulate >"$log" 2>&1 || integration_failed=1
  line=$(grep -E "[0-9]+ passed, [0-9]+ failed" "$log" | tail -1 || true)
  if [ -n "$line" ]; then
    passed=$((passed + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")))
    failed=$((failed + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
  else
    failed=$((failed + 1))
  fi
  echo "$t: ${line:-no result}"
  [ $integration_failed -eq 0 ] || { tail -n 30 "$log"; exit 1; }
done
phase_done

phase sanitizers "build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer, UB fatal) and the whole ctest suite"
t0=$SECONDS
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DPREFLIGHT_SANITIZE=ON >/dev/null
checked_build build-asan "build-asan/"
build_s=$((SECONDS - t0))
echo "build-asan/ built in $build_s s"
ctest_phase build-asan || exit 1
phase_done "build $build_s s, suite $((SECONDS - t0 - build_s)) s"

# clang's sanitizer reports need llvm-symbolizer for function names and lines.
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-14/bin/llvm-symbolizer}
FUZZ_FLAGS=(-timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1)
# Seeds are at most 2 KB (scenarios) and 20 KB (workloads).
declare -A MAX_LEN=([scenario_fuzzer]=8192 [workload_fuzzer]=32768)

phase fuzz "build-fuzz/ (libFuzzer, clang) and each target for $FUZZ_SECONDS s"
t0=$SECONDS
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release -DPREFLIGHT_FUZZ=ON >/dev/null
checked_build build-fuzz "build-fuzz/" --target "${FUZZ_TARGETS[@]}"
build_s=$((SECONDS - t0))
echo "build-fuzz/ built in $build_s s"
# The targets run side by side when JOBS allows. New inputs go to
# build-fuzz/corpus/<target>/ (kept between runs), findings to
# build-fuzz/findings/<target>/.
run_fuzzer() {  # target: fuzzes it; output in build-fuzz/findings/<target>.log
  local t=$1
  rm -rf "build-fuzz/findings/$t"
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/findings/$t"
  local cmd=(build-fuzz/$t "${FUZZ_FLAGS[@]}" -max_len="${MAX_LEN[$t]}" -max_total_time="$FUZZ_SECONDS"
             -dict="tests/fuzz/$t.dict" -artifact_prefix="build-fuzz/findings/$t/"
             "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t")
  echo "${cmd[*]}"
  "${cmd[@]}" >"build-fuzz/findings/$t.log" 2>&1
}
declare -A rcs=() pids=()
for t in "${FUZZ_TARGETS[@]}"; do
  if [ "$JOBS" -ge 2 ]; then
    run_fuzzer "$t" & pids[$t]=$!
  else
    rcs[$t]=0; run_fuzzer "$t" || rcs[$t]=$?
  fi
done
fuzz_failed=0
for t in "${FUZZ_TARGETS[@]}"; do
  if [ -n "${pids[$t]:-}" ]; then rcs[$t]=0; wait "${pids[$t]}" || rcs[$t]=$?; fi
  if [ "${rcs[$t]}" -eq 0 ]; then
    passed=$((passed + 1))
    echo "PASS $t: $(grep -E '^#[0-9]+' "build-fuzz/findings/$t.log" | tail -1)"
  else
    failed=$((failed + 1)) fuzz_failed=1
    echo "FAIL $t (exit ${rcs[$t]}): $(first_report "build-fuzz/findings/$t.log")"
    echo "---- the last lines of build-fuzz/findings/$t.log:"
    tail -n 60 "build-fuzz/findings/$t.log"
    for a in "build-fuzz/findings/$t"/*; do
      [ -f "$a" ] || continue
      echo "  finding: $a"
      echo "    minimise: build-fuzz/$t -minimize_crash=1 -max_total_time=60 -exact_artifact_path=$a.min $a"
      echo "    then save it as tests/fuzz/regressions/$t/<what-it-does> (a ctest case from the next build)"
    done
  fi
done
phase_done "build $build_s s, fuzzing $((SECONDS - t0 - build_s)) s"
[ $fuzz_failed -eq 0 ] || exit 1

phase regressions "each file of tests/fuzz/regressions/<target>/ through its libFuzzer target"
regressions_failed=0
for t in "${FUZZ_TARGETS[@]}"; do
  for f in tests/fuzz/regressions/"$t"/*; do
    [ -f "$f" ] || continue
    log="build-fuzz/findings/regression-$t-$(basename "$f").log"
    if build-fuzz/"$t" -timeout=60 -rss_limit_mb=2048 -malloc_limit_mb=2048 "$f" >"$log" 2>&1; then
      passed=$((passed + 1)); echo "PASS $f"
    else
      failed=$((failed + 1)) regressions_failed=1
      echo "FAIL $f: $(first_report "$log")"
      echo "     (log: $log)"
    fi
  done
done
phase_done
[ $regressions_failed -eq 0 ] || exit 1
