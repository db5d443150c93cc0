#!/usr/bin/env bash
# The CLI as the format registry drives it: which format reads or writes a file, the
# options each format contributes, the files a conversion must not write over, and what it
# reports having written. Values are checked against python3-asdf and numpy.
set -u
dudley=${DUDLEY:?set DUDLEY to the dudley binary}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"

# An ASDF file made by the reference library: a structured array with a string field,
# 0-d strings, a unicode array.
$py - "$tmp" <<'PY'
import sys, asdf, numpy as np
d = sys.argv[1]
s = np.zeros(3, dtype=[("a", "u1"), ("b", "S3"), ("c", "<f4")])
s["a"] = [1, 2, 3]; s["b"] = [b"abc", b"de", b""]; s["c"] = [0.5, -1, 2]
asdf.AsdfFile({"flat": s, "one": np.array(b"xy", dtype="S2"),
               "u": np.array(["h\u00e9llo", "w"], dtype="U5")}).write_to(f"{d}/x.asdf")
PY

# x.asdf -> x.bin: x.dud is the output's layout, not an input (it was refused as one).
"$dudley" convert "$tmp/x.asdf" "$tmp/x.bin" >"$tmp/out" 2>"$tmp/err"
check "convert x.asdf x.bin exits 0 (no x.dud read)" test $? -eq 0
check "and says what it wrote" grep -qx "wrote $tmp/x.bin ([0-9]* bytes) and $tmp/x.dud" "$tmp/out"
check "a string field is S1[3] in the layout" grep -q "b = S1\[3\] @ 1" "$tmp/x.dud"
check "the values match python3-asdf's" $py - "$tmp" "$dudley" <<'PY'
import sys, json, subprocess, asdf
d, dudley = sys.argv[1], sys.argv[2]
out = json.loads(subprocess.run([dudley, "dump", "--json", f"{d}/x.bin"], capture_output=True,
                                text=True, check=True).stdout)
members = out["root"]["members"]
f = asdf.open(f"{d}/x.asdf")
want = [{"a": int(r["a"]), "b": r["b"].decode(), "c": float(r["c"])} for r in f["flat"]]
assert members["flat"]["data"] == want, (members["flat"]["data"], want)
assert members["one"]["data"] == f["one"][()].decode(), members["one"]
assert members["u"]["data"] == [str(x) for x in f["u"]], members["u"]
PY

"$dudley" convert --json "$tmp/x.asdf" "$tmp/y.bin" >"$tmp/out"
check "convert --json lists the files written with their roles" $py -c "
import json, sys; d = json.load(open(sys.argv[1]))
assert d['format'] == 'dudley' and d['layout'] == sys.argv[2] + '/y.dud', d
assert [f['role'] for f in d['files']] == ['data', 'layout'], d
assert d['files'][0]['bytes'] == d['bytes'] > 0 and d['files'][1]['bytes'] > 0, d
# What python asdf's file holds besides the arrays is its own bookkeeping (its software and
# history): no data of the tree, neither noted nor lost.
assert d['notes'] == [] and d['lost'] == [], d" "$tmp/out" "$tmp"

# An extension no format owns is refused instead of written as Dudley data.
"$dudley" convert "$tmp/x.asdf" "$tmp/out.grib" 2>"$tmp/err"
check "convert to .grib exits 2" test $? -eq 2
check "and names the formats and --to" grep -q "no format writes '.grib' files (this build writes: asdf, zarr, avro, hdf5, npy, ndl, dudley; .*--to)" "$tmp/err"
check "and writes nothing" test ! -e "$tmp/out.grib"
"$dudley" convert --json "$tmp/x.asdf" "$tmp/out.grib" >"$tmp/out"
check "convert --json to .grib exits 2" test $? -eq 2
check "with a JSON error" $py -c "
import json, sys; d = json.load(open(sys.argv[1])); assert d['error']['code'] == 'usage', d" "$tmp/out"
"$dudley" convert --to dudley "$tmp/x.asdf" "$tmp/forced.h5" >/dev/null
check "--to dudley writes any name" test -s "$tmp/forced.h5"
"$dudley" convert "$tmp/x.asdf" "$tmp/plain" >/dev/null
check "a name without extension is Dudley data" test -s "$tmp/plain.dud"

printf 'not a format\n' >"$tmp/unknown.xyz"
"$dudley" ls "$tmp/unknown.xyz" 2>"$tmp/err"
check "ls of an unknown extension exits 2" test $? -eq 2
check "and says no format recognises it" grep -q "no format recognises this file or its extension '.xyz' (this build reads: asdf, zarr, avro, hdf5, npy, netcdf3, ndl, dudley" "$tmp/err"
printf 'not a format\n' >"$tmp/unknown.nc"
"$dudley" ls "$tmp/unknown.nc" 2>"$tmp/err"
check "a .nc file with neither signature (HDF5, CDF): exit 1" test $? -eq 1
check "and says it is not netCDF classic" grep -q "not a netCDF classic file (no CDF signature)" "$tmp/err"
printf 'not a format\n' >"$tmp/unknown.h5"
"$dudley" ls "$tmp/unknown.h5" 2>"$tmp/err"
check "a .h5 file without the HDF5 signature: exit 1" test $? -eq 1
check "and says it is not HDF5" grep -q "unknown.h5: error: not an HDF5 file" "$tmp/err"
cp "$tmp/x.asdf" "$tmp/renamed.h5"
check "an ASDF file under another name is read by its signature" \
  bash -c '"$0" ls "$1" >/dev/null' "$dudley" "$tmp/renamed.h5"

# A signature wins over a layout beside the file.
cp "$tmp/x.dud" "$tmp/xx.dud"
cp "$tmp/x.asdf" "$tmp/xx.asdf"
"$dudley" ls --json "$tmp/xx.asdf" >"$tmp/out"
check "x.asdf with an x.dud beside it is ASDF" grep -q '"format": "asdf"' "$tmp/out"

# Options of the formats, grouped by format in --help.
"$dudley" convert --help >"$tmp/out"
check "convert --help groups ASDF output options" grep -q "ASDF output" "$tmp/out"
check "and Dudley output options" grep -q "Dudley output" "$tmp/out"
check "and the reading options" grep -q "ASDF format" "$tmp/out"
"$dudley" convert --inline-max 5 "$tmp/x.asdf" "$tmp/z.bin" 2>"$tmp/err"
check "an ASDF output option for Dudley output exits 2" test $? -eq 2
check "and names it" grep -q -- "--inline-max does not apply to dudley output" "$tmp/err"
"$dudley" ls --max-block-size abc "$tmp/x.asdf" 2>"$tmp/err"
check "a bad number for a format's option exits 2" test $? -eq 2
"$dudley" dump --max-block-size 10 "$tmp/x.asdf" /flat >/dev/null 2>"$tmp/err"
check "a format's reading option reaches its reader" test $? -eq 1
check "(blocks over 10 bytes refused)" grep -q "more than the 10 bytes allowed (--max-block-size)" "$tmp/err"

# Text between the ASDF header and the tree that is neither the tree nor a block.
printf '#ASDF 1.0.0\nhello: 1\n' >"$tmp/garbage.asdf"
"$dudley" ls "$tmp/garbage.asdf" >/dev/null 2>"$tmp/err"
check "content between header and tree exits 1 (python asdf refuses it too)" test $? -eq 1
check "and names the offset" grep -q "garbage.asdf:@12: error: invalid content between the header and the tree" "$tmp/err"
"$dudley" ls --json "$tmp/garbage.asdf" >"$tmp/out" 2>/dev/null
check "in JSON too" grep -q '"offset": 12' "$tmp/out"
printf '#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n' >"$tmp/empty.asdf"
check "a header alone is an empty file" bash -c '"$0" ls "$1" >/dev/null' "$dudley" "$tmp/empty.asdf"

# uint64 values of 2^63 and more are not tree integers for ASDF readers: such arrays go to
# blocks even under --inline-max; smaller ones are written inline.
printf 'big = <u8[3]\nsmall = <u8[2]\n' >"$tmp/u64.dud"
$py -c "
import numpy as np, sys
np.array([1, 2**63, 2**64 - 1], '<u8').tofile(sys.argv[1])
with open(sys.argv[1], 'ab') as f: np.array([5, 6], '<u8').tofile(f)" "$tmp/u64.bin"
"$dudley" convert --inline-max 10 "$tmp/u64.bin" "$tmp/u64.asdf" >/dev/null
check "uint64 beyond 2^63 goes to a block, read back by python3-asdf" $py -c "
import asdf, sys
f = asdf.open(sys.argv[1])
assert [int(v) for v in f['big']] == [1, 2**63, 2**64 - 1], f['big']
assert [int(v) for v in f['small']] == [5, 6]
text = open(sys.argv[1], 'rb').read()
assert b'data: [5, 6]' in text and b'9223372036854775808' not in text" "$tmp/u64.asdf"

# Every node is addressable: values of the tree (ASDF scalars, maps and lists holding no
# arrays) by path in dump and ls; ls lists subtrees.
$py -c "
import asdf, numpy as np, sys
asdf.AsdfFile({'scalar': 3.5, 'meta': {'units': 'm', 'list': [1, 'two']},
               'g': {'x': np.arange(3), 'note': 'hi'}}).write_to(sys.argv[1])" "$tmp/v.asdf"
"$dudley" dump "$tmp/v.asdf" /scalar /meta/units /meta/list/1 /meta /g/note >"$tmp/out"
check "dump prints tree values by path" diff -u - "$tmp/out" <<'TXT'
/scalar = 3.5
/meta/units = "m"
/meta/list/1 = "two"
/meta = {"list":[1,"two"],"units":"m"}
/g/note = "hi"
TXT
"$dudley" dump "$tmp/v.asdf" /meta/nope 2>"$tmp/err"
check "a path into a value that holds no such key exits 2" test $? -eq 2
"$dudley" ls "$tmp/v.asdf" /g /meta/units >"$tmp/out"
check "ls PATH lists the subtree" grep -q "^/g/x  *array <i8 \[3\]" "$tmp/out"
check "and not the rest" bash -c '! grep -q "^/scalar" "$0"' "$tmp/out"
check "ls PATH of a value prints it" grep -q '^/meta/units  *value = "m"' "$tmp/out"
"$dudley" ls --json "$tmp/v.asdf" /g /meta/list >"$tmp/out"
check "ls --json PATH gives each subtree under items" $py -c "
import json, sys; d = json.load(open(sys.argv[1]))
assert list(d['items']) == ['/g', '/meta/list'], d
assert d['items']['/g']['members']['x']['shape'] == [3]
assert d['items']['/meta/list'] == {'kind': 'value', 'value': [1, 'two']}" "$tmp/out"
cp "$tmp/v.asdf" "$tmp/v2.asdf"
"$dudley" ls "$tmp/v.asdf" "$tmp/v2.asdf" 2>"$tmp/err"
check "an absolute file after DATA is an expanded glob, not a path" grep -q "ls reads one data file, and 1 more were given" "$tmp/err"
"$dudley" ls "$tmp/v.asdf" /gg 2>"$tmp/err"
check "ls of a path that names nothing exits 2 with the nearest" grep -q "no item /gg in .*(did you mean /g?)" "$tmp/err"

# A tree's values (ASDF scalars, maps and lists) are a Dudley layout's `#@` attributes.
"$dudley" convert "$tmp/v.asdf" "$tmp/v.bin" >/dev/null 2>"$tmp/err"
check "convert to Dudley carries tree values: exit 0" test $? -eq 0
"$dudley" ls "$tmp/v.bin" >"$tmp/out"
check "as attributes of the root and the group" grep -q '^/  *group {meta={"list":\[1,"two"\],"units":"m"}, scalar=3.5}' "$tmp/out"
check "(the group's)" grep -q '^/g  *group {note="hi"}' "$tmp/out"

# What an output cannot hold is never dropped silently: the conversion is refused, exit 1,
# naming every item and writing nothing; --lossy writes the rest and names what it left out
# (stderr, and "lost" in the --json report). Kept where the output can: a parameter beside a
# member of its name. A layout holds no object references or compound attributes.
$py -c "
import h5py, numpy as np, sys
with h5py.File(sys.argv[1], 'w') as f:
    x = f.create_dataset('x', data=np.arange(3))
    x.attrs['units'] = 'm'
    f.attrs['pair'] = np.array((1, 2.5), [('a', '<i4'), ('b', '<f8')])
    f.attrs['where'] = x.ref
    x.attrs['self'] = x.ref" "$tmp/ref.h5"
"$dudley" convert "$tmp/ref.h5" "$tmp/r.bin" >/dev/null 2>"$tmp/err"
check "convert to Dudley refuses to drop what a layout cannot hold: exit 1" test $? -eq 1
check "naming the count and the way out" grep -q "^$tmp/r.bin: error: 3 items of the source cannot be carried to Dudley; nothing was written (--lossy writes the rest" "$tmp/err"
check "and each item" test "$(grep -c '^  /@pair: attribute not written (an attribute of {a:<i4@0, b:<f8@4}\|^  /@where: attribute not written (an attribute of objref\|^  /x@self: attribute not written' "$tmp/err")" -eq 3
check "and writes nothing" test ! -e "$tmp/r.bin" -a ! -e "$tmp/r.dud"
"$dudley" convert --json "$tmp/ref.h5" "$tmp/r.bin" >"$tmp/out" 2>/dev/null
check "--json: an error document of code loss listing the items" $py -c "
import json, sys; d = json.load(open(sys.argv[1]))['error']
assert d['code'] == 'loss' and len(d['lost']) == 3, d
assert d['lost'][0].startswith('/@pair: attribute not written'), d" "$tmp/out"
"$dudley" convert --lossy "$tmp/ref.h5" "$tmp/r.bin" >/dev/null 2>"$tmp/err"
check "--lossy writes the rest: exit 0" test $? -eq 0 -a -e "$tmp/r.bin" -a -e "$tmp/r.dud"
check "and names what it left out" test "$(grep -c '^note: left out: /@pair\|^note: left out: /@where\|^note: left out: /x@self' "$tmp/err")" -eq 3
check "and keeps the rest" grep -qx '#@ units: "m"' "$tmp/r.dud"
"$dudley" convert --lossy -q "$tmp/ref.h5" "$tmp/r.bin" >/dev/null 2>"$tmp/err"
check "even with --quiet" test "$(grep -c '^note: left out: ' "$tmp/err")" -eq 3
"$dudley" convert --lossy --json "$tmp/ref.h5" "$tmp/r.bin" >"$tmp/out"
check "--lossy --json lists them as lost" $py -c "
import json, sys; d = json.load(open(sys.argv[1]))
assert len(d['lost']) == 3 and d['lost'][2].startswith('/x@self: '), d" "$tmp/out"
printf 'n := <i4\nn = <f8[n]\nrec := { a = <i4 }\nr = rec[2]\n' >"$tmp/p.dud"
$py -c "
import struct, sys; open(sys.argv[1], 'wb').write(struct.pack('<i2d2i', 2, 1.5, 2.5, 7, 8))" "$tmp/p.bin"
"$dudley" convert --json "$tmp/p.bin" "$tmp/p.asdf" >"$tmp/out"
check "convert --json lists the notes" $py -c "
import json, sys; d = json.load(open(sys.argv[1]))
assert d['notes'] == ['parameter /n is written as \'n_parameter\': its group has a member of that name',
                      'struct type name \'rec\' (/r) is not written: ASDF datatypes have no names'], d" "$tmp/out"
check "a parameter beside a member of its name survives in python3-asdf" $py -c "
import asdf, sys; f = asdf.open(sys.argv[1])
assert f.tree['n_parameter'] == 2 and list(f['n']) == [1.5, 2.5] and list(f['r']['a']) == [7, 8]" "$tmp/p.asdf"

# Masks users can see: masked elements print as numpy prints them (--, null in JSON), ls
# says an array is masked, --unmasked shows the stored values; inline nulls are a mask.
$py -c "
import asdf, numpy as np, sys
m = np.ma.array([1, 2, 3, 4], mask=[False, True, False, True], dtype='i4')
asdf.AsdfFile({'m': m}).write_to(sys.argv[1])" "$tmp/mask.asdf"
cat >"$tmp/inline.asdf" <<'YAML'
#ASDF 1.0.0
%YAML 1.1
%TAG ! tag:stsci.edu:asdf/
--- !core/asdf-1.1.0
x: !core/ndarray-1.0.0 {data: [1, null, 3], datatype: int8, shape: [3]}
y: !core/ndarray-1.0.0 {data: [1, -999, 3], datatype: int16, shape: [3], mask: -999}
b: !core/ndarray-1.0.0
  data: [[1, 2, 3], [4, 5, 6]]
  datatype: int8
  shape: [2, 3]
  mask: !core/ndarray-1.0.0 {data: [true, false, true], datatype: bool8, shape: [3]}
...
YAML
"$dudley" dump "$tmp/mask.asdf" /m >"$tmp/out"
check "dump prints masked elements as --" grep -qx '/m = \[1,--,3,--\]' "$tmp/out"
"$dudley" dump --unmasked "$tmp/mask.asdf" /m >"$tmp/out"
check "--unmasked prints the stored values" grep -qx '/m = \[1,2,3,4\]' "$tmp/out"
"$dudley" dump --json "$tmp/mask.asdf" /m >"$tmp/out"
check "dump --json gives masked elements as null" $py -c "
import json, sys; d = json.load(open(sys.argv[1]))
assert d['root']['members']['m']['data'] == [1, None, 3, None], d" "$tmp/out"
"$dudley" ls "$tmp/mask.asdf" >"$tmp/out"
check "ls marks a masked array" grep -q '^/m .*masked by /m_mask' "$tmp/out"
"$dudley" dump "$tmp/inline.asdf" /x /y /b '/b[:, ::-1]' >"$tmp/out"
check "inline nulls, a value mask and a broadcast mask array, as numpy masks them" diff -u - "$tmp/out" <<'TXT'
/x = [1,--,3]
/y = [1,--,3]
/b = [[--,2,--],[--,5,--]]
/b[:, ::-1] = [[--,2,--],[--,5,--]]
TXT
# python asdf takes a mask of the array's size only (numpy.ma), so its checks leave /b out.
sed '/^b:/,/^  mask:/d' "$tmp/inline.asdf" >"$tmp/inline_xy.asdf"
check "numpy agrees" $py -c "
import asdf, sys
f = asdf.open(sys.argv[1])
assert f['x'].mask.tolist() == [False, True, False] and f['y'].mask.tolist() == [False, True, False]" "$tmp/inline_xy.asdf"
"$dudley" ls "$tmp/inline.asdf" >"$tmp/out"
check "ls says how each is masked" grep -q '^/x .*masked where the data is null' "$tmp/out"
check "(a value)" grep -q '^/y .*masked where == -999' "$tmp/out"
"$dudley" convert "$tmp/mask.asdf" "$tmp/mask2.asdf" >/dev/null
"$dudley" convert "$tmp/inline_xy.asdf" "$tmp/inline2.asdf" >/dev/null
"$dudley" convert "$tmp/inline.asdf" "$tmp/inline3.asdf" >/dev/null
check "a broadcast mask survives our round trip" grep -qx '/b = \[\[--,2,--\],\[--,5,--\]\]' <("$dudley" dump "$tmp/inline3.asdf" /b)
check "masks and the values under them survive a round trip (python3-asdf)" $py -c "
import asdf, sys
f = asdf.open(sys.argv[1]); g = asdf.open(sys.argv[2])
assert f['m'].mask.tolist() == [False, True, False, True] and f['m'].data.tolist() == [1, 2, 3, 4]
assert g['x'].mask.tolist() == [False, True, False] and g['y'].data.tolist() == [1, -999, 3]
assert g['y'].mask.tolist() == [False, True, False]" "$tmp/mask2.asdf" "$tmp/inline2.asdf"

# Outputs inside an input directory, or directories holding an input, are refused.
mkdir -p "$tmp/store"
cp "$tmp/v.asdf" "$tmp/store/in.asdf"
"$dudley" convert --to asdf "$tmp/store/in.asdf" "$tmp/store" >"$tmp/out" 2>"$tmp/err"
check "a directory output holding the input exits 1" test $? -eq 1
check "and says it holds an input" grep -q "the output $tmp/store holds an input of this conversion" "$tmp/err"
check "and the input is still there" test -s "$tmp/store/in.asdf"

# An ASDF file's external array sources are inputs too (the ASDF Standard's exploded file).
reference="$(dirname "${BASH_SOURCE[0]}")/../data/asdf/reference/1.1.0"
mkdir -p "$tmp/exploded"
cp "$reference/exploded.asdf" "$reference/exploded0000.asdf" "$tmp/exploded/"
before=$(md5sum <"$tmp/exploded/exploded0000.asdf")
"$dudley" convert "$tmp/exploded/exploded.asdf" "$tmp/exploded/exploded0000.asdf" >"$tmp/out" 2>"$tmp/err"
check "an output over an external source exits 1" test $? -eq 1
check "and names the source" grep -q "exploded0000.asdf is an input of this conversion" "$tmp/err"
"$dudley" convert --json "$tmp/exploded/exploded.asdf" "$tmp/exploded/exploded0000.asdf" >"$tmp/out" 2>/dev/null
check "in --json too" $py -c "
import json, sys
e = json.load(open(sys.argv[1]))['error']
assert e['code'] == 'usage' and 'is an input of this conversion' in e['message'], e" "$tmp/out"
check "and the source is unchanged" test "$(md5sum <"$tmp/exploded/exploded0000.asdf")" = "$before"
"$dudley" convert -q "$tmp/exploded/exploded.asdf" "$tmp/exploded/other.asdf"
check "another name converts" test $? -eq 0

echo "formats cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
