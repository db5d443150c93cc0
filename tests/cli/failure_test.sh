#!/usr/bin/env bash
# How commands fail, as a script sees it: exit codes, the JSON error document on stdout, one
# "error:" per message naming the item, hints for the usual mistakes (unknown command, a
# glob the shell expanded or that matched nothing, --param taking one value), and the places
# where text and JSON must agree (redeclared parameters, pointees). Also fmt keeping comments.
set -u
dudley=$(realpath "${DUDLEY:?set DUDLEY to the dudley binary}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"
cd "$tmp"

# json_is FILE PYTHON-EXPRESSION: the expression holds for the JSON document `d` in FILE.
json_is() { /usr/bin/python3 -c "import json, sys; d = json.load(open('$1')); sys.exit(0 if ($2) else 1)"; }

# A short file: x ends beyond it, and NY (which y and z depend on) cannot be read.
printf 'NX := 4\nx = <f8[NX]\nNY := <i8\ny = <f8[NY]\nz = <f8[NY]\n' >short.dud
head -c 20 /dev/zero >short.bin

"$dudley" dump short.bin >out.txt 2>err.txt
check "dump: unreadable arrays exit 1" test $? -eq 1
check "dump: each message has one 'error:'" test "$(grep -c 'error: .*error:' err.txt)" -eq 0
check "dump: the array is named" grep -q "^short.bin:@32: error: /y: parameter /NY of 8 bytes" err.txt
check "dump: an error shared by two arrays is told once" test "$(grep -c 'parameter /NY of 8' err.txt)" -eq 1
check "dump: the second array refers to the first" grep -q "error: /z: not read, for the same reason as /y" err.txt
"$dudley" dump --json short.bin >out.json 2>err.txt
check "dump --json: unreadable arrays exit 1 as in text mode" test $? -eq 1
check "dump --json: the document names the error" json_is out.json "'beyond the end' in d['root']['members']['x']['error']"
check "dump --json: an error value is the message with its place, without 'error:'" \
  json_is out.json "d['root']['members']['x']['error'].startswith('short.bin:@0: data item /x') and all('error:' not in v['error'] for v in d['root']['members'].values())"
"$dudley" ls short.bin >out.txt 2>err.txt
check "ls: exit 1" test $? -eq 1
check "ls: the parameter error is told once" test "$(grep -c 'parameter /NY of 8' err.txt)" -eq 1
"$dudley" ls --json short.bin >out.json 2>err.txt
check "ls --json: exit 1 as in text mode" test $? -eq 1
check "ls --json: error values carry no 'error:' mark" \
  json_is out.json "'error:' not in json.dumps(d) and 'error' in d['root']['params']['NY']"
"$dudley" dump short.bin '/x[0]' >out.txt 2>err.txt
check "a selection on an unreadable array says why it is unreadable" \
  grep -q "/x of 32 bytes at offset 0 ends beyond the end" err.txt
check "... and not that the selection does not fit" test "$(grep -c 'dimensions given' err.txt)" -eq 0

# Failures that stop a command still give a JSON document with --json.
"$dudley" ls --json missing.bin >out.json 2>err.txt
check "missing file: exit 2" test $? -eq 2
check "missing file: JSON error with code and file" \
  json_is out.json "d['error']['code'] == 'io' and d['error']['file'] == 'missing.bin'"
check "missing file: text on stderr" grep -q "missing.bin: error: cannot open" err.txt
printf 'N := 2\nx = f8[count]\ny = flaot[3]\ncount := 3\n' >bad.dud
head -c 64 /dev/zero >bad.bin
"$dudley" dump --json bad.bin >out.json 2>err.txt
check "invalid layout: exit 1" test $? -eq 1
check "invalid layout: every diagnostic with code and place" json_is out.json \
  "[(x['line'], x['column'], x['code']) for x in d['error']['diagnostics']] == [(2, 8, 'undefined-parameter'), (3, 5, 'undefined-type')] and d['error']['file'] == 'bad.dud' and d['error']['line'] == 2"
check "invalid layout: each diagnostic on stderr with its caret" \
  test "$(grep -c '^ *\^$' err.txt)" -eq 2
printf 'count := 2\nx = f8[cuont]\nPoint := { a = f8 }\ny = Pont\n' >typo.dud
"$dudley" check typo.dud >out.txt 2>err.txt
check "did you mean, for an undefined parameter" grep -q "undefined parameter 'cuont' (did you mean 'count'?)" err.txt
check "did you mean, for an undefined type" grep -q "undefined type 'Pont' (did you mean 'Point'?)" err.txt
printf 'N := 2\nx = f8[M]\n' >one.dud
"$dudley" check one.dud >out.txt 2>err.txt
check "no suggestion between one-letter names" test "$(grep -c 'did you mean' err.txt)" -eq 0

# convert: input that was read but is invalid is exit 1, in text and JSON.
"$dudley" convert short.bin conv.bin >out.txt 2>err.txt
check "convert of an unreadable array: exit 1 (not 2)" test $? -eq 1
check "convert: every unreadable array named with its place, at once" \
  grep -q "^  /x: cannot be read: short.bin:@0: data item /x of 32 bytes" err.txt
check "... /y and /z too" grep -q "^  /z: cannot be read: short.bin:@32: parameter /NY" err.txt
check "convert: nothing written" test ! -e conv.bin
"$dudley" convert --json short.bin conv.bin >out.json 2>err.txt
check "convert --json: JSON error document" \
  json_is out.json "d['error']['code'] == 'loss' and [x.split(':')[0] for x in d['error']['lost']] == ['/x', '/y', '/z']"

printf 'N := 2\na = u1[N]\n' >own.dud
printf '\001\002' >own.bin
ln -s own.bin alias.bin
"$dudley" convert own.bin alias.bin >out.txt 2>err.txt
check "convert onto its own input (through a link): exit 1" test $? -eq 1
check "... says which input" grep -q "the output alias.bin is an input of this conversion (own.bin)" err.txt
check "... and the input is untouched" test "$(od -An -tu1 own.bin | tr -s ' ')" = " 1 2"

# Usage mistakes.
"$dudley" lst short.bin >out.txt 2>err.txt
check "unknown command: exit 2" test $? -eq 2
check "unknown command: named, with the nearest" grep -q "unknown command 'lst' (did you mean 'ls'?)" err.txt
printf 'N := <i4\nx = u1[N]\n' >p.dud
head -c 5 /dev/zero >p.bin
"$dudley" dump --params-absent --param N=5 p.bin /x >out.txt 2>err.txt
check "--param takes one value (regression: swallowed the data file and item)" \
  test "$(cat out.txt)" = "/x = [0,0,0,0,0]"
"$dudley" check --max-errors 0 bad.dud >out.txt 2>err.txt
check "--max-errors 0: no limit" test "$(grep -c 'error:' err.txt)" -eq 2
"$dudley" check --max-errors -1 bad.dud >out.txt 2>err.txt
check "--max-errors -1: refused with exit 2" test $? -eq 2
check "... saying what is expected" grep -q "expected a count of errors (0 for no limit)" err.txt
check "convert --help does not offer --family" test "$("$dudley" convert --help | grep -c -- --family)" -eq 0
cp p.dud run_1.dud
cp p.dud run_2.dud
head -c 9 /dev/zero >run_1.bin
head -c 9 /dev/zero >run_2.bin
"$dudley" ls run_*.bin >out.txt 2>err.txt
check "an unquoted glob given to ls: exit 2" test $? -eq 2
check "... with the --family hint" grep -q "quote the pattern and give it to --family" err.txt
"$dudley" dump run_*.bin >out.txt 2>err.txt
check "an unquoted glob given to dump: the hint" grep -q "run_2.bin is a file, not an item" err.txt
"$dudley" ls 'run_*.bin' >out.txt 2>err.txt
check "a quoted glob as DATA: the hint" grep -q "give it to --family: --family 'run_\*.bin'" err.txt
"$dudley" ls --family 'nothing_*.bin' >out.txt 2>err.txt
check "a glob that matches nothing: exit 2" test $? -eq 2
check "... says so" grep -q "no file matches nothing_\*.bin" err.txt

# Text and JSON agree: a redeclared parameter, and pointees.
printf 'N := 2\na = u1[N]\nN := 3\nb = u1[N]\n' >r.dud
head -c 5 /dev/zero >r.bin
check "ls text: one line per declaration" test "$("$dudley" ls r.bin | grep -c '^/N  *parameter')" -eq 2
"$dudley" ls --json r.bin >out.json
check "ls --json: the last value and every declaration" \
  json_is out.json "d['root']['params']['N']['value'] == 3 and [x['value'] for x in d['root']['params']['N']['declarations']] == [2, 3]"
/usr/bin/python3 -c "
import struct
open('ptr.bin', 'wb').write(struct.pack('<Q', 7) + struct.pack('<2d', 1.5, -2.0))
"
printf 'head = <p8\n7 = <f8[2]\n' >ptr.dud
check "ls lists pointees" test "$("$dudley" ls ptr.bin | grep -c '^pointee 7  *array <f8 \[2\] @ 8$')" -eq 1
"$dudley" ls --json ptr.bin >out.json
check "ls --json lists pointees" \
  json_is out.json "d['pointees']['7'] == {'kind': 'array', 'dtype': '<f8', 'shape': [2], 'address': 8, 'storage': {'layout': 'contiguous', 'offset': 8, 'size': 16, 'byteorder': 'little'}}"

# fmt -i keeps every comment, ordinary ones too.
printf '# header\nN := 2   # count\n#! doc of N\n\n# section\ng /\n  x = f8[N] # note\n..\n# end\n' >c.dud
"$dudley" fmt -i c.dud
check "fmt -i keeps every comment" test "$(cat c.dud)" = "$(printf '# header\nN := 2  # count\n#! doc of N\n# section\ng /\n  x = f8[N]  # note\n..\n# end')"
check "fmt's output is canonical" "$dudley" fmt --check c.dud

# Formats through the registry: --format to read, --to to write, Dudley flags grouped.
check "ls --format dudley reads Dudley data" "$dudley" ls --format dudley ptr.bin
"$dudley" ls --format netcdf ptr.bin >out.txt 2>err.txt
check "ls --format with a format this build lacks exits 2" test $? -eq 2
check "... naming the formats there are" grep -q "dudley" err.txt
check "convert --to dudley writes Dudley data" "$dudley" convert -q --to dudley ptr.bin copy.bin
check "... that reads back" test "$("$dudley" dump copy.bin /head)" = "/head = 7"
"$dudley" convert -q --to netcdf ptr.bin copy2.bin >out.txt 2>err.txt
check "convert --to a format this build cannot write exits 2" test $? -eq 2
check "... and writes nothing" test ! -e copy2.bin
check "ls --help groups the Dudley-only options" grep -q "Dudley format" <("$dudley" ls --help)
check "convert --help lists --to" grep -q -- "--to TEXT" <("$dudley" convert --help)

# Argument errors keep --json: a script asking for JSON gets a JSON error document.
for args in "dump --json --bogus x" "dump --json --max-values abc x" "dump --json --lines foo x" "ls --json --bogus x" "convert --json --compression gzip a.asdf b.asdf"; do
  # shellcheck disable=SC2086
  "$dudley" $args >"$tmp/out" 2>"$tmp/err"
  check "'$args' exits 2" test $? -eq 2
  check "'$args' prints a JSON usage error" python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); assert d['error']['code'] == 'usage', d" "$tmp/out"
done
"$dudley" dump --jsn x 2>"$tmp/err"
check "an unknown option suggests the nearest" grep -q "unknown option --jsn (did you mean '--json'?)" "$tmp/err"
"$dudley" ls --jsn x 2>"$tmp/err"
check "ls too" grep -q "unknown option --jsn (did you mean '--json'?)" "$tmp/err"
"$dudley" dump --bogus x >"$tmp/out" 2>"$tmp/err"
check "without --json nothing on stdout" test ! -s "$tmp/out"

# A file that fails its !DUDLEY signature fails every command (dump printed nothing, exit 0).
printf '!DUDLEY := S1[8]\nn := i4\n' >"$tmp/sig.dud"
printf 'NOTDUDLY\001\000\000\000' >"$tmp/sig.bin"
for cmd in ls dump "dump --json" "ls --json" "convert -q"; do
  # shellcheck disable=SC2086
  "$dudley" $cmd "$tmp/sig.bin" $([ "$cmd" = "convert -q" ] && echo "$tmp/sig.asdf") >"$tmp/out" 2>"$tmp/err"
  check "$cmd of a file with a bad signature exits 1" test $? -eq 1
  check "$cmd names the signature and offset" grep -q "sig.bin:@0: error: bad !DUDLEY signature: 4e 4f 54 44 55 44 4c 59" "$tmp/err"
done
check "and convert wrote nothing" test ! -e "$tmp/sig.asdf"

echo "failure tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
