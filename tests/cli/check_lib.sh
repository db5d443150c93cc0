# Sourced by the shell tests of the command line: the program under test ($DUDLEY), Debian's
# Python ($PY, with numpy and h5py), a private work folder removed on exit ($work), and
# `ok NAME CONDITION`, which counts a check and names it when it fails. `finish NAME` prints
# the counts and fails the test when a check did.
set -uo pipefail
DUDLEY=${DUDLEY:?}
PY=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
finish() {
  echo "$1: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
