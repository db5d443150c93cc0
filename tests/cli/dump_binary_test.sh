#!/usr/bin/env bash
# `dump --binary raw|npy`: one array's bytes on stdout, as numpy reads them (np.load, also
# from a pipe; np.frombuffer for raw), for whole arrays, numpy selections, struct fields,
# big-endian storage, HDF5 through h5py, and families stacked member after member. What it
# cannot write is an error naming it, exit 2 (or 1 for data), with nothing claimed done:
# several items, a group, --json beside it, a terminal, a full disk. A full disk under the
# text and JSON outputs too: never exit 0 with output lost.
source "$(dirname "$0")/check_lib.sh"

$PY - "$work" <<'PY'
import sys, h5py, numpy as np
w = sys.argv[1]
rng = np.random.default_rng(7)
np.save(f"{w}/x.npy", rng.standard_normal((5, 7)))
np.save(f"{w}/be.npy", np.arange(12, dtype=">i4").reshape(3, 4))
np.save(f"{w}/recs.npy", np.array([(1.5, (2, 3)), (4.5, (5, 6))], dtype=[("t", "<f8"), ("pos", "<i2", (2,))]))
np.save(f"{w}/s.npy", np.array(["ab", "cde"], dtype="U3"))
with h5py.File(f"{w}/h.h5", "w") as f:
    f.create_dataset("g/v", data=rng.standard_normal((40, 30)).astype("<f4"), chunks=(8, 16), compression="gzip")
    f["names"] = ["ab", "cde"]  # strings of varying length
# A family: members with the same /v shape, /pad whose size moves /v.
for i in range(90):
    with h5py.File(f"{w}/run_{i:03d}.h5", "w") as f:
        f["v"] = np.arange(6, dtype="<f8").reshape(2, 3) + 10 * i
        f["pad"] = np.zeros(1 + i % 4, "<i2")
PY

# --- one file ---
npy_equal() {  # npy_equal OUT.npy PYTHON-EXPRESSION-FOR-THE-EXPECTED-ARRAY
  $PY -c "import numpy as np, h5py; w='$work'; got = np.load('$1'); want = $2; assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want), (got, want)"
}
$DUDLEY dump --binary npy "$work/h.h5" /g > "$work/o" 2> "$work/e"
ok "a group is refused, exit 2, nothing written" "[ $? -eq 2 ] && grep -q '/g is not one' '$work/e' && [ ! -s '$work/o' ]"
item=/  # a .npy file's root is its array
$DUDLEY dump --binary npy "$work/x.npy" "$item" > "$work/o.npy"
ok "npy of a whole array: exit 0" "[ $? -eq 0 ]"
ok "npy of a whole array: np.load equals the file" "npy_equal '$work/o.npy' 'np.load(w + \"/x.npy\")'"
$DUDLEY dump --binary npy "$work/x.npy" "$item[1:4, ::-2]" > "$work/o.npy"
ok "npy of a selection: numpy's indexing" "npy_equal '$work/o.npy' 'np.load(w + \"/x.npy\")[1:4, ::-2]'"
$DUDLEY dump --binary npy "$work/x.npy" "$item[2]" | $PY -c "import io, sys, numpy as np; got = np.load(io.BytesIO(sys.stdin.buffer.read())); assert np.array_equal(got, np.load('$work/x.npy')[2]), got"
ok "npy read from a pipe" "[ $? -eq 0 ]"
$DUDLEY dump --binary raw "$work/be.npy" "$item" > "$work/o.raw"
ok "raw of a big-endian array: native bytes" "$PY -c \"import numpy as np; got = np.fromfile('$work/o.raw', dtype='=i4'); assert np.array_equal(got, np.arange(12)), got\""
$DUDLEY dump --binary npy "$work/recs.npy" "$item.pos" > "$work/o.npy"
ok "npy of a struct field" "npy_equal '$work/o.npy' 'np.load(w + \"/recs.npy\")[\"pos\"]'"
$DUDLEY dump --binary npy "$work/recs.npy" "$item" > "$work/o.npy"
ok "npy of a struct array: numpy's structured dtype" "npy_equal '$work/o.npy' 'np.load(w + \"/recs.npy\")'"
$DUDLEY dump --binary npy "$work/s.npy" "$item" > "$work/o.npy"
ok "npy of fixed-length unicode strings" "npy_equal '$work/o.npy' 'np.load(w + \"/s.npy\")'"
$DUDLEY dump --binary npy "$work/h.h5" '/g/v[3:33, 5]' > "$work/o.npy"
ok "npy of a chunked, compressed HDF5 selection: as h5py reads it" "npy_equal '$work/o.npy' 'h5py.File(w + \"/h.h5\")[\"g/v\"][3:33, 5]'"

# A masked array (python asdf writes numpy's masked arrays): the mask cannot travel as bytes.
$PY -c "import asdf, numpy as np; asdf.AsdfFile({'m': np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])}).write_to('$work/m.asdf')"
$DUDLEY dump --binary npy "$work/m.asdf" /m > "$work/o" 2> "$work/e"
ok "a masked array is refused, exit 2, nothing written" "[ $? -eq 2 ] && grep -q 'has a mask' '$work/e' && [ ! -s '$work/o' ]"
$DUDLEY dump --binary npy --unmasked "$work/m.asdf" /m > "$work/o.npy"
ok "--unmasked writes the stored values" "npy_equal '$work/o.npy' 'np.array([1.0, 2.0, 3.0])'"

# Files other projects wrote (tests/data/realworld/SOURCES.md): pyfive's compressed and
# Fletcher-32 HDF5, h5py's big-endian complex, a netCDF-4 file from the netCDF tests.
real="$(cd "$(dirname "$0")/../data/realworld" && pwd)"
$DUDLEY dump --binary npy "$real/pyfive_compressed.hdf5" '/dataset3[::-2, 3:9]' > "$work/o.npy"
ok "real file: pyfive's compressed dataset, a selection, as h5py reads it" "npy_equal '$work/o.npy' 'h5py.File(\"$real/pyfive_compressed.hdf5\")[\"dataset3\"][...][::-2, 3:9]'"
$DUDLEY dump --binary npy "$real/pyfive_fletcher32.hdf5" /dataset1 > "$work/o.npy"
ok "real file: a Fletcher-32 checked dataset" "npy_equal '$work/o.npy' 'h5py.File(\"$real/pyfive_fletcher32.hdf5\")[\"dataset1\"][...]'"
$DUDLEY dump --binary npy "$real/h5py_compound-dtype-complex.h5" '/>c16' > "$work/o.npy"
ok "real file: big-endian complex, written native" "npy_equal '$work/o.npy' 'h5py.File(\"$real/h5py_compound-dtype-complex.h5\")[\">c16\"][...].astype(\"=c16\")'"
$DUDLEY dump --binary npy "$real/CRM032_test1.nc" /MSLP > "$work/o.npy"
ok "real file: a netCDF-4 variable, as the netCDF4 module reads it" "$PY -c \"import numpy as np, netCDF4; d = netCDF4.Dataset('$real/CRM032_test1.nc'); d.set_auto_maskandscale(False); want = d['MSLP'][...]; got = np.load('$work/o.npy'); assert got.shape == want.shape and np.array_equal(got, want)\""

$DUDLEY dump --binary npy "$work/x.npy" "$item" "$item" > "$work/o" 2> "$work/e"
ok "two items: exit 2, both named" "[ $? -eq 2 ] && grep -q '2 items were given' '$work/e' && [ ! -s '$work/o' ]"
$DUDLEY dump --binary npy "$work/h.h5" /names > "$work/o" 2> "$work/e"
ok "strings of varying length: exit 2, said, nothing written" "[ $? -eq 2 ] && grep -q 'varying length' '$work/e' && [ ! -s '$work/o' ]"
$DUDLEY dump --binary npy --json "$work/x.npy" "$item" > "$work/o" 2> "$work/e"
ok "--binary with --json: exit 2" "[ $? -eq 2 ] && grep -q 'choose one' '$work/e'"
$DUDLEY dump --binary tiff "$work/x.npy" "$item" > /dev/null 2> "$work/e"
ok "an unknown --binary kind: exit 2" "[ $? -eq 2 ]"
script -qec "$DUDLEY dump --binary raw '$work/x.npy' '$item'" /dev/null > "$work/tty" 2>&1
ok "bytes to a terminal are refused, exit 2" "[ $? -eq 2 ] && grep -q 'file or a pipe' '$work/tty'"

# --- a family, stacked ---
$DUDLEY layout --family "$work/run_*.h5" -o "$work/run.dud" 2> /dev/null
ok "layout --family for the family" "[ $? -eq 0 ]"
stacked='np.stack([h5py.File(f"{w}/run_{i:03d}.h5")["v"][...] for i in range(90)])'
$DUDLEY dump --binary npy --family "$work/run_*.h5" --layout "$work/run.dud" /v > "$work/f.npy"
ok "family through its layout: exit 0" "[ $? -eq 0 ]"
ok "family through its layout: members stacked as numpy stacks them" "npy_equal '$work/f.npy' '$stacked'"
$DUDLEY dump --binary npy --family "$work/run_*.h5" '/v[1, ::-1]' > "$work/f.npy"
ok "family without a layout (each member opened): a selection, stacked" "npy_equal '$work/f.npy' '$stacked[:, 1, ::-1]'"
DUDLEY_IO_URING=0 $DUDLEY dump --binary raw --family "$work/run_*.h5" --layout "$work/run.dud" '/v[:, 2]' > "$work/f.raw"
cat > "$work/raw_check.py" <<'PY'
import sys, h5py, numpy as np
w = sys.argv[1]
got = np.fromfile(f"{w}/f.raw", "<f8").reshape(90, 2)
want = np.stack([h5py.File(f"{w}/run_{i:03d}.h5")["v"][...] for i in range(90)])[:, :, 2]
assert np.array_equal(got, want), (got, want)
PY
ok "family raw, without io_uring" "$PY '$work/raw_check.py' '$work'"
$PY -c "import h5py, numpy as np; f = h5py.File('$work/run_050.h5', 'r+'); del f['v']; f['v'] = np.zeros((3, 3))"
$DUDLEY dump --binary npy --family "$work/run_*.h5" '/v' > "$work/f.npy" 2> "$work/e"
ok "a member of another shape: exit 1, named, with both shapes" "[ $? -eq 1 ] && grep -q 'run_050.h5: /v is <f8\[3, *3\]' '$work/e'"

# --- a full disk: exit 2 for every output, never 0 ---
for args in "dump $work/x.npy $item" "dump --json $work/x.npy $item" "dump --binary npy $work/x.npy $item" "ls $work/h.h5" "ls --json $work/h.h5"; do
  $DUDLEY $args > /dev/full 2> "$work/e"
  ok "full disk ($args): exit 2, said" "[ $? -eq 2 ] && grep -q 'cannot write the output' '$work/e'"
done

finish "dump --binary"
