#!/usr/bin/python3
"""Issue 22's speed targets, each beside its peers in the same run, fresh processes, medians
of RUNS alternating runs; each input read right before each run (page cache warm), each run's
writes flushed before the next.

A 1 GiB float64 array (smooth data) in 1 MiB chunks, compressed with zstd (level 3) and with
blosc (lz4, byte shuffle):
1. written: `dudley convert` of the raw array to a store, against zarrita (node) and
   python3-zarr 2 (a v2 store, the same codecs), whole calls timed inside each process after
   the input is in memory for the peers; ours includes reading it. Targets: >= 3x zarrita,
   >= 2x python3-zarr.
2. read into new memory (bench/read_once), against the same peers. Same targets.
3. our pipeline on 2 cores against itself pinned to one (taskset): target >= 1.7x.
4. an uncompressed store read (read_once) against numpy.fromfile of the same bytes:
   target >= 0.8x.

Usage: zarr_vs_peers.py BUILD_DIR [WORKDIR] [RUNS] [GIB]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_runs import clean, wall, warm  # noqa: E402
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD = os.path.abspath(sys.argv[1])
OWN_WORK = len(sys.argv) <= 2
WORK = sys.argv[2] if not OWN_WORK else tempfile.mkdtemp(prefix="zarr-bench-")
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
GIB = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
DUDLEY = os.path.join(BUILD, "dudley")
READ_ONCE = os.path.join(BUILD, "bench", "read_once")
NODE_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zarrita_bench.mjs")
PY = "/usr/bin/python3"
COLS = 8192
ROWS = int(GIB * (1 << 30)) // 8 // COLS
CHUNK_ROWS = 16  # 16 x 8192 float64: 1 MiB
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)


def inner(cmd, inputs, env=None):
    """The seconds a process reports for its own call (first field of its output)."""
    warm(*inputs)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return float(out.split()[0])


def median_of(f, before=lambda: None):
    times = []
    for _ in range(RUNS):
        before()
        times.append(f())
    return statistics.median(times)


def report(name, ours, theirs, target):
    ratio = theirs / ours
    print(f"{name}: dudley {ours * 1000:.0f} ms, peer {theirs * 1000:.0f} ms, {ratio:.2f}x "
          f"(target >= {target}x: {'met' if ratio >= target else 'NOT met'})", flush=True)
    results.record_speedup(name, ours, theirs, target, RUNS)


PY_ZARR_WRITE = """
import sys, time, numpy as np, zarr, numcodecs
raw, store, rows, cols, crows, codec = sys.argv[1:7]
a = np.fromfile(raw, "<f8").reshape(int(rows), int(cols))
comp = numcodecs.Zstd(level=3) if codec == "zstd" else numcodecs.Blosc("lz4", 5, numcodecs.Blosc.SHUFFLE)
t0 = time.perf_counter()
z = zarr.open(store, mode="w", shape=a.shape, chunks=(int(crows), int(cols)), dtype="<f8",
              compressor=comp)
z[:] = a
print(time.perf_counter() - t0)
"""

PY_ZARR_READ = """
import sys, time, zarr
t0 = time.perf_counter()
a = zarr.open(sys.argv[1], mode="r")[:]
print(time.perf_counter() - t0, a[::4096].sum())
"""


def main():
    x = np.sin(np.linspace(0, 400, ROWS * COLS)).astype("<f8")
    x.tofile("in.bin")
    del x
    open("in.dud", "w").write(f"x = <f8[{ROWS}, {COLS}]\n")
    env = None
    print(f"{ROWS} x {COLS} float64 ({ROWS * COLS * 8 / (1 << 30):.2f} GiB), chunks "
          f"{CHUNK_ROWS} x {COLS}, {RUNS} runs each", flush=True)
    for codec in ("zstd", "blosc"):
        chunks = f"{CHUNK_ROWS},{COLS}"
        ours_cmd = [DUDLEY, "convert", "-q", "--compressor", codec, "--chunks", chunks, "in.bin",
                    f"ours_{codec}.zarr"]
        ours = median_of(lambda: wall(ours_cmd, ["in.bin"]), lambda: clean(f"ours_{codec}.zarr"))
        single = median_of(lambda: wall(["taskset", "-c", "0"] + ours_cmd, ["in.bin"]),
                           lambda: clean(f"ours_{codec}.zarr"))
        zarrita = median_of(
            lambda: inner(["node", NODE_SCRIPT, "write", "in.bin", f"zarrita_{codec}.zarr",
                           str(ROWS), str(COLS), str(CHUNK_ROWS), str(COLS), codec], ["in.bin"],
                          env),
            lambda: clean(f"zarrita_{codec}.zarr"))
        pyzarr = median_of(
            lambda: inner([PY, "-c", PY_ZARR_WRITE, "in.bin", f"py_{codec}.zarr", str(ROWS),
                           str(COLS), str(CHUNK_ROWS), codec], ["in.bin"]),
            lambda: clean(f"py_{codec}.zarr"))
        # Against python3-zarr, a v2 store on our side too (its chunk keys are flat files).
        v2_cmd = ours_cmd[:3] + ["--zarr-format", "2"] + ours_cmd[3:-1] + [f"ours2_{codec}.zarr"]
        ours_v2 = median_of(lambda: wall(v2_cmd, ["in.bin"]), lambda: clean(f"ours2_{codec}.zarr"))
        report(f"write {codec}, vs zarrita", ours, zarrita, 3)
        report(f"write {codec}, v2 stores, vs python3-zarr", ours_v2, pyzarr, 2)
        report(f"write {codec}, 2 cores vs 1 (taskset)", ours, single, 1.7)
        store = f"ours_{codec}.zarr"
        subprocess.run(ours_cmd, check=True)
        read = median_of(lambda: inner([READ_ONCE, store, "/x"], [store]))
        read_single = median_of(lambda: inner(["taskset", "-c", "0", READ_ONCE, store, "/x"], [store]))
        zread = median_of(lambda: inner(["node", NODE_SCRIPT, "read", f"zarrita_{codec}.zarr"],
                                        [f"zarrita_{codec}.zarr"], env))
        pread = median_of(lambda: inner([PY, "-c", PY_ZARR_READ, f"py_{codec}.zarr"],
                                        [f"py_{codec}.zarr"]))
        subprocess.run(v2_cmd, check=True)
        read_v2 = median_of(lambda: inner([READ_ONCE, f"ours2_{codec}.zarr", "/x"],
                                          [f"ours2_{codec}.zarr"]))
        report(f"read {codec}, vs zarrita", read, zread, 3)
        report(f"read {codec}, v2 stores, vs python3-zarr", read_v2, pread, 2)
        report(f"read {codec}, 2 cores vs 1 (taskset)", read, read_single, 1.7)
        clean(f"zarrita_{codec}.zarr", f"py_{codec}.zarr", store, f"ours2_{codec}.zarr")
    subprocess.run([DUDLEY, "convert", "-q", "--compressor", "none", "--chunks",
                    f"{CHUNK_ROWS},{COLS}", "in.bin", "plain.zarr"], check=True)
    read = median_of(lambda: inner([READ_ONCE, "plain.zarr", "/x"], ["plain.zarr"]))
    numpy_read = median_of(lambda: inner(
        [PY, "-c", "import sys,time,numpy as np; t=time.perf_counter(); a=np.fromfile(sys.argv[1],'<f8'); print(time.perf_counter()-t, a[::4096].sum())",
         "in.bin"], ["in.bin"]))
    report("uncompressed store read vs numpy.fromfile", read, numpy_read, 0.8)


try:
    main()
finally:
    if OWN_WORK:
        os.chdir("/")
        shutil.rmtree(WORK, ignore_errors=True)
