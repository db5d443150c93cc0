#!/usr/bin/python3
"""Sparse arrays: a Zarr v2 store (python3-zarr) of 10^5 chunks of which 100 are written.
What a user pays, whole processes, fresh each run, alternating, medians:

- dump the first values:        `dudley dump --max-values 5`   vs  zarr.open(...)[:5]
- convert to Zarr v3:           `dudley convert s.zarr o.zarr` vs  zarr.copy into a new v2
                                group (write_empty_chunks=False: no empty chunk written)
- convert to HDF5:              `dudley convert s.zarr o.h5`   vs  h5py.create_dataset
                                (chunked, same fill) filled by zarr.copy's chunk loop

The peers walk the chunk grid (10^5 keys asked of the store); dudley lists the store once
and visits the 100 chunks it holds. Figures go to docs/performance.md.

Usage: sparse_vs_peers.py BUILD_DIR [RUNS]
"""
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_runs import clean, wall  # noqa: E402
import results  # noqa: E402  (bench/results.py: the table make bench writes)

build = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
dudley = os.path.abspath(os.path.join(build, "dudley"))
PY = "/usr/bin/python3"

PEER_DUMP = """
import sys, zarr
print(zarr.open(sys.argv[1], mode="r")[:5])
"""
PEER_ZARR = """
import sys, zarr
src = zarr.open(sys.argv[1], mode="r")
dst = zarr.open_group(sys.argv[2], mode="w")
zarr.copy(src, dst, name="a", write_empty_chunks=False)
"""
PEER_HDF5 = """
import sys, h5py, zarr
src = zarr.open(sys.argv[1], mode="r")
with h5py.File(sys.argv[2], "w") as f:
    d = f.create_dataset("a", shape=src.shape, dtype=src.dtype, chunks=src.chunks,
                         fillvalue=src.fill_value)
    # Chunk by chunk, as zarr.copy does; a chunk equal to the fill value is not written.
    ci, cj = src.chunks
    for i in range(0, src.shape[0], ci):
        for j in range(0, src.shape[1], cj):
            block = src[i:i + ci, j:j + cj]
            if (block != src.fill_value).any():
                d[i:i + ci, j:j + cj] = block
"""


def main():
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as d:
        store = os.path.join(d, "s.zarr")
        subprocess.run([PY, "-c", """
import sys, zarr, numpy as np
z = zarr.open(sys.argv[1], mode="w", shape=(10000, 1000), chunks=(10, 10), dtype="<f8",
              fill_value=-1.0, compressor=None)
rng = np.random.default_rng(1)
for k in rng.choice(10**5, 100, replace=False):
    i, j = divmod(int(k), 100)
    z[10 * i:10 * i + 10, 10 * j:10 * j + 10] = rng.random((10, 10))
""", store], check=True)
        cases = [
            ("dump the first 5 values",
             [dudley, "dump", "--max-values", "5", store], [PY, "-c", PEER_DUMP, store], []),
            ("convert to Zarr v3", [dudley, "convert", "-q", store, f"{d}/o.zarr"],
             [PY, "-c", PEER_ZARR, store, f"{d}/p.zarr"], [f"{d}/o.zarr", f"{d}/p.zarr"]),
            ("convert to HDF5", [dudley, "convert", "-q", store, f"{d}/o.h5"],
             [PY, "-c", PEER_HDF5, store, f"{d}/p.h5"], [f"{d}/o.h5", f"{d}/p.h5"]),
        ]
        print(f"sparse arrays: 10^4 x 10^3 f8 in 10^5 chunks of 10 x 10, 100 stored; {runs} "
              "fresh runs each, alternating, medians")
        for name, ours, peer, outputs in cases:
            t_ours, t_peer = [], []
            for _ in range(runs):
                clean(*outputs[:1])  # each side's output of its last run stays, to check
                t_ours.append(wall(ours, [store]))
                clean(*outputs[1:])
                t_peer.append(wall(peer, [store]))
            a, b = statistics.median(t_ours), statistics.median(t_peer)
            print(f"  {name:26s} dudley {a * 1000:9.1f} ms   peer {b * 1000:9.1f} ms   "
                  f"-> {b / a:7.1f}x faster")
            results.record_speedup(f"sparse Zarr store, {name} vs zarr-python / h5py", a, b,
                                   None, runs)
        check(store, d)


CHECK = """
import sys, h5py, numpy as np, zarr
sys.path.insert(0, sys.argv[3])
import dudley
src = zarr.open(sys.argv[1], mode="r")[...]
with h5py.File(sys.argv[2] + "/o.h5", "r") as f:
    ours = f["s"]
    assert np.array_equal(ours[...], src), "HDF5 values differ"
    assert ours.id.get_num_chunks() == 100, ours.id.get_num_chunks()
    assert ours.fillvalue == -1.0
with h5py.File(sys.argv[2] + "/p.h5", "r") as f:
    assert np.array_equal(f["a"][...], src)
v3 = dudley.open(sys.argv[2] + "/o.zarr")["/"]
assert np.array_equal(v3[...], src), "Zarr v3 values differ"
print("  outputs checked: the same values as the source (h5py, zarr, dudley), 100 chunks "
      "stored in the HDF5 output")
"""


def check(store, d):
    """The outputs hold the source's values, and dudley's HDF5 output only its 100 chunks."""
    subprocess.run([PY, "-c", CHECK, store, d, os.path.join(os.path.abspath(build), "python")],
                   check=True)


if __name__ == "__main__":
    main()
