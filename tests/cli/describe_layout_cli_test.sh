#!/usr/bin/env bash
# `dudley describe` and `dudley layout` as a user runs them: text and --json, exit codes,
# families of HDF5 files written by h5py, values checked against h5py's.
source "$(dirname "$0")/check_lib.sh"

$PY - "$work" <<'PY'
import sys, h5py, numpy as np
w = sys.argv[1]
for i in range(5):
    with h5py.File(f"{w}/run_{i}.h5", "w") as f:
        f["v"] = np.arange(6, dtype="<f8").reshape(2, 3) + i
        f["g/n"] = np.array([i], dtype=">i4")
        f.create_dataset("c", data=np.zeros(100), chunks=(10,), compression="gzip")
with h5py.File(f"{w}/odd.h5", "w") as f:
    f["pad"] = np.zeros(3)
    f["v"] = np.arange(6, dtype="<f8").reshape(2, 3)
PY

# describe: text, --json, -o, a missing file, --help.
$DUDLEY describe "$work/run_0.h5" > "$work/d.yaml" 2> "$work/d.err"
ok "describe exits 0" "[ $? -eq 0 ]"
ok "describe lists v with its shape" "grep -q 'shape: \[2, 3\]' '$work/d.yaml'"
ok "describe gives the chunking" "grep -q 'chunk: \[10\]' '$work/d.yaml' && grep -q 'deflate' '$work/d.yaml'"
$DUDLEY describe "$work/run_0.h5" --json > "$work/d.json"
ok "describe --json" "$PY -c 'import json,sys; d=json.load(open(\"$work/d.json\")); sys.exit(d[\"format\"]!=\"hdf5\" or \"ndarrays\" not in d[\"ndl\"])'"
$DUDLEY describe "$work/run_0.h5" --values -o "$work/v.yaml"
ok "describe --values -o writes the values" "grep -q 'value: \[\[0.0, 1.0, 2.0\],' '$work/v.yaml'"
$DUDLEY describe "$work/v.yaml" -o "$work/v.yaml" 2> "$work/e.txt"
ok "describe -o refuses its input (exit 2)" "[ $? -eq 2 ] && grep -q 'is an input of this command' '$work/e.txt'"
$DUDLEY describe "$work/none.h5" 2> "$work/e.txt"
ok "describe of a missing file: exit 2" "[ $? -eq 2 ]"
$DUDLEY describe "$work/none.h5" --json > "$work/e.json" 2>/dev/null
ok "describe --json error is JSON" "$PY -c 'import json; json.load(open(\"$work/e.json\"))[\"error\"]'"
printf '/:\n  ndarrays:\n    x: {shape: [2], type: flaot64}\n' > "$work/bad.yaml"
$DUDLEY describe "$work/bad.yaml" 2> "$work/e.txt"
ok "bad NDL: exit 1 at file:line:col" "[ $? -eq 1 ] && grep -q 'bad.yaml:3:.*unknown NDL type .flaot64.' '$work/e.txt'"
ok "describe --help" "$DUDLEY describe --help | grep -q -- '--values'"

# describe works on every format: storage details where the format has them.
$PY - "$work" <<'PY'
import sys, numpy as np, asdf, zarr
w = sys.argv[1]
asdf.AsdfFile({"x": np.arange(4.0)}).write_to(f"{w}/a.asdf", all_array_compression="zlib")
z = zarr.open(f"{w}/z.zarr", mode="w", shape=(4, 6), chunks=(2, 3), dtype=">i2", fill_value=7)
z[:] = 1
np.save(f"{w}/n.npy", np.arange(3, dtype="<u2"))
PY
$DUDLEY describe "$work/a.asdf" > "$work/da.yaml" 2>/dev/null
ok "describe ASDF: compressed block as one chunk with deflate" "grep -q 'filter: \[deflate\]' '$work/da.yaml'"
$DUDLEY describe "$work/z.zarr" > "$work/dz.yaml"
ok "describe Zarr: chunk, byte order and fill value" "grep -q 'chunk: \[2, 3\]' '$work/dz.yaml' && grep -q 'endian: big' '$work/dz.yaml' && grep -q 'fillvalue: 7' '$work/dz.yaml'"
$DUDLEY describe "$work/n.npy" > "$work/dn.yaml"
ok "describe npy" "grep -q 'type: uint16' '$work/dn.yaml'"
$PY -c "import numpy as np; np.arange(6, dtype='<f8').tofile('$work/d.bin')"
printf 'x = <f8[2, 3]\n' > "$work/d.dud"
$DUDLEY describe "$work/d.bin" --values > "$work/dd.yaml"
ok "describe Dudley data with values" "grep -q 'value: \[\[0.0, 1.0, 2.0\],' '$work/dd.yaml'"

# layout of one file, read back through it; chunked arrays named with their reason.
$DUDLEY layout "$work/run_2.h5" -o "$work/one.dud" 2> "$work/notes.txt"
ok "layout exits 0" "[ $? -eq 0 ]"
ok "layout names the chunked array" "grep -q '/c: not laid out: chunked' '$work/notes.txt'"
ok "layout states byte orders" "grep -q 'v = <f8\[2, 3\] @' '$work/one.dud' && grep -q 'n = >i4\[1\] @' '$work/one.dud'"
got=$($DUDLEY dump "$work/run_2.h5" --layout "$work/one.dud" /v --json | $PY -c 'import json,sys; print(json.load(sys.stdin)["root"]["members"]["v"]["data"])')
want=$($PY -c "import h5py; print(h5py.File('$work/run_2.h5')['v'][()].tolist())")
ok "values through the layout equal h5py's ($got)" "[ \"$got\" = \"$want\" ]"
$DUDLEY layout "$work/run_2.h5" --json > "$work/l.json"
ok "layout --json lists arrays and skipped" "$PY -c 'import json,sys; d=json.load(open(\"$work/l.json\")); sys.exit(not (any(a[\"path\"]==\"/v\" for a in d[\"arrays\"]) and d[\"skipped\"][0][\"path\"]==\"/c\"))'"
ok "layout --help" "$DUDLEY layout --help | grep -q -- '--family'"

# A family: one layout for every member, then every member read through it.
$DUDLEY layout --family "$work/run_*.h5" -o "$work/run.dud" 2>/dev/null
ok "layout --family exits 0" "[ $? -eq 0 ]"
$DUDLEY dump --family "$work/run_*.h5" --layout "$work/run.dud" /g/n > "$work/f.txt"
ok "dump --family through the layout reads each member" "[ \$(grep -c '/g/n = ' '$work/f.txt') -eq 5 ] && grep -q '/g/n = \[4\]' '$work/f.txt'"
cp "$work/odd.h5" "$work/run_9.h5"
$DUDLEY layout --family "$work/run_*.h5" 2> "$work/e.txt" > /dev/null
ok "a member that breaks the layout is named (exit 1)" "[ $? -eq 1 ] && grep -q 'run_9.h5 breaks the family' '$work/e.txt'"

finish "describe/layout CLI"
