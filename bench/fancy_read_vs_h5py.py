#!/usr/bin/env python3
"""Issue 38's first speed target, both sides in fresh processes, alternating, page cache warm:
reading 1% of the rows (2,621 random rows, ascending: h5py takes no other order) of a 1 GiB
float64 array (262,144 x 512) from the same HDF5 file, `f["x"][rows]`, with dudley and with
h5py. Target: dudley at least as fast (ratio h5py/dudley >= 1). Two files: contiguous, and
chunked 64 x 512 with gzip level 1 (each chunk holds about 2.6% of... 0.64 of a picked row).

Usage: fancy_read_vs_h5py.py BUILD_DIR [RUNS]   (data in $DUDLEY_BENCH_DIR or /tmp/dudley-bench)
"""
import os
import statistics
import subprocess
import sys

import h5py
import numpy as np

from fresh_runs import warm
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.abspath("build")
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
ROOT = os.environ.get("DUDLEY_BENCH_DIR", "/tmp/dudley-bench")
SHAPE = (262144, 512)


def make(name, **options):
    path = os.path.join(ROOT, name)
    if not os.path.exists(path):
        os.makedirs(ROOT, exist_ok=True)
        with h5py.File(path + ".tmp", "w") as h:
            d = h.create_dataset("x", shape=SHAPE, dtype="<f8", **options)
            block = 8192
            for r in range(0, SHAPE[0], block):
                d[r:r + block] = np.arange(r * SHAPE[1], (r + block) * SHAPE[1],
                                           dtype="<f8").reshape(block, SHAPE[1])
        os.rename(path + ".tmp", path)
    return path


ROWS = "rows = np.unique(np.random.default_rng(5).integers(0, 262144, 2621))\n"
CHECK = "assert np.array_equal(v[:, 0], rows * 512.0), 'wrong values'\nprint(t)"
CODE = {
    "dudley": ("import sys, time, numpy as np, dudley\n" + ROWS +
               "t = time.perf_counter()\nv = dudley.open(sys.argv[1])['x'][rows]\n"
               "t = time.perf_counter() - t\n" + CHECK),
    "h5py": ("import sys, time, numpy as np, h5py\n" + ROWS +
             "t = time.perf_counter()\nv = h5py.File(sys.argv[1], 'r')['x'][rows]\n"
             "t = time.perf_counter() - t\n" + CHECK),
}


def once(tool, path):
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    warm(path)
    out = subprocess.run(["/usr/bin/python3", "-c", CODE[tool], path], env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[-1])


def main():
    files = {
        "contiguous": make("fancy_contiguous.h5"),
        "chunked 64x512 gzip 1": make("fancy_chunked.h5", chunks=(64, 512), compression="gzip",
                                      compression_opts=1),
    }
    print(f"1% of the rows of a {SHAPE[0]} x {SHAPE[1]} float64 array, fresh processes, "
          f"{RUNS} alternating runs, medians of the open + read")
    for label, path in files.items():
        times = {"dudley": [], "h5py": []}
        for _ in range(RUNS):
            for tool in times:
                times[tool].append(once(tool, path))
        d, h = statistics.median(times["dudley"]), statistics.median(times["h5py"])
        print(f"  {label:24} dudley {d * 1e3:8.1f} ms   h5py {h * 1e3:8.1f} ms   "
              f"h5py/dudley {h / d:5.2f}x")
        results.record_speedup(f"1% of the rows, {label} vs h5py", d, h, None, RUNS)


if __name__ == "__main__":
    main()
