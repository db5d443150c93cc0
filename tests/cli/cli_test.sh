#!/usr/bin/env bash
# The dudley CLI contract: exit codes, diagnostic format, JSON output, fmt round trip.
set -u
root=$1
dudley=${DUDLEY:?set DUDLEY to the dudley binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"

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
"$dudley" fmt --check "$root/tests/data/dudley/layouts/valid/whitespace.dud" 2>/dev/null
check "fmt --check flags non-canonical text" test $? -eq 1
cp "$root/tests/data/dudley/layouts/valid/whitespace.dud" "$tmp/w.dud"
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

# ls and dump on data written independently by examples/make_restart_data.py.
/usr/bin/python3 "$root/examples/make_restart_data.py" "$tmp/run.bin" 2
cp "$root/examples/restart.dud" "$tmp/run.dud"
"$dudley" ls "$tmp/run.bin" >"$tmp/out" 2>"$tmp/err"
check "ls exits 0" test $? -eq 0
check "ls shows an array with type, shape and address" grep -q '^/hydro/rho  *array <f8 \[3, 6\] @ ' "$tmp/out"
check "ls shows parameters with values and docs" grep -q '^/NX  *parameter = 6 <i4 @ 8  # zones along x$' "$tmp/out"
"$dudley" ls --json "$tmp/run.bin" >"$tmp/ls.json"
check "ls --json follows the contract" /usr/bin/python3 -c "
import json
r = json.load(open('$tmp/ls.json'))
assert r['format'] == 'dudley'
root = r['root']
assert root['kind'] == 'group'
assert list(root['members'])[:3] == ['title', 'state', 'mesh'], list(root['members'])
nx = root['params']['NX']
assert (nx['value'], nx['dtype'], nx['address'], nx['doc']) == (6, '<i4', 8, 'zones along x')
assert 'dtype' not in root['params']['NSPECIES'] and root['params']['NSPECIES']['value'] == 3
rho = root['members']['hydro']['members']['rho']
assert rho['dtype'] == '<f8' and rho['shape'] == [3, 6] and rho['doc'] == 'density (g/cc)'
assert root['members']['materials']['kind'] == 'list'
t = root['members']['tracers']['dtype']
assert t['struct'] == 'tracer' and t['size'] == 36
assert [f['name'] for f in t['fields']] == ['pos', 'vel', 'id', 'zone']
assert t['fields'][3] == {'name': 'zone', 'dtype': '<i4', 'offset': 28, 'shape': [2]}
"
"$dudley" dump --json "$tmp/run.bin" /hydro/rho '/hydro/p[0, 0:2]' /materials/0/name /state >"$tmp/dump.json"
check "dump --json values match what the generator wrote" /usr/bin/python3 -c "
import json
d = json.load(open('$tmp/dump.json'))
assert d['format'] == 'dudley'
m = d['root']['members']
assert m['hydro']['members']['rho']['data'] == [[2000.0 + 10 * j + i for i in range(6)] for j in range(3)]
p = m['hydro']['members']['p']
assert 'data' not in p and p['selections']['[0, 0:2]']['data'] == ['NaN', 1.0]  # numpy: an index drops its dimension
assert m['materials']['items'][0]['members']['name']['data'] == 'Kupfer \u00e9'
assert m['state']['data'] == {'cycle': 200, 'time': 0.5, 'dt': 0.001}
assert 'e' not in m['hydro']['members'] and 'u' not in m['hydro']['members']  # not asked for: not listed
"
# Pointers: a scalar, an array with a NULL and a dangling key, a pointee holding a pointer.
/usr/bin/python3 -c "
import struct
b = struct.pack('<Q', 7) + struct.pack('<3I', 7, 0, 5) + bytes(4) + struct.pack('<2d', 1.5, -2.0) + struct.pack('<Q', 7)
open('$tmp/ptr.bin', 'wb').write(b)
"
printf 'head = <p8\nptrs = <p4[3]\n!@ 24\n7 = <f8[2]\n8 = <p8\n' >"$tmp/ptr.dud"
"$dudley" dump --json "$tmp/ptr.bin" >"$tmp/ptr.json" 2>"$tmp/err"
check "dump without --deref prints pointers as integers" /usr/bin/python3 -c "
import json
m = json.load(open('$tmp/ptr.json'))['root']['members']
assert m['head']['data'] == 7 and m['ptrs']['data'] == [7, 0, 5] and 'target' not in m['head']
"
"$dudley" dump --json --deref "$tmp/ptr.bin" >"$tmp/ptr.json" 2>"$tmp/err"
check "dump --deref of a dangling pointer exits 1" test $? -eq 1
check "the dangling key is named" grep -q "no pointee with key 5" "$tmp/err"
check "dump --deref puts each pointer's pointee under target" /usr/bin/python3 -c "
import json
m = json.load(open('$tmp/ptr.json'))['root']['members']
t = m['head']['target']
assert t['kind'] == 'array' and t['dtype'] == '<f8' and t['shape'] == [2] and t['address'] == 24
assert t['data'] == [1.5, -2.0]
ts = m['ptrs']['target']
assert ts[0] == {'ref': 7} and ts[1] is None and 'error' in ts[2]  # 7 was shown under head
"
# ls --json is printed as the tree is walked: its text must be what a JSON printer writes
# for the same document (2-space indent; one line per family member), pointees included.
printf 'head = <p8\nptrs = <p4[3]\nbroken = <f8[2] @ 999999\n!@ 24\n7 = <f8[2]\n8 = <p8\n' >"$tmp/ptr2.dud"
cp "$tmp/ptr.bin" "$tmp/ptr2.bin"
for args in "$tmp/run.bin" "--max-items 1 $tmp/run.bin" "$tmp/ptr.bin" "$tmp/ptr2.bin"; do
  "$dudley" ls --json $args >"$tmp/ls_text.json" 2>/dev/null
  check "ls --json $(basename "${args##* }") ${args%%/*}is printed as JSON printers print it" /usr/bin/python3 -c "
import json
text = open('$tmp/ls_text.json', encoding='utf-8').read()
assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + '\\n', text[:400]
"
done
"$dudley" dump --deref "$tmp/ptr.bin" /head >"$tmp/out" 2>"$tmp/err"
check "dump --deref prints targets in the human form too" grep -q '^/head -> {.*"data":\[1.5,-2.0\]' "$tmp/out"
# convert keeps pointees and their keys; it refuses to write a dangling pointer.
"$dudley" convert -q "$tmp/ptr.bin" "$tmp/ptrcopy.bin" 2>"$tmp/err"
check "convert of a file with a dangling pointer exits 1" test $? -eq 1
check "and names the pointer and the key" grep -q "/ptrs: element 2 points to 5" "$tmp/err"
/usr/bin/python3 -c "
b = bytearray(open('$tmp/ptr.bin', 'rb').read()); b[16:20] = (8).to_bytes(4, 'little')
open('$tmp/ptr2.bin', 'wb').write(b)"
cp "$tmp/ptr.dud" "$tmp/ptr2.dud"
"$dudley" convert -q --write-order big "$tmp/ptr2.bin" "$tmp/ptrcopy.bin"
"$dudley" dump --json --deref "$tmp/ptr2.bin" >"$tmp/p1.json"
"$dudley" dump --json --deref "$tmp/ptrcopy.bin" >"$tmp/p2.json"
check "converted pointers reach the same targets" /usr/bin/python3 -c "
import json
a = json.load(open('$tmp/p1.json'))['root']['members']
b = json.load(open('$tmp/p2.json'))['root']['members']
for k in ('head', 'ptrs'):
    assert a[k]['data'] == b[k]['data'], k
    ta, tb = a[k]['target'], b[k]['target']
    strip = lambda t: None if t is None else t['ref'] if 'ref' in t else (t['data'], t.get('target', {}).get('data') if isinstance(t.get('target'), dict) else None)
    assert [strip(t) for t in (ta if isinstance(ta, list) else [ta])] == [strip(t) for t in (tb if isinstance(tb, list) else [tb])], k
assert b['ptrs']['target'][2]['data'] == 7
"
head -c 600 "$tmp/run.bin" >"$tmp/cut.bin"
cp "$tmp/run.dud" "$tmp/cut.dud"
"$dudley" ls "$tmp/cut.bin" >"$tmp/out" 2>"$tmp/err"
check "ls of a truncated file exits 1" test $? -eq 1
check "the error names the file, the offset and the item" grep -q "cut.bin:@584: error: data item /hydro/rho of 144 bytes at offset 584 ends beyond the end of the data (600 bytes)" "$tmp/err"
check "each error is reported once" test "$(wc -l <"$tmp/err")" -eq 1
check "items before the cut are still listed" grep -q '^/mesh/y  *array' "$tmp/out"
"$dudley" dump "$tmp/run.bin" /nope >/dev/null 2>"$tmp/err"
check "dump of a missing item exits 2 and names it" grep -q "no item /nope" "$tmp/err"
"$dudley" dump "$tmp/run.bin" '/hydro/rho[7, :]' >/dev/null 2>"$tmp/err"
check "dump of a bad selection exits 2 (a usage error, not a crash)" test $? -eq 2
check "and says which index is out of bounds" grep -q "index 7 is out of bounds" "$tmp/err"
# convert: the copy (big-endian here) dumps to the same values, and checks as a layout.
"$dudley" convert --json --write-order big "$tmp/run.bin" "$tmp/copy.bin" >"$tmp/conv.json"
check "convert exits 0 and reports its files" /usr/bin/python3 -c "
import json, os
c = json.load(open('$tmp/conv.json'))
assert c['data'] == '$tmp/copy.bin' and c['layout'] == '$tmp/copy.dud'
assert c['bytes'] == os.path.getsize('$tmp/copy.bin')
"
"$dudley" check "$tmp/copy.dud" >/dev/null
check "the converted layout passes check" test $? -eq 0
"$dudley" dump --json "$tmp/run.bin" >"$tmp/a.json"
"$dudley" dump --json "$tmp/copy.bin" >"$tmp/b.json"
check "the converted file holds the same data" \
  /usr/bin/python3 "$root/tests/cli/same_arrays.py" "$tmp/a.json" "$tmp/b.json" 17 --any-order
# convert --embed-layout: one file, no .dud, and it dumps to the same data as the source.
"$dudley" convert --json --embed-layout "$tmp/run.bin" "$tmp/self.bin" >"$tmp/emb.json"
check "embedded convert writes no .dud" test ! -e "$tmp/self.dud"
"$dudley" dump --json "$tmp/self.bin" >"$tmp/c.json"
check "embedded convert reports its one file" /usr/bin/python3 -c "
import json, os
c = json.load(open('$tmp/emb.json'))
assert c['embedded'] is True and c['layout'] == '$tmp/self.bin'
assert c['bytes'] == os.path.getsize('$tmp/self.bin')
"
check "the self-describing file holds the same data" \
  /usr/bin/python3 "$root/tests/cli/same_arrays.py" "$tmp/a.json" "$tmp/c.json" 17
/usr/bin/python3 -c "
b = bytearray(open('$tmp/self.bin', 'rb').read()); b[-24] ^= 0x40
open('$tmp/broken.bin', 'wb').write(b)"
"$dudley" ls "$tmp/broken.bin" >/dev/null 2>"$tmp/err"
check "a damaged trailer exits 1" test $? -eq 1
check "and names the file and byte offset" grep -q "broken.bin:@[0-9]*: error: damaged embedded layout trailer" "$tmp/err"
# convert --to-layout: the arrays of SRC land in a layout chosen by the user (a subset, in
# another order, big-endian, with a parameter no shape sets taken from SRC); the rest is noted.
printf '!DUDLEY := S1[8]\nNX := >i8\nNY := >i8\nNMAT := >i2\nstep := { cycle = >i8  time = >f8  dt = >f8 }\nhydro /\n  rho = >f8[NY, NX]\n..\nstate = step\nextra = >i4[2]\n' >"$tmp/pick.dud"
"$dudley" convert -q --to-layout "$tmp/pick.dud" "$tmp/run.bin" "$tmp/pick.bin" 2>"$tmp/err"
check "convert --to-layout refuses to rewrite its own layout (pick.bin -> pick.dud), exit 1" test $? -eq 1
check "and says which input it would replace" grep -q "pick.dud is an input of this conversion" "$tmp/err"
"$dudley" convert --json --to-layout "$tmp/pick.dud" "$tmp/run.bin" "$tmp/picked.bin" >"$tmp/pick.json"
check "convert --to-layout exits 0" test $? -eq 0
"$dudley" dump --json "$tmp/picked.bin" >"$tmp/d.json"
check "convert --to-layout puts SRC's arrays at the layout's paths" /usr/bin/python3 -c "
import json
a_root = json.load(open('$tmp/a.json'))['root']
a, a_params = a_root['members'], a_root['params']
d = json.load(open('$tmp/d.json'))['root']
m = d['members']
assert m['hydro']['members']['rho']['data'] == a['hydro']['members']['rho']['data']
assert m['hydro']['members']['rho']['dtype'] == '>f8'
assert m['extra']['data'] == [0, 0]
assert m['state']['data'] == a['state']['data'] and m['state']['data']['cycle'] == 200
assert d['params']['NMAT']['value'] == a_params['NMAT']['value'] == 1  # no shape uses NMAT
c = json.load(open('$tmp/pick.json'))
assert '/hydro/e' in c['unused'] and '/hydro/rho' not in c['unused'], c['unused']
"
"$dudley" convert --to-layout "$tmp/pick.dud" "$tmp/run.bin" "$tmp/pick2.bin" 2>"$tmp/err" >/dev/null
check "and notes the arrays left out" grep -q "^note: .* array(s) of the source have no item in .*pick.dud: .*/hydro/e" "$tmp/err"
"$dudley" convert -q "$tmp/run.bin" "$tmp/no/such/dir/x.bin" 2>"$tmp/err"
check "convert into a missing directory exits 2" test $? -eq 2
check "and names the path" grep -q "no/such/dir/x.bin" "$tmp/err"
"$dudley" ls "$tmp/run.dud" >/dev/null 2>"$tmp/err"
check "ls of a layout instead of data explains" grep -q "this is a layout" "$tmp/err"
cp "$tmp/run.bin" "$tmp/alone.bin"
"$dudley" ls "$tmp/alone.bin" >/dev/null 2>"$tmp/err"
check "ls without a layout asks for --layout" grep -q "none embedded in it: use --layout" "$tmp/err"
"$dudley" ls --layout "$root/examples/restart.dud" "$tmp/alone.bin" >/dev/null
check "--layout names the layout" test $? -eq 0

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

"$dudley" ls --max-items -1 "$tmp/run.bin" >/dev/null 2>"$tmp/err"
check "ls --max-items -1 is refused with exit 2" test $? -eq 2
check "and says why" grep -q "max-items: must be 0 or more" "$tmp/err"
# ASDF through the CLI: text and --json, exit codes, bad input, options of the wrong format.
"$dudley" convert -q "$tmp/run.bin" "$tmp/run.asdf"
check "convert to ASDF exits 0" test $? -eq 0
"$dudley" convert --json "$tmp/run.asdf" "$tmp/run2.asdf" >"$tmp/out"
check "convert --json to ASDF names the format" python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); assert d['format'] == 'asdf' and d['bytes'] > 0, d" "$tmp/out"
check "ASDF output has no layout beside it" test ! -e "$tmp/run2.dud"
"$dudley" dump "$tmp/run.asdf" '/hydro/rho[0, ::-1]' >"$tmp/out"
check "dump of ASDF exits 0" test $? -eq 0
"$dudley" dump "$tmp/run.bin" '/hydro/rho[0, ::-1]' >"$tmp/out2"
check "dump of the Dudley original exits 0" test $? -eq 0
check "and prints the selection" grep -q '^/hydro/rho\[0, ::-1\] = ' "$tmp/out2"
check "ASDF values equal the Dudley original" cmp -s "$tmp/out" "$tmp/out2"
"$dudley" convert --compression zlib "$tmp/run.asdf" "$tmp/z.bin" 2>"$tmp/err"
check "--compression for Dudley output exits 2" test $? -eq 2
check "and names the option" grep -q -- "--compression does not apply to dudley output" "$tmp/err"
"$dudley" convert --json --embed-layout "$tmp/run.asdf" "$tmp/z.asdf" >"$tmp/out"
check "--embed-layout for ASDF output exits 2 in JSON too" test $? -eq 2
check "with a usage error document" grep -q '"code": "usage"' "$tmp/out"
printf '#ASDF 1.0.0\n%%YAML 1.1\n---\nx: [1, 2\n...\n' >"$tmp/bad.asdf"
"$dudley" ls "$tmp/bad.asdf" 2>"$tmp/err"
check "bad ASDF YAML exits 1" test $? -eq 1
check "and names file:line:col" grep -q "bad.asdf:5:1: error: YAML" "$tmp/err"
"$dudley" ls --json "$tmp/bad.asdf" >"$tmp/out"
check "bad ASDF YAML exits 1 with --json" test $? -eq 1
check "with line and column" python3 -c "
import json, sys; e = json.load(open(sys.argv[1]))['error']; assert e['line'] == 5 and e['code'] == 'syntax', e" "$tmp/out"
head -c -40 "$tmp/run.asdf" >"$tmp/noindex.asdf"  # the block index only
"$dudley" ls "$tmp/noindex.asdf" >/dev/null
check "a damaged block index is ignored (blocks found by scanning)" test $? -eq 0
head -c -400 "$tmp/run.asdf" >"$tmp/cut.asdf"  # into the last block
"$dudley" ls "$tmp/cut.asdf" >/dev/null 2>"$tmp/err"
check "a truncated ASDF file exits 1" test $? -eq 1
check "and names the block and offset" grep -q "cut.asdf:@[0-9]*: error: block" "$tmp/err"
# A block whose bytes changed after its MD5 was taken (/mesh/x's first byte): dump refuses
# it before printing any of it, whole or selected; --no-checksums prints it; the other
# arrays print.
first=/mesh/x
"$dudley" ls --json "$tmp/run.asdf" | /usr/bin/python3 -c "
import json, sys
at = json.load(sys.stdin)['root']['members']['mesh']['members']['x']['address']
b = bytearray(open(sys.argv[1], 'rb').read())
b[at] ^= 1
open(sys.argv[2], 'wb').write(b)
" "$tmp/run.asdf" "$tmp/md5.asdf"
"$dudley" dump "$tmp/md5.asdf" "$first" >"$tmp/out" 2>"$tmp/err"
check "dump of an array whose MD5 does not match exits 1" test $? -eq 1
check "and prints no line for it" test ! -s "$tmp/out"
check "and says why, naming the array and the block" grep -q "md5.asdf:@[0-9]*: error: /mesh/x: block [0-9]*: MD5 checksum mismatch" "$tmp/err"
"$dudley" dump "$tmp/md5.asdf" "$first[0:1]" >"$tmp/out" 2>"$tmp/err"
check "a selection of it too: exit 1, no half-printed line" test $? -eq 1 -a ! -s "$tmp/out"
"$dudley" dump --no-checksums "$tmp/md5.asdf" "$first" >"$tmp/out" 2>"$tmp/err"
check "dump --no-checksums prints it" grep -q "^$first = " "$tmp/out"
"$dudley" dump --json "$tmp/md5.asdf" >"$tmp/out" 2>"$tmp/err"
check "dump --json of the file exits 1" test $? -eq 1
check "dump --json: the damaged array has data null and its error, the others their data" /usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
def arrays(node):
    for v in node.get('members', {}).values():
        if v['kind'] == 'array': yield v
        else: yield from arrays(v)
a = list(arrays(d['root']))
bad = [v for v in a if 'error' in v]
assert len(bad) == 1 and bad[0]['data'] is None and 'MD5 checksum mismatch' in bad[0]['error'], bad
assert all('data' in v and v['data'] is not None for v in a if 'error' not in v)
" "$tmp/out"

echo "cli: $passed passed, $failed failed"
test "$failed" -eq 0
