# Sourced by the shell tests: check NAME CONDITION... counts a passed or failed assertion in
# $passed / $failed and names each failure.
passed=0
failed=0
check() {
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name"
  fi
}
