#!/usr/bin/env python3
"""Issue 25's Dask target, both sides in one run: the sum of a 1 GiB float64 array (a
random walk rounded to 2 decimals, as measured fields are) stored as a deflate-compressed
chunked Zarr store (8 MiB chunks, written by `dudley convert`; deflate as most HDF5 and
netCDF-4 data is), read through dudley.to_dask with its default chunks on a
dask.distributed LocalCluster of 2 worker processes, against the same sum on a cluster of 1
worker process (one thread each, on 127.0.0.1). Each timing is the first compute of a fresh
Python process with a fresh cluster (cluster start excluded), page cache warm. Target: 2
workers at least 1.6x as fast as 1. The sum is checked against numpy's. The threaded
scheduler's figures (1 and 2 threads, one process) are printed beside them.

Usage: python_dask.py BUILD_DIR [REPEATS]   (data in $DUDLEY_BENCH_DIR or /tmp/dudley-bench)
"""
import glob
import os
import subprocess
import sys
import time

import numpy as np
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
ROOT = os.path.join(os.environ.get("DUDLEY_BENCH_DIR", "/tmp/dudley-bench"), "pydask")
N = (1 << 30) // 8
ENV = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))


def make():
    store = os.path.join(ROOT, "x.zarr")
    if os.path.exists(os.path.join(store, "zarr.json")):
        return store, float(open(os.path.join(ROOT, "sum")).read())
    os.makedirs(ROOT, exist_ok=True)
    x = np.round(np.cumsum(np.random.default_rng(0).standard_normal(N)), 2)
    np.save(os.path.join(ROOT, "x.npy"), x)
    subprocess.run([os.path.join(BUILD, "dudley"), "convert", "-q", "--compressor", "gzip",
                    "--chunks", str(1 << 20), os.path.join(ROOT, "x.npy"), store], check=True)
    os.remove(os.path.join(ROOT, "x.npy"))
    with open(os.path.join(ROOT, "sum"), "w") as f:
        f.write(repr(float(x.sum())))
    return store, float(x.sum())


RUN = """
import sys, time
import dask
from dask.distributed import Client, LocalCluster
import dudley
if __name__ == "__main__":
    workers = int(sys.argv[2])
    dask.config.set({"array.chunk-size": sys.argv[4]})
    if sys.argv[3] == "threads":
        a = dudley.to_dask(dudley.open(sys.argv[1])["/"])
        t0 = time.perf_counter()
        total = float(a.sum().compute(scheduler="threads", num_workers=workers))
        print(time.perf_counter() - t0, total, a.numblocks[0], 0)
        sys.exit(0)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None) as cluster, Client(cluster):
        a = dudley.to_dask(dudley.open(sys.argv[1])["/"])
        t0 = time.perf_counter()
        total = float(a.sum().compute())
        cold = time.perf_counter() - t0
        # The same sum again on the warm workers (split otherwise: other keys, nothing reused).
        t0 = time.perf_counter()
        again = float(a.sum(split_every=3).compute())
        warm = time.perf_counter() - t0
        assert abs(again - total) <= 1e-9 * abs(total)
        print(cold, total, a.numblocks[0], warm)
"""


def touch(store):
    for f in glob.glob(os.path.join(store, "**", "*"), recursive=True):
        if os.path.isfile(f):
            with open(f, "rb") as fh:
                fh.read()


def best(store, workers, scheduler="distributed", size="128MiB", warm=False):
    times = []
    for _ in range(REPEATS):
        touch(store)
        out = subprocess.run(["/usr/bin/python3", "-c", RUN, store, str(workers), scheduler, size],
                             env=ENV,
                             check=True, capture_output=True, text=True).stdout.split()
        times.append(float(out[3] if warm else out[0]))
        total, chunks = float(out[1]), int(out[2])
    return min(times), total, chunks


def main():
    store, expected = make()
    size = sum(os.path.getsize(f) for f in glob.glob(os.path.join(store, "**", "*"), recursive=True)
               if os.path.isfile(f))
    print(f"dask sum of 1 GiB f8 (deflate Zarr, 128 chunks of 8 MiB, {size / 2**20:.0f} MiB stored), "
          f"best of {REPEATS} fresh processes")
    for chunk_size in ("128MiB", "32MiB"):
        for warm in (False, True):
            one, total1, tasks = best(store, 1, size=chunk_size, warm=warm)
            two, total2, _ = best(store, 2, size=chunk_size, warm=warm)
            for total in (total1, total2):
                assert np.isclose(total, expected), (total, expected)
            default = " (Dask's default)" if chunk_size == "128MiB" else ""
            which = "second compute (warm workers)" if warm else "first compute (fresh workers)"
            print(f"  array.chunk-size {chunk_size}{default}, {tasks} Dask chunks, {which}:")
            print(f"    1 worker {one:6.3f} s ({1 / one:4.2f} GiB/s), 2 workers {two:6.3f} s "
                  f"({1 / two:4.2f} GiB/s): {one / two:4.2f}x faster (target >= 1.6x)")
            results.record_speedup(f"dask sum of 1 GiB, chunk-size {chunk_size}, {which}, "
                                   "2 workers vs 1", two, one, 1.6, f"best of {REPEATS}")
    t1, total3, _ = best(store, 1, "threads")
    t2, total4, _ = best(store, 2, "threads")
    for total in (total3, total4):
        assert np.isclose(total, expected), (total, expected)
    print(f"  threaded scheduler, one process (the library's own pool decodes on every core): "
          f"1 thread {t1:6.3f} s, 2 threads {t2:6.3f} s")

if __name__ == "__main__":
    main()
