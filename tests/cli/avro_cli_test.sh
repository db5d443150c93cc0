#!/usr/bin/env bash
# Avro through the CLI, as a user meets it: ls and dump of container files in text and
# --json, convert both ways, `avro decode|encode` of raw datums, exit codes, broken input.
# Files are written by python3-avro; values are checked with numpy.
set -u
dudley=${DUDLEY:?set DUDLEY to the dudley binary}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"
cd "$tmp"

$py - <<'PY' 2>/dev/null
import io, json, warnings
warnings.simplefilter("ignore")
import avro.datafile, avro.io, avro.schema, numpy as np
NDARRAY = {"name": "ndarray", "type": "record", "fields": [
    {"name": "shape", "type": {"type": "array", "items": "int"}},
    {"name": "typestr", "type": "string"}, {"name": "data", "type": "bytes"},
    {"name": "version", "type": "int"}]}
s = avro.schema.parse(json.dumps(NDARRAY))
with avro.datafile.DataFileWriter(open("r.avro", "wb"), avro.io.DatumWriter(), s, codec="deflate") as w:
    for k in range(3):
        a = (np.arange(2 * k).reshape(2, k) / 4).astype(">f8")
        w.append({"shape": [2, k], "typestr": ">f8", "data": a.tobytes(), "version": 3})
b = io.BytesIO()
avro.io.DatumWriter(s).write({"shape": [3], "typestr": "<i2", "data": np.array([1, -2, 3], "<i2").tobytes(),
                              "version": 3}, avro.io.BinaryEncoder(b))
open("d.bin", "wb").write(b.getvalue())
open("bad_typestr.bin", "wb").write(b.getvalue().replace(b"<i2", b"<i3"))
open("cut.bin", "wb").write(b.getvalue()[:-3])
open("ndarray.avsc", "w").write(json.dumps(NDARRAY))
PY

"$dudley" ls r.avro >out.txt
check "ls of a container exits 0" test $? -eq 0
check "ls shows the records as a list" grep -q "^/  *list of 3 {avro.schema=" out.txt
check "and each record as an array" grep -q "^/2 .*array >f8 \[2, 2\]" out.txt
"$dudley" ls --json r.avro >out.json
check "ls --json names the codec and the items" $py -c "
import json; r = json.load(open('out.json'))['root']
assert r['kind'] == 'list' and r['attributes']['avro.codec'] == 'deflate' and len(r['items']) == 3, r
assert r['items'][1]['shape'] == [2, 1] and r['items'][1]['dtype'] == '>f8', r"
"$dudley" dump r.avro /2 >out.txt
check "dump of a record prints its values" grep -qx '/2 = \[\[0.0,0.25\],\[0.5,0.75\]\]' out.txt
"$dudley" dump --json r.avro '/2[1, ::-1]' >out.json
check "dump --json of a selection matches numpy" $py -c "
import json, numpy as np
d = json.load(open('out.json'))['root']['items'][2]['selections']['[1, ::-1]']['data']
assert d == (np.arange(4).reshape(2, 2) / 4)[1, ::-1].tolist(), d"

"$dudley" ls --schema r.avro >out.txt
check "ls --schema prints the writer schema" $py -c "
import json; s = json.load(open('out.txt')); assert s['name'] == 'ndarray' and len(s['fields']) == 4, s"
"$dudley" ls --schema --json r.avro >out.json
check "ls --schema --json gives it as JSON" $py -c "
import json; d = json.load(open('out.json')); assert d['format'] == 'avro' and d['schema']['type'] == 'record', d"
printf 'x = <f8[2]\n' >x.dud && printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' >x.bin
"$dudley" convert -q x.bin x.asdf
"$dudley" ls --schema x.asdf 2>err.txt
check "ls --schema of a file without one exits 2" test $? -eq 2
check "and says which files carry one" grep -q "asdf files carry no writer schema (Avro containers do)" err.txt
# A container's records are a list; an ASDF tree's root is a mapping: the list is its `items`.
"$dudley" convert r.avro r.asdf 2>err.txt
check "Avro -> ASDF writes the records: exit 0" test $? -eq 0 -a -e r.asdf
check "under the key items, with a note" grep -q "^note: /: a list of 3 items, written under the key 'items'" err.txt
"$dudley" dump r.asdf /items >out.txt
check "and they read back" grep -q '0.75' out.txt

# Convert both ways.
"$dudley" convert -q --avro-codec bzip2 r.avro r2.avro
check "Avro -> Avro with another codec exits 0" test $? -eq 0
"$dudley" ls --json r2.avro >out.json
check "and says its codec" $py -c "
import json; assert json.load(open('out.json'))['root']['attributes']['avro.codec'] == 'bzip2'"
"$dudley" convert -q r.avro r.zarr && "$dudley" dump r.zarr /2 >out.txt
check "Avro -> Zarr keeps the values" grep -qx '/2 = \[\[0.0,0.25\],\[0.5,0.75\]\]' out.txt
"$dudley" convert -q r.zarr back.avro 2>err.txt
check "Zarr -> Avro exits 0" test $? -eq 0
"$dudley" dump back.avro /2 >out.txt
check "and the records come back" grep -qx '/2 = \[\[0.0,0.25\],\[0.5,0.75\]\]' out.txt
"$dudley" convert --avro-codec lzo r.avro x.avro 2>err.txt
check "an unknown codec exits 2" test $? -eq 2
check "naming the codecs there are" grep -q "lzo not in {null,deflate,bzip2,zstandard,snappy,xz}" err.txt
"$dudley" convert -q --avro-codec xz r.avro x.avro 2>err.txt
check "--avro-codec xz exits 0" test $? -eq 0
"$dudley" dump x.avro /2 >out.txt
check "and its records read back" grep -qx '/2 = \[\[0.0,0.25\],\[0.5,0.75\]\]' out.txt

# Raw datums.
"$dudley" avro decode d.bin >out.txt
check "avro decode prints the array" grep -qx '/ = \[1,-2,3\]' out.txt
"$dudley" avro decode --json d.bin >out.json
check "avro decode --json gives dtype, shape and data" $py -c "
import json; r = json.load(open('out.json'))['root']
assert r['dtype'] == '<i2' and r['shape'] == [3] and r['data'] == [1, -2, 3], r"
"$dudley" avro decode --schema ndarray.avsc d.bin d.zarr -q
check "avro decode writes another format" test -d d.zarr
"$dudley" avro encode -q d.zarr e.bin
check "avro encode of the only array exits 0" test $? -eq 0
check "and gives python3-avro's datum byte for byte" cmp -s d.bin e.bin
"$dudley" avro encode r.avro e2.bin 2>err.txt
check "encode of a file of several arrays exits 2" test $? -eq 2
check "and asks for --item" grep -q "holds several arrays: name one with --item" err.txt
"$dudley" avro encode --item /1 --json r.avro e3.bin >out.json
check "encode --item --json says what it wrote" $py -c "
import json; d = json.load(open('out.json')); assert d['output'] == 'e3.bin' and d['bytes'] > 16, d"
"$dudley" avro decode bad_typestr.bin 2>err.txt
check "an unknown typestr exits 1" test $? -eq 1
check "naming it and its byte" grep -q 'bad_typestr.bin:@3: error: typestr "<i3"' err.txt
"$dudley" avro decode --json cut.bin >out.json 2>/dev/null
check "a cut datum exits 1" test $? -eq 1
check "with a JSON error naming the offset" $py -c "
import json; e = json.load(open('out.json'))['error']; assert e['file'] == 'cut.bin' and 'offset' in e, e"
"$dudley" avro decode r.avro 2>err.txt
check "a container given to decode exits 2" test $? -eq 2
check "and says to use ls or dump" grep -q "container file, not one raw datum" err.txt
"$dudley" avro decode d.bin d.bin 2>err.txt
check "decode over its input is refused" test $? -eq 2
check "and the input is kept" cmp -s d.bin e.bin
"$dudley" avro decode missing.bin 2>err.txt
check "a missing datum exits 2" test $? -eq 2

# A broken container: a wrong sync marker names its byte.
$py -c "
b = bytearray(open('r.avro', 'rb').read()); b[-1] ^= 0xff; open('sync.avro', 'wb').write(b)"
"$dudley" dump sync.avro >/dev/null 2>err.txt
check "a wrong sync marker exits 1" test $? -eq 1
check "naming the byte" grep -q "sync.avro:@[0-9]*: error: the sync marker after a block is not the header's" err.txt

echo "avro cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
