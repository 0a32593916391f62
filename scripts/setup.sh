#!/usr/bin/env bash
# Installs Preflight's Debian packages (if missing) and builds it into build/.
# Idempotent: a second run installs nothing and rebuilds only what changed.
#   scripts/setup.sh            install + build
#   scripts/setup.sh run ARGS   install + build + build/simulate ARGS
#   scripts/setup.sh test       install + build + run every test (ctest)
#   scripts/setup.sh bench      install + build + run bench/ (Google Benchmark)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake g++ make pkg-config libsimgrid-dev libyaml-cpp-dev libeigen3-dev
          libprotobuf-dev protobuf-compiler libgtest-dev libgmock-dev libbenchmark-dev
          libfmt-dev nlohmann-json3-dev libcli11-dev)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

JOBS=${JOBS:-2}
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$JOBS" 2>&1 | grep -E "error|warning|Error" || true
cmake --build build -j"$JOBS" >/dev/null   # fails loudly if the build is broken

case "${1:-}" in
  run)   shift; exec build/simulate "$@" ;;
  test)  cd build && exec ctest --output-on-failure -j"$JOBS" ;;
  bench) exec build/preflight_bench ;;
  "")    ;;
  *)     echo "setup: unknown action '$1' (run, test, bench)" >&2; exit 2 ;;
esac
