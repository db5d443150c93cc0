#!/usr/bin/env bash
# `dump --family GLOB --layout L`: every member through one layout, as a user runs it. After
# the first member the CLI prints members from a template of the first (src/cli/
# member_template.hpp): each line must be what dumping that member alone prints, values
# as h5py reads them, and a member that does not fit (damaged) must be reported as before.
# Also: HDF5 support is a module loaded on first use; without it, other formats still work.
source "$(dirname "$0")/check_lib.sh"

$PY - "$work" <<'PY'
import sys, h5py, numpy as np
w = sys.argv[1]
for i in range(12):
    with h5py.File(f"{w}/run_{i:02d}.h5", "w") as f:
        f["v"] = np.arange(6, dtype="<f8").reshape(2, 3) * 0.1 + i
        f["g/n"] = np.array([i, -i], dtype=">i4")
        f["s"] = np.arange(5, dtype="<u2") + i
        # half and big-endian single floats: printed member after member without a Dumper
        f["h"] = np.arange(3, dtype="<f2") * 0.1 + i
        f["f"] = np.arange(4, dtype=">f4") / 3 + i
PY
$DUDLEY layout --family "$work/run_*.h5" -o "$work/run.dud" 2>/dev/null
ok "layout --family exits 0" "[ $? -eq 0 ]"
items=(/v /g/n '/v[1, ::-1]' /s /h /f)
$DUDLEY dump --family "$work/run_*.h5" --layout "$work/run.dud" --json "${items[@]}" > "$work/f.json"
ok "dump --family --json exits 0" "[ $? -eq 0 ]"
for f in "$work"/run_*.h5; do
  $DUDLEY dump "$f" --layout "$work/run.dud" --json "${items[@]}" > "$work/one_$(basename "$f").json"
done
cat > "$work/check.py" <<'PY'
import json, sys, glob, os, h5py, numpy as np
w = sys.argv[1]
lines = [json.loads(l) for l in open(f"{w}/f.json")]
files = sorted(glob.glob(f"{w}/run_*.h5"))
assert len(lines) == len(files), (len(lines), len(files))
for line, path in zip(lines, files):
    alone = json.load(open(f"{w}/one_{os.path.basename(path)}.json"))
    alone = {"format": alone["format"], "file": path, **{k: v for k, v in alone.items() if k != "format"}}
    assert line == alone, (path, line, alone)
    m = line["root"]["members"]
    with h5py.File(path) as h:
        assert np.array_equal(np.array(m["v"]["data"]), h["v"][...]), path
        assert np.array_equal(np.array(m["v"]["selections"]["[1, ::-1]"]["data"]), h["v"][...][1, ::-1]), path
        assert np.array_equal(np.array(m["g"]["members"]["n"]["data"]), h["g/n"][...]), path
        assert np.array_equal(np.array(m["s"]["data"]), h["s"][...]), path
        assert np.array_equal(np.array(m["h"]["data"], dtype="<f2"), h["h"][...]), path
        assert np.array_equal(np.array(m["f"]["data"], dtype="<f4"), h["f"][...]), path
PY
ok "each member's line is its own dump, values as h5py reads them" "$PY '$work/check.py' '$work'"

# Text: each line is the member's own dump, prefixed by its name.
$DUDLEY dump --family "$work/run_*.h5" --layout "$work/run.dud" /v /g/n /h /f > "$work/f.txt"
ok "text: the family dump exits 0" "[ $? -eq 0 ]"
alone_failed=0
for f in "$work"/run_*.h5; do
  $DUDLEY dump "$f" --layout "$work/run.dud" /v /g/n /h /f > "$work/one.txt" || alone_failed=1
  sed "s|^|$f |" "$work/one.txt"
done > "$work/alone.txt"
ok "text: every member dumped alone exits 0" "[ $alone_failed -eq 0 ]"
# Two empty outputs would match: every member's /v line must be there.
ok "text: a /v line for each of the 12 members" "[ \$(grep -c ' /v = ' '$work/f.txt') -eq 12 ]"
ok "text: each member as dumped alone" "cmp -s '$work/f.txt' '$work/alone.txt'"

# A damaged member in the middle: reported, the others still printed right.
head -c 1000 "$work/run_07.h5" > "$work/t" && mv "$work/t" "$work/run_07.h5"
$DUDLEY dump --family "$work/run_*.h5" --layout "$work/run.dud" --json /v > "$work/g.json" 2> "$work/g.err"
ok "a truncated member: exit 1" "[ $? -eq 1 ]"
ok "its error names it" "grep -q 'run_07.h5' '$work/g.err'"
ok "the members after it are still read" "$PY -c 'import json; l=[json.loads(x) for x in open(\"$work/g.json\")]; import sys; sys.exit(not (len(l)==12 and l[8][\"root\"][\"members\"][\"v\"][\"data\"][0][0]==8.0 and \"error\" in l[7][\"root\"][\"members\"][\"v\"]))'"
$DUDLEY dump --family "$work/run_*.h5" --layout "$work/run.dud" /s > "$work/g.txt" 2> "$work/g.err"
ok "text: a truncated member, exit 1, named" "[ $? -eq 1 ] && grep -q 'run_07.h5' '$work/g.err' && [ \$(grep -c ' /s = ' '$work/g.txt') -eq 11 ]"

# Members whose arrays differ in extent: each file stores its extents, and the layout reads
# them as parameters (object headers of version 1 as h5py writes by default, and 2).
$PY - "$work" <<'PY'
import sys, h5py, numpy as np
w = sys.argv[1]
for i, n in enumerate([5, 9, 3, 7]):
    with h5py.File(f"{w}/var_{i}.h5", "w") as f:
        f["meta"] = np.arange(3, dtype="<i4") + i
        f["t"] = np.arange(n * 2, dtype="<f8").reshape(n, 2) + i
    with h5py.File(f"{w}/new_{i}.h5", "w", libver="latest") as f:
        f.create_dataset("x", data=np.arange(n, dtype=">i8") - i, track_order=True)
        f["x"].attrs["units"] = "m"
with h5py.File(f"{w}/var_9.h5", "w") as f:  # t after a bigger meta: at another address
    f["meta"] = np.arange(30, dtype="<i4")
    f["t"] = np.arange(4, dtype="<f8").reshape(2, 2)
PY
check_family() {  # GLOB LAYOUT ITEM: each member's ITEM through LAYOUT equals h5py's
  $DUDLEY dump --family "$1" --layout "$2" --json "$3" > "$work/v.json" &&
  $PY - "$1" "$3" "$work/v.json" <<'PY'
import glob, json, sys, h5py, numpy as np
files = sorted(glob.glob(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[3])]
assert len(lines) == len(files)
for path, line in zip(files, lines):
    node = line["root"]["members"][sys.argv[2].strip("/")]
    with h5py.File(path) as h:
        want = h[sys.argv[2]][...]
    assert node["shape"] == list(want.shape), (path, node["shape"], want.shape)
    assert np.array_equal(np.array(node["data"]).reshape(want.shape), want), path
PY
}
mv "$work/var_9.h5" "$work/odd_9.h5"
$DUDLEY layout --family "$work/var_*.h5" -o "$work/var.dud" 2> "$work/v.err"
ok "extents that differ: layout --family exits 0" "[ $? -eq 0 ]"
ok "they are parameters read from each file" "grep -q '^t_n0 := <u8 @ [0-9]*' '$work/var.dud' && grep -q '^t = <f8\[t_n0, 2\] @ ' '$work/var.dud'"
ok "each member read through it as h5py reads it" "check_family '$work/var_*.h5' '$work/var.dud' /t"
ok "a member alone through it" "$DUDLEY dump '$work/var_1.h5' --layout '$work/var.dud' /t | grep -q '\[17.0,18.0\]\]'"
$DUDLEY layout --family "$work/var_*.h5" --json > "$work/v.json"
varying_listed() {
  $PY -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["varying_extents"] == [{"path": "/t", "dims": [0]}], d' "$1"
}
ok "--json names the extents that differ" "varying_listed '$work/v.json'"
$DUDLEY layout --family "$work/new_*.h5" -o "$work/new.dud" 2>/dev/null
ok "version 2 object headers too" "check_family '$work/new_*.h5' '$work/new.dud' /x"
mv "$work/odd_9.h5" "$work/var_9.h5"
$DUDLEY layout --family "$work/var_*.h5" -o "$work/var2.dud" 2> "$work/v.err"
ok "an array at another address still breaks it, named (exit 1)" "[ $? -eq 1 ] && grep -q 'var_9.h5 breaks the family.s layout: /t is at' '$work/v.err' && [ ! -e '$work/var2.dud' ]"

# A family larger than a batch (members are opened and read 64 at a time, io_uring where
# the kernel has it, else system calls): 150 raw members whose item moves with N and M, one
# missing and one truncated in different batches. Every other member's values as numpy
# reads them; the two named, exit 2 (a file that cannot be opened), on both backends.
$PY - "$work" <<'PY'
import sys, numpy as np
w = sys.argv[1]
with open(f"{w}/big.dud", "w") as f:
    f.write("!TEMPLATE\nN := <i4\nM := <i4\na = <f8[N]\nb = <i2[M]\nv = <f8[3]\n")
for i in range(150):
    n, m = 1 + i % 7, 2 + i % 5
    with open(f"{w}/big_{i:03d}.bin", "wb") as f:
        f.write(np.array([n, m], "<i4").tobytes() + np.zeros(n, "<f8").tobytes()
                + np.zeros(m, "<i2").tobytes() + (np.arange(3, dtype="<f8") + 10 * i).tobytes())
PY
rm "$work/big_070.bin" && ln -s "$work/no-such-file" "$work/big_070.bin"  # listed, not openable
head -c 30 "$work/big_130.bin" > "$work/t" && mv "$work/t" "$work/big_130.bin"
cat > "$work/big_check.py" <<'PY'
import json, sys, numpy as np
w, kind = sys.argv[1], sys.argv[2]
lines = open(f"{w}/big.{kind}").read().splitlines()
# --json has a line for the two members too: their errors in place of the values.
assert len(lines) == (150 if kind == "json" else 148), len(lines)
seen = set()
for line in lines:
    if kind == "json":
        d = json.loads(line)
        i = int(d["file"][-7:-4])
        if i in (70, 130):
            error = json.dumps(d)
            assert ("cannot open" if i == 70 else "ends beyond the end") in error, d
            continue
        got = d["root"]["members"]["v"]["data"]
    else:
        name, _, values = line.partition(" /v = ")
        i = int(name[-7:-4])
        got = json.loads(values)
    assert np.array_equal(got, np.arange(3) + 10 * i), (i, got)
    seen.add(i)
assert seen == set(range(150)) - {70, 130}, sorted(set(range(150)) - seen)
PY
for backend in 1 0; do
  DUDLEY_IO_URING=$backend $DUDLEY dump --family "$work/big_*.bin" --layout "$work/big.dud" /v > "$work/big.txt" 2> "$work/big.err"
  ok "150 members (io_uring=$backend): exit 2" "[ $? -eq 2 ]"
  ok "150 members (io_uring=$backend): the missing and the short member named" "grep -q 'big_070.bin.*cannot open' '$work/big.err' && grep -q 'big_130.bin.*/v' '$work/big.err'"
  ok "150 members (io_uring=$backend): every other member's values" "$PY '$work/big_check.py' '$work' txt"
  DUDLEY_IO_URING=$backend $DUDLEY dump --family "$work/big_*.bin" --layout "$work/big.dud" --json /v > "$work/big.json" 2> /dev/null
  ok "150 members, --json (io_uring=$backend): exit 2" "[ $? -eq 2 ]"
  ok "150 members, --json (io_uring=$backend): every other member's values" "$PY '$work/big_check.py' '$work' json"
done

# HDF5 is a module beside the program: a copy of the program without it reads other
# formats and says what is missing for HDF5.
mkdir "$work/bin" && cp "$DUDLEY" "$work/bin/dudley"
$PY -c "import numpy as np; np.save('$work/n.npy', np.arange(3, dtype='<i2'))"
ok "without the HDF5 module: npy still reads" "'$work/bin/dudley' dump '$work/n.npy' / | grep -q '\[0,1,2\]'"
"$work/bin/dudley" ls "$work/run_00.h5" > /dev/null 2> "$work/m.err"
ok "without the HDF5 module: HDF5 is exit 2, naming the module" "[ $? -eq 2 ] && grep -q 'dudley-hdf5.so' '$work/m.err'"
"$work/bin/dudley" ls --json "$work/run_00.h5" > "$work/m.json" 2>/dev/null
ok "without the HDF5 module: --json error" "$PY -c 'import json; assert \"dudley-hdf5.so\" in json.load(open(\"$work/m.json\"))[\"error\"][\"message\"]'"

finish "family layout dump"
