#!/usr/bin/env bash
# Zarr stores through the CLI, as a user meets them: ls, dump and convert of a store in text
# and --json, exit codes, a broken store, options of writing. Values are checked with numpy.
set -u
dudley=${DUDLEY:?set DUDLEY to the dudley binary}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"
cd "$tmp"

# Dudley data to start from: a 2-D float64 array and a 1-D int16 one in a group.
$py - <<'PY'
import numpy as np
x = np.arange(35, dtype="<f8").reshape(7, 5) / 4
y = np.arange(9, dtype="<i2") - 4
with open("in.bin", "wb") as f:
    f.write(x.tobytes()); f.write(y.tobytes())
open("in.dud", "w").write("x = <f8[7, 5]\ng /\n  y = <i2[9]\n..\n")
PY

"$dudley" convert --chunks 3,2 in.bin s.zarr >out.txt 2>err.txt
check "convert to a .zarr store exits 0" test $? -eq 0
check "and says what it wrote" grep -q "wrote s.zarr ([0-9]* bytes, store)" out.txt
check "arrays of another rank than --chunks are chunked by size, with a note" \
  grep -q "/g/y: 1 dimensions, --chunks gives 2: chunked near --chunk-bytes" err.txt
"$dudley" ls s.zarr >out.txt
check "ls shows the chunk grid and codecs" grep -q "^/x .*array <f8 \[7, 5\] chunked \[3, 2\] bytes+zstd" out.txt
check "ls lists the group" grep -q "^/g/y .*array <i2 \[9\]" out.txt
"$dudley" ls --json s.zarr >out.json
check "ls --json gives the format, storage and fill value" $py -c "
import json; d = json.load(open('out.json'))
x = d['root']['members']['x']
assert d['format'] == 'zarr' and x['storage']['chunk_shape'] == [3, 2], d
assert x['storage']['fill_value'] == 0.0 and x['storage']['codecs'][1]['name'] == 'zstd', x"
check "dump of a selection matches numpy's indexing" $py - "$dudley" <<'PY'
import json, subprocess, sys
import numpy as np
x = np.arange(35, dtype="<f8").reshape(7, 5) / 4
out = subprocess.run([sys.argv[1], "dump", "--json", "s.zarr", "/x[::-2, 1:4]"],
                     capture_output=True, text=True, check=True).stdout
got = json.loads(out)["root"]["members"]["x"]["selections"]["[::-2, 1:4]"]["data"]
assert got == x[::-2, 1:4].tolist(), got
text = subprocess.run([sys.argv[1], "dump", "s.zarr", "/g/y"], capture_output=True, text=True,
                      check=True).stdout
assert text.strip() == "/g/y = [-4,-3,-2,-1,0,1,2,3,4]", text
PY
# Back to Dudley data: the same bytes numpy wrote.
"$dudley" convert -q s.zarr back.bin
check "a store converts back to Dudley data with the same values" $py -c "
import numpy as np, re
text = open('back.dud').read()
# A store lists its members by name: g (with y) first, then x; each keeps the fill value
# Zarr gave it (zeros when none was given).
assert text.endswith('g /\n  y = i2[9]\n  #@ fill_value: <i2 0\n..\nx = f8[7, 5]\n'
                     '#@ fill_value: <f8 0.0\n'), text
y = np.fromfile('back.bin', '<i2', count=9, offset=8)
x = np.fromfile('back.bin', '<f8', count=35, offset=8 + 18).reshape(7, 5)
assert (y == np.arange(9) - 4).all(), y
assert (x == np.arange(35).reshape(7, 5) / 4).all(), x"

# Sharded: --shards with --chunks inside; ls names both levels; a selection reads right.
"$dudley" convert -q --shards 4,4 --chunks 2,2 in.bin sh.zarr
check "convert --shards exits 0" test $? -eq 0
"$dudley" ls sh.zarr >out.txt
check "ls shows shards of chunks" grep -q "^/x .*array <f8 \[7, 5\] sharded \[4, 4\] of \[2, 2\] bytes+zstd" out.txt
check "arrays of another rank than --shards are not sharded" grep -q "^/g/y .*chunked \[9\] bytes+zstd" out.txt
"$dudley" ls --json sh.zarr >out.json
check "ls --json gives the shard's inner grid" $py -c "
import json; x = json.load(open('out.json'))['root']['members']['x']['storage']
assert x['chunk_shape'] == [4, 4] and x['shard']['chunk_shape'] == [2, 2], x"
check "dump of a sharded selection matches numpy" $py - "$dudley" <<'PY'
import json, subprocess, sys
import numpy as np
x = np.arange(35, dtype="<f8").reshape(7, 5) / 4
out = subprocess.run([sys.argv[1], "dump", "--json", "sh.zarr", "/x[5:, ::-3]"],
                     capture_output=True, text=True, check=True).stdout
got = json.loads(out)["root"]["members"]["x"]["selections"]["[5:, ::-3]"]["data"]
assert got == x[5:, ::-3].tolist(), got
PY
"$dudley" convert -q --shards 4,3 --chunks 2,2 in.bin bad.zarr 2>err.txt
check "--chunks that do not divide --shards fail with exit 2" test $? -eq 2
check "and say so" grep -q "error: /x: --chunks \[2, 2\] does not divide --shards \[4, 3\]" err.txt
check "and leave no store" test ! -e bad.zarr
"$dudley" convert -q --shards 4,4 --zarr-format 2 in.bin bad.zarr 2>err.txt
check "--shards with --zarr-format 2 fails with exit 2" test $? -eq 2
check "naming both" grep -q "error: --shards is a v3 codec: not with --zarr-format 2" err.txt

"$dudley" convert -q --shuffle --chunks 3,2 in.bin shuf.zarr
check "convert --shuffle exits 0" test $? -eq 0
"$dudley" ls shuf.zarr >out.txt
check "ls shows the shuffle before the compressor" \
  grep -q "^/x .*array <f8 \[7, 5\] chunked \[3, 2\] bytes+numcodecs.shuffle+zstd" out.txt
check "the shuffled store dumps the same values" $py -c "
import json, subprocess, numpy as np
out = subprocess.run(['$dudley', 'dump', '--json', 'shuf.zarr', '/x'], capture_output=True, text=True, check=True).stdout
got = np.array(json.loads(out)['root']['members']['x']['data'])
assert np.array_equal(got, np.arange(35).reshape(7, 5) / 4), got"
"$dudley" convert -q --shuffle --zarr-format 2 --compressor none --chunks 3,2 in.bin shuf2.zarr
check "with --zarr-format 2 it is a shuffle filter" $py -c "
import json; d = json.load(open('shuf2.zarr/x/.zarray'))
assert d['filters'] == [{'id': 'shuffle', 'elementsize': 8}] and d['compressor'] is None, d"

# Strings (python3-zarr writes a v2 object array of str): ls, dump in text and --json, a
# conversion to Zarr v3 and back, and a clear refusal where the format has no such type.
$py -c "
import zarr, numpy as np
z = zarr.open('str.zarr', mode='w', shape=(3,), chunks=(2,), dtype=str)
z[:] = np.array(['alpha', 'é', ''], dtype=object)"
"$dudley" ls str.zarr >out.txt
check "ls shows a string array" grep -q "^/ .*array vlen<|U1> \[3\] chunked \[2\] vlen-utf8+blosc" out.txt
"$dudley" dump str.zarr >out.txt
check "dump prints the strings" grep -qx '/ = \["alpha","é",""\]' out.txt
"$dudley" dump --json str.zarr '/[::-1]' >out.json
check "dump --json gives them as JSON strings" $py -c "
import json; d = json.load(open('out.json'))['root']
assert d['selections']['[::-1]']['data'] == ['', 'é', 'alpha'], d"
"$dudley" convert -q str.zarr str3.zarr && "$dudley" dump str3.zarr >out.txt
check "strings convert to a v3 store" grep -q '\["alpha","é",""\]' out.txt
# ASDF has fixed-length strings only: as long as the longest (5 characters), with a note.
"$dudley" convert str.zarr str.asdf >out.txt 2>err.txt
check "to ASDF: exit 0" test $? -eq 0
check "noting fixed-length strings" grep -q "/str: variable-length strings are written as fixed-length <U5" err.txt
check "python-asdf reads the strings" $py -c "
import asdf, numpy as np
with asdf.open('str.asdf') as f:
    a = np.array(f.tree['str'])
    assert a.dtype == np.dtype('<U5') and a.tolist() == ['alpha', 'é', ''], a"

# A store that is one array: listed as "/", and converted to formats of groups under the
# store's name.
cp -r s.zarr/x one.zarr
"$dudley" ls one.zarr >out.txt
check "an array store lists as /" grep -q "^/  *array <f8 \[7, 5\]" out.txt
"$dudley" convert -q one.zarr one.bin
check "and converts to Dudley data named after the store" $py -c "
import numpy as np
assert open('one.dud').read().endswith('one = f8[7, 5]\n#@ fill_value: <f8 0.0\n'), open('one.dud').read()
x = np.fromfile('one.bin', '<f8', count=35, offset=8).reshape(7, 5)
assert (x == np.arange(35).reshape(7, 5) / 4).all(), x"
"$dudley" convert -q one.zarr one.asdf
check "and to ASDF" $py -c "
import asdf, numpy as np
with asdf.open('one.asdf') as f:
    assert (f['one'][()] == np.arange(35).reshape(7, 5) / 4).all()"

# A broken store: metadata that is not JSON fails naming file, line and column, exit 1; the
# JSON error document says the same.
mkdir -p bad.zarr/a && printf '{"zarr_format": 3, "node_type": "group"}' >bad.zarr/zarr.json
printf '{"zarr_format": 3,\n "node_type": arr}' >bad.zarr/a/zarr.json
"$dudley" ls bad.zarr >out.txt 2>err.txt
check "ls of a store with a broken node still lists it, and fails" test $? -eq 1
check "naming the file, line and column" grep -q "bad.zarr/a/zarr.json:2:" err.txt out.txt
"$dudley" dump --json bad.zarr /a >out.json 2>err.txt
check "dump --json of the broken node exits 1" test $? -eq 1
check "with the error in JSON" $py -c "
import json; d = json.load(open('out.json'))
assert 'bad.zarr/a/zarr.json' in json.dumps(d), d"
printf '{"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "float8"}' >bad.zarr/zarr.json
"$dudley" ls bad.zarr >out.txt 2>err.txt
check "an unknown data type of the root exits 1" test $? -eq 1
check "naming the type" grep -q 'unknown data_type "float8"' err.txt

# A chunk whose bytes are damaged: dump fails naming the chunk key, and writes no output.
printf 'garbage' >s.zarr/x/c/0/0
"$dudley" dump s.zarr /x >out.txt 2>err.txt
check "a damaged chunk exits 1" test $? -eq 1
check "naming the chunk" grep -q "s.zarr/x/c/0/0" err.txt
"$dudley" convert -q s.zarr again.zarr 2>err.txt
check "a conversion that meets it leaves no output" sh -c "test ! -e again.zarr && ! ls -a | grep -q again"

# A store is written whole or not at all; an existing file is never replaced by a store.
echo keep >file.zarr
"$dudley" convert -q in.bin file.zarr 2>err.txt
check "converting over a file that is not a store is refused (exit 2)" test $? -eq 2
check "saying why" grep -q "file.zarr: error: exists and is not a directory" err.txt
check "and the file is kept" grep -qx keep file.zarr

echo "zarr cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
