#!/usr/bin/env bash
# dump and convert as a user meets them: selections, fields, parameters, line styles, value
# limits, and convert of names spelled like types, sublists and parameter docs. Expected
# values are written out by hand (small arrays) or computed by numpy.
set -u
dudley=${DUDLEY:?set DUDLEY to the dudley binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"

# ids = 0..6 (i4), c = 0..23 as f8[2, 3, 4], words = two lists of bytes.
/usr/bin/python3 -c "
import numpy as np
b = np.arange(7, dtype='<i4').tobytes() + np.arange(24, dtype='<f8').tobytes() + bytes([1, 2, 3, 4, 5])
b += np.array([0.1, 65504, -0.0], dtype='<f2').tobytes()
open('$tmp/a.bin', 'wb').write(b)
"
cat >"$tmp/a.dud" <<'EOF'
NX := 4
#! zones along x
ids = <i4[7]
c = <f8[2, 3, NX]
words = [ = u1[2]  = u1[3] ]
half = <f2[3]
EOF
out() { "$dudley" "$@" 2>"$tmp/err"; echo "rc=$?"; }

check "negative step reverses (regression: printed [0,6])" \
  test "$(out dump "$tmp/a.bin" '/ids[::-1]')" = $'/ids[::-1] = [6,5,4,3,2,1,0]\nrc=0'
check "negative step of 2 (regression: printed [0,5])" \
  test "$(out dump "$tmp/a.bin" '/ids[::-2]')" = $'/ids[::-2] = [6,4,2,0]\nrc=0'
check "a step beyond the size takes one element (regression: refused)" \
  test "$(out dump "$tmp/a.bin" '/ids[::-100]')" = $'/ids[::-100] = [6]\nrc=0'
check "integer indexes drop their dimensions: a scalar" \
  test "$(out dump "$tmp/a.bin" '/c[-1, -1, -1]')" = $'/c[-1, -1, -1] = 23.0\nrc=0'
check "trailing dimensions may be left out" \
  test "$(out dump "$tmp/a.bin" '/c[1, 2]')" = $'/c[1, 2] = [20.0,21.0,22.0,23.0]\nrc=0'
check "ellipsis" \
  test "$(out dump "$tmp/a.bin" '/c[..., 0]')" = $'/c[..., 0] = [[0.0,4.0,8.0],[12.0,16.0,20.0]]\nrc=0'
check "step 0 is refused with exit 2" test "$(out dump "$tmp/a.bin" '/ids[::0]')" = "rc=2"
check "step 0 is named" grep -q "slice step cannot be zero" "$tmp/err"
check "index out of range is named like numpy" \
  grep -q "index 7 is out of bounds for dimension 0 with size 7" <(out dump "$tmp/a.bin" '/ids[7]'; cat "$tmp/err")

# Lists, groups, parameters.
check "a selection of a list picks its items (regression: printed everything)" \
  test "$(out dump "$tmp/a.bin" '/words[1:]')" = $'/words/1 = [3,4,5]\nrc=0'
check "a selection of a list may be empty" test "$(out dump "$tmp/a.bin" '/words[0:0]')" = "rc=0"
check "a selection of a group is refused" test "$(out dump "$tmp/a.bin" '/[0]')" = "rc=2"
check "... and says why" grep -q "/ is a group: a selection applies to an array or a list" "$tmp/err"
check "parameters can be dumped" test "$(out dump "$tmp/a.bin" /NX)" = $'/NX = 4\nrc=0'
check "a missing item gets a suggestion" test "$(out dump "$tmp/a.bin" /Nx)" = "rc=2"
check "... naming the near one" grep -q "no item /Nx in .*a.bin (did you mean /NX?)" "$tmp/err"

# f2 prints the shortest text that reads back as the same half (regression: 0.099975586).
check "f2 shortest text" test "$(out dump "$tmp/a.bin" /half)" = $'/half = [0.1,65500.0,-0.0]\nrc=0'

# Line styles and value limits.
check "--lines row: one innermost row a line, labelled with numpy text for it" \
  test "$(out dump --lines row "$tmp/a.bin" '/c[1, 1:, ::-2]')" = $'/c[1, 1, 3:0:-2] = [19.0,17.0]\n/c[1, 2, 3:0:-2] = [23.0,21.0]\nrc=0'
check "--lines value: stored indexes of a reversed selection" \
  test "$(out dump --lines value "$tmp/a.bin" '/ids[::-3]')" = $'/ids[6] = 6\n/ids[3] = 3\n/ids[0] = 0\nrc=0'
check "--max-values cuts with ..." \
  test "$(out dump --max-values 5 "$tmp/a.bin" '/c[1]')" = $'/c[1] = [[12.0,13.0,14.0,15.0],[16.0,...]]\nrc=0'
check "--max-values in row lines" \
  test "$(out dump --max-values 5 --lines row "$tmp/a.bin" '/c[0]')" = $'/c[0, 0, :] = [0.0,1.0,2.0,3.0]\n/c[0, 1, :] = [4.0,...]\n/c ... 7 more values\nrc=0'
"$dudley" dump --json --max-values 3 "$tmp/a.bin" /c '/ids[::-1]' >"$tmp/j" 2>"$tmp/err"
check "--json --max-values: data cut, counts given, JSON valid" /usr/bin/python3 -c "
import json
m = json.load(open('$tmp/j'))['root']['members']
assert m['c']['data'] == [[[0.0, 1.0, 2.0]]], m['c']['data']
assert m['c']['truncated'] == {'shown': 3, 'total': 24}
assert m['ids']['selections']['[::-1]']['data'] == [6, 5, 4]
"
check "--max-values refuses a negative count" test "$(out dump --max-values -1 "$tmp/a.bin")" = "rc=2"
check "--lines refuses an unknown style" test "$(out dump --lines diagonal "$tmp/a.bin")" = "rc=2"

# Struct fields.
/usr/bin/python3 -c "
import numpy as np
t = np.dtype([('pos', '<f4', (3,)), ('id', '<i4')])
r = np.zeros(3, dtype=t); r['pos'] = np.arange(9).reshape(3, 3); r['id'] = [7, 8, 9]
r.tofile('$tmp/r.bin')
"
printf 'rec := { pos = <f4[3]  id = <i4 }\nrecs = rec[3]\n' >"$tmp/r.dud"
check "a struct field" test "$(out dump "$tmp/r.bin" /recs.id)" = $'/recs.id = [7,8,9]\nrc=0'
check "a struct field with a selection over records and field" \
  test "$(out dump "$tmp/r.bin" '/recs.pos[::-1, 0]')" = $'/recs.pos[::-1, 0] = [6.0,3.0,0.0]\nrc=0'
check "a selection then a field" test "$(out dump "$tmp/r.bin" '/recs[1].pos')" = $'/recs[1].pos = [3.0,4.0,5.0]\nrc=0'
check "an unknown field is refused" test "$(out dump "$tmp/r.bin" /recs.idd)" = "rc=2"
check "... with a suggestion" grep -q "no field 'idd' in .*did you mean 'id'" "$tmp/err"
check "a field of a plain array is refused" test "$(out dump "$tmp/a.bin" /ids.x)" = "rc=2"

# convert: names spelled like types, sublists, anonymous groups in lists, parameter docs.
printf 'i4 = <u2\nf8 = <i1[2]\nL = [ = [ = <i1 ] ]\nM = [\n  /\n    a = <i1\n  ..\n  = [ = <i1 ]\n]\nM = [ = <i2 ]\nNX := 2\n#! zones along x\nx = <i1[NX]\n' >"$tmp/n.dud"
head -c 12 /dev/urandom >"$tmp/n.bin"
check "convert names spelled like types and sublists (regressions: refused, unparsable layout)" \
  test "$(out convert "$tmp/n.bin" "$tmp/n2.bin" | tail -1)" = "rc=0"
check "the converted layout passes check" "$dudley" check "$tmp/n2.dud"
"$dudley" dump "$tmp/n.bin" >"$tmp/n.txt"
check "the original dumps (exit 0)" test $? -eq 0
"$dudley" dump "$tmp/n2.bin" >"$tmp/n2.txt"
check "the converted file dumps (exit 0)" test $? -eq 0
check "and the dump is not empty" grep -q '^/x = ' "$tmp/n.txt"
check "the converted values are the same" cmp -s "$tmp/n.txt" "$tmp/n2.txt"
check "convert keeps parameter docs (regression: dropped)" \
  grep -q "zones along x" <("$dudley" ls --json "$tmp/n2.bin")

# dump --json streams the tree as it reads it: 20,000 arrays of no bytes (it stopped at
# 16,384 when the tree was built in memory) all print, in text and JSON alike.
/usr/bin/python3 -c "
for i in range(20000): print(f'a{i:05} = u1[0]')" >"$tmp/many.dud"
: >"$tmp/many.bin"
"$dudley" dump --json "$tmp/many.bin" >"$tmp/many.json"
check "dump --json of 20,000 empty arrays exits 0" test $? -eq 0
check "and gives every one of them, with its data" /usr/bin/python3 -c "
import json, sys
members = json.load(open(sys.argv[1]))['root']['members']
assert len(members) == 20000, len(members)
assert members['a19999']['data'] == [] and members['a00000']['shape'] == [0]" "$tmp/many.json"
check "text mode gives them all too" test "$("$dudley" dump "$tmp/many.bin" | wc -l)" -eq 20000

echo "dump: $passed passed, $failed failed"
test "$failed" -eq 0
