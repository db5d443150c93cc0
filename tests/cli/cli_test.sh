#!/usr/bin/env bash
# The dudley CLI contract: exit codes, diagnostic format, JSON output, fmt round trip.
set -u
root=$1
dudley=${DUDLEY:?set DUDLEY to the dudley binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() {  # check NAME CONDITION...
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name"
  fi
}

"$dudley" check "$root/examples/restart.dud" >"$tmp/out" 2>"$tmp/err"
check "valid layout exits 0" test $? -eq 0
check "valid layout says ok" grep -q ': ok$' "$tmp/out"

printf 'N := 3\nx = f8[M]\n' >"$tmp/bad.dud"
"$dudley" check "$tmp/bad.dud" >"$tmp/out" 2>"$tmp/err"
check "invalid layout exits 1" test $? -eq 1
check "diagnostic is path:line:col" grep -q "^$tmp/bad.dud:2:8: error: undefined parameter 'M'" "$tmp/err"
check "diagnostic shows the source line" grep -q '^  x = f8\[M\]$' "$tmp/err"
check "diagnostic shows a caret" grep -q '^         \^$' "$tmp/err"

"$dudley" check "$tmp/missing.dud" >"$tmp/out" 2>"$tmp/err"
check "missing file exits 2" test $? -eq 2
check "missing file is named" grep -q "missing.dud" "$tmp/err"

"$dudley" check --json "$tmp/bad.dud" "$root/examples/restart.dud" >"$tmp/out" 2>"$tmp/err"
check "json exits 1 when one is invalid" test $? -eq 1
check "json is parseable" python3 -c "
import json,sys
r=json.load(open('$tmp/out'))
assert r[0]['ok'] is False and r[0]['diagnostics'][0]['code']=='undefined-parameter'
assert r[0]['diagnostics'][0]['line']==2 and r[0]['diagnostics'][0]['column']==8
assert r[1]['ok'] is True"

printf 'x = f8\nN := i4\n' >"$tmp/late.dud"
"$dudley" check "$tmp/late.dud" >/dev/null 2>&1
check "late parameter is fine without --template" test $? -eq 0
"$dudley" check --template "$tmp/late.dud" >/dev/null 2>"$tmp/err"
check "--template applies the template rules" test $? -eq 1
check "template diagnostic code" grep -q '\[template\]' "$tmp/err"

"$dudley" fmt "$root/examples/restart.dud" >"$tmp/canon.dud"
check "fmt exits 0" test $? -eq 0
"$dudley" fmt --check "$tmp/canon.dud"
check "fmt output is canonical" test $? -eq 0
"$dudley" fmt --check "$root/tests/data/layouts/valid/whitespace.dud" 2>/dev/null
check "fmt --check flags non-canonical text" test $? -eq 1
cp "$root/tests/data/layouts/valid/whitespace.dud" "$tmp/w.dud"
"$dudley" fmt -i "$tmp/w.dud" && "$dudley" fmt --check "$tmp/w.dud"
check "fmt -i rewrites in place" test $? -eq 0
"$dudley" fmt "$tmp/bad.dud" >"$tmp/out" 2>/dev/null
check "fmt of an invalid layout exits 1 and prints nothing" test $? -eq 1 -a ! -s "$tmp/out"

"$dudley" --help >"$tmp/out"
check "--help works" grep -q check "$tmp/out"
"$dudley" check --help >/dev/null && "$dudley" fmt --help >/dev/null
check "subcommand --help works" test $? -eq 0
"$dudley" --version | grep -q '^dudley [0-9]'
check "--version" test $? -eq 0
"$dudley" >/dev/null 2>&1
check "no subcommand exits 2" test $? -eq 2
"$dudley" check --bogus x >/dev/null 2>&1
check "unknown flag exits 2" test $? -eq 2

# Every ```dudley block of the language guide is a valid layout.
/usr/bin/python3 - "$root/docs/layout-language.md" "$tmp" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for i, block in enumerate(re.findall(r"```dudley\n(.*?)```", text, re.S)):
    open(f"{sys.argv[2]}/doc_example_{i}.dud", "w").write(block)
PY
count=$(ls "$tmp"/doc_example_*.dud | wc -l)
check "the guide has examples" test "$count" -ge 8
"$dudley" check "$tmp"/doc_example_*.dud >/dev/null
check "every example in docs/layout-language.md is valid" test $? -eq 0

echo "cli: $passed passed, $failed failed"
test "$failed" -eq 0
