# Shared by the shell tests (tests/cli, tests/integration); source it.
#   check NAME CMD...        counts CMD's exit status as a pass or a failure
#   bad NAME TEXT CMD...     CMD exits 2 and its stderr holds TEXT (in ./err.txt)
#   finish NAME              prints the tally; fails when anything failed
pass=0; fail=0
check() {
  local name="$1"; shift
  if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: $name"; fi
}
bad() {
  local name="$1" text="$2"; shift 2
  "$@" >out.txt 2>err.txt; local rc=$?
  check "$name exits 2" test $rc -eq 2
  check "$name says: $text" grep -qF -- "$text" err.txt
}
finish() {
  echo "$1: $pass passed, $fail failed"
  test $fail -eq 0
}
