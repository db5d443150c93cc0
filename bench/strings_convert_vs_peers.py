#!/usr/bin/python3
"""Issue 37's conversions of strings and structures as users meet them: whole commands in
fresh processes, each beside the strongest peer doing the same job in the same run (medians
of N runs, alternating; each input read right before each run).

1. HDF5 (h5py) fixed strings |S8 (random numbers' digits), 20,971,520 of them (160 MiB), to a Zarr v2 store (zstd
   level 3, chunks of 1,048,576): `dudley convert` against h5py reading the dataset and
   python3-zarr writing it with the same chunks and compressor. Target >= 1.0x.
2. Those strings as variable-length UTF-8 (a Zarr v2 vlen-utf8 store) to HDF5: `dudley
   convert` against python3-zarr reading them and h5py writing a string dataset.
   Target >= 1.0x.
3. 10,485,760 structures {i4, f8, S4} (160 MiB) from HDF5 to a Zarr v2 store: `dudley
   convert` against h5py + python3-zarr. Target >= 1.0x.

4. An Avro container of 2,097,152 flat records (double, long, boolean, int; deflate), written
   by fastavro, to an HDF5 compound dataset: `dudley convert` against fastavro reading the
   records into a numpy structured array and h5py writing it (.venv's Python). Target >= 1.0x.

Peak memory of each command is printed beside its time (GNU time's %M).

Usage: strings_convert_vs_peers.py BUILD_DIR [WORKDIR] [RUNS]
"""
import os
import shutil
import statistics
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_runs import arguments, clean, wall  # noqa: E402
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD, WORK, OWN_WORK, RUNS = arguments(sys.argv, "strings-bench-", 3)
DUDLEY = os.path.join(BUILD, "dudley")
PY = "/usr/bin/python3"
N = 20 << 20
CHUNK = 1 << 20
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)

PEER_H5_TO_ZARR = f"""
import sys, h5py, numcodecs, numpy as np, zarr
with h5py.File(sys.argv[1]) as f:
    a = f[sys.argv[3]][()]
if a.dtype.names:  # without h5py's field metadata, which python3-zarr 2.13 cannot read back
    a = a.view(np.dtype([(n, a.dtype.fields[n][0].str) for n in a.dtype.names]))
zarr.array(a, chunks=({CHUNK},), compressor=numcodecs.Zstd(level=3), store=sys.argv[2])
"""

PEER_ZARR_TO_H5 = """
import sys, h5py, zarr
a = zarr.open(sys.argv[1], "r")["s"][:]
with h5py.File(sys.argv[2], "w") as f:
    f.create_dataset("s", data=a, dtype=h5py.string_dtype())
"""


VENV_PY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".venv",
                       "bin", "python")
FLAT = {"type": "record", "name": "reading", "fields": [
    {"name": "t", "type": "double"}, {"name": "n", "type": "long"},
    {"name": "ok", "type": "boolean"}, {"name": "i", "type": "int"}]}
PEER_AVRO_TO_H5 = """
import sys, fastavro, h5py, numpy as np
with open(sys.argv[1], "rb") as f:
    rows = [(r["t"], r["n"], r["ok"], r["i"]) for r in fastavro.reader(f)]
a = np.array(rows, dtype=[("t", "<f8"), ("n", "<i8"), ("ok", "?"), ("i", "<i4")])
with h5py.File(sys.argv[2], "w") as f:
    f["records"] = a
"""


def peak_mib(cmd):
    out = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True)
    return int(out.stderr.split()[-1]) / 1024


def side_by_side(ours, theirs, inputs, outputs):
    a, b = [], []
    for _ in range(RUNS):
        clean(*outputs)
        a.append(wall(ours, inputs))
        clean(*outputs)
        b.append(wall(theirs, inputs))
    clean(*outputs)
    memory = peak_mib(ours), peak_mib(theirs)
    clean(*outputs)
    return statistics.median(a), statistics.median(b), memory


def report(name, ours, theirs, memory, target):
    ratio = theirs / ours
    print(f"{name}: dudley {ours:.2f} s ({memory[0]:.0f} MiB), peer {theirs:.2f} s "
          f"({memory[1]:.0f} MiB), {ratio:.2f}x (target >= {target}x: "
          f"{'met' if ratio >= target else 'NOT met'})")
    results.record_speedup(name, ours, theirs, target, RUNS)


def main():
    import h5py
    rng = np.random.default_rng(0)
    s = rng.integers(0, 10**8, N).astype("S8")  # numbers' digits: 1 to 8 characters
    s[::3] = b"xy"
    st = np.zeros(N // 2, [("a", "<i4"), ("b", "<f8"), ("s", "S4")])
    st["a"] = np.arange(len(st)) % 1000
    st["b"] = rng.standard_normal(len(st))
    st["s"] = s[: len(st)].astype("S4")
    with h5py.File("in.h5", "w") as f:
        f["s"] = s
        f["t"] = st
    del s, st
    ours, theirs, memory = side_by_side(
        [DUDLEY, "convert", "-q", "--zarr-format", "2", "--chunks", str(CHUNK), "in.h5",
         "ours.zarr", "/s"],
        [PY, "-c", PEER_H5_TO_ZARR, "in.h5", "peer.zarr", "s"], ["in.h5"],
        ["ours.zarr", "peer.zarr"])
    report("1. |S8 x 20M, HDF5 -> Zarr v2 (zstd) vs h5py + python3-zarr", ours, theirs, memory,
           1.0)
    subprocess.run([DUDLEY, "convert", "-q", "in.h5", "v3.zarr", "/s"], check=True)
    subprocess.run([DUDLEY, "convert", "-q", "--zarr-format", "2", "v3.zarr", "vlen.zarr"],
                   check=True)
    ours, theirs, memory = side_by_side(
        [DUDLEY, "convert", "-q", "vlen.zarr", "ours.h5"],
        [PY, "-c", PEER_ZARR_TO_H5, "vlen.zarr", "peer.h5"], ["vlen.zarr"],
        ["ours.h5", "peer.h5"])
    report("2. variable-length strings x 20M, Zarr v2 -> HDF5 vs python3-zarr + h5py", ours,
           theirs, memory, 1.0)
    ours, theirs, memory = side_by_side(
        [DUDLEY, "convert", "-q", "--zarr-format", "2", "--chunks", str(CHUNK), "in.h5",
         "ours.zarr", "/t"],
        [PY, "-c", PEER_H5_TO_ZARR, "in.h5", "peer.zarr", "t"], ["in.h5"],
        ["ours.zarr", "peer.zarr"])
    report("3. structs x 10M, HDF5 -> Zarr v2 (zstd) vs h5py + python3-zarr", ours, theirs,
           memory, 1.0)
    subprocess.run([VENV_PY, "-c", f"""
import fastavro
rows = ({{"t": r * 0.5, "n": r * 7, "ok": r % 3 == 0, "i": -r}} for r in range({N // 10}))
with open("flat.avro", "wb") as f:
    fastavro.writer(f, {FLAT!r}, rows, codec="deflate")
"""], check=True)
    ours, theirs, memory = side_by_side(
        [DUDLEY, "convert", "-q", "flat.avro", "ours.h5"],
        [VENV_PY, "-c", PEER_AVRO_TO_H5, "flat.avro", "peer.h5"], ["flat.avro"],
        ["ours.h5", "peer.h5"])
    report(f"4. {N // 10:,} flat Avro records -> HDF5 compound vs fastavro + h5py", ours, theirs,
           memory, 1.0)
    if OWN_WORK:
        shutil.rmtree(WORK)


main()
