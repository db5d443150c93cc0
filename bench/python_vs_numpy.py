#!/usr/bin/env python3
"""Issue 25's first speed target, both sides in fresh processes in one run, page cache warm:
`dudley.open(...)["x"][...]` of a 1 GiB float64 array (Dudley data, a layout beside it)
against numpy.fromfile of the same bytes (target: at least 0.9x numpy's speed, i.e. at most
1/0.9 of its time). Also `a.view()` (a memory map, no read).

Usage: python_vs_numpy.py BUILD_DIR [REPEATS]   (data in $DUDLEY_BENCH_DIR or /tmp/dudley-bench)
"""
import os
import subprocess
import sys
import time

import numpy as np
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
ROOT = os.environ.get("DUDLEY_BENCH_DIR", "/tmp/dudley-bench")
N = (1 << 30) // 8


def data():
    d = os.path.join(ROOT, "py1g")
    path = os.path.join(d, "x.bin")
    if not os.path.exists(path):
        os.makedirs(d, exist_ok=True)
        np.arange(N, dtype="<f8").tofile(path + ".tmp")
        os.rename(path + ".tmp", path)
    with open(os.path.join(d, "x.dud"), "w") as f:
        f.write(f"x = <f8[{N}]\n")
    return path


def touch(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def timed(code, path):
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    best = None
    for _ in range(REPEATS):
        touch(path)
        out = subprocess.run(["/usr/bin/python3", "-c", code, path], env=env, check=True,
                             capture_output=True, text=True).stdout
        t = float(out.split()[0])
        best = t if best is None else min(best, t)
    return best


PRE = "import sys, time, numpy as np, dudley\n"
READ = PRE + ("t = time.perf_counter(); a = dudley.open(sys.argv[1], layout=sys.argv[1][:-4] + '.dud')['x'][...]\n"
              "t = time.perf_counter() - t; assert a[-1] == a.size - 1; print(t)")
FROMFILE = PRE + ("t = time.perf_counter(); a = np.fromfile(sys.argv[1], dtype='<f8')\n"
                  "t = time.perf_counter() - t; assert a[-1] == a.size - 1; print(t)")
VIEW = PRE + ("t = time.perf_counter(); a = dudley.open(sys.argv[1], layout=sys.argv[1][:-4] + '.dud')['x'].view()\n"
              "t = time.perf_counter() - t; assert a[-1] == a.size - 1; print(t)")


def main():
    path = data()
    ours = timed(READ, path)
    numpy = timed(FROMFILE, path)
    view = timed(VIEW, path)
    results.record_speedup("1 GiB f8, a[...] in a fresh process vs numpy.fromfile", ours, numpy,
                           0.9, f"best of {REPEATS}")
    print(f"1 GiB f8, first call in a fresh process: dudley a[...] {ours:.3f} s, numpy.fromfile "
          f"{numpy:.3f} s -> {numpy / ours:.2f}x numpy's speed (target >= 0.9x); a.view() {view * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
