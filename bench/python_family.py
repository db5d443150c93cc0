#!/usr/bin/env python3
"""Issue 25's family target, every side in a fresh process in one run, page cache warm:
one small array (/x, 64 float64) from each of 1,000 files,
  - from Python: dudley.open_family(index).read("/x") (one call, stacked),
  - through the C++ API: bench/family_pread layout (layout parsed once, bind + read per file),
  - with h5py: h5py.File(f)["x"][...] over 1,000 HDF5 files holding the same arrays,
  - the floor: open + pread + close of the same bytes (bench/family_pread pread).
Targets: Python at most 2x the C++ API per file, at least 10x faster than h5py per file.
Times are of the reading itself, measured inside each fresh process (the first call, as a
user's script pays it); whole-process times are printed beside them.

Usage: python_family.py BUILD_DIR [REPEATS]   (data in $DUDLEY_BENCH_DIR or /tmp/dudley-bench)
"""
import glob
import os
import subprocess
import sys
import time

import numpy as np
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
ROOT = os.path.join(os.environ.get("DUDLEY_BENCH_DIR", "/tmp/dudley-bench"), "pyfamily")
FILES = 1000
LAYOUT = "!DUDLEY := S1[8]\n!TEMPLATE\nstep := i8\nt = f8\nx = f8[64]\ny = f4[16, 16]\n"
ENV = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))


def make():
    sys.path.insert(0, os.path.join(BUILD, "python"))
    import dudley
    import h5py
    stamp = os.path.join(ROOT, "done")
    if os.path.exists(stamp):
        return
    os.makedirs(os.path.join(ROOT, "h5"), exist_ok=True)
    rng = np.random.default_rng(3)
    with dudley.FamilyWriter(LAYOUT, os.path.join(ROOT, "run")) as family:
        for i in range(FILES):
            x = rng.standard_normal(64)
            with family.add() as w:
                w["/t"], w["/x"], w["/y"] = i * 0.5, x, np.zeros((16, 16), "f4")
                w.set_param("step", i)
            with h5py.File(os.path.join(ROOT, "h5", f"run_{i:04d}.h5"), "w") as h:
                h["t"], h["x"], h["y"] = i * 0.5, x, np.zeros((16, 16), "f4")
    open(stamp, "w").close()


def touch():
    for f in glob.glob(os.path.join(ROOT, "run_*.bin")) + glob.glob(os.path.join(ROOT, "h5/*.h5")):
        with open(f, "rb") as fh:
            fh.read()


def best_of(command, parse):
    inner, whole = [], []
    for _ in range(REPEATS):
        touch()
        t0 = time.perf_counter()
        out = subprocess.run(command, env=ENV, check=True, capture_output=True, text=True).stdout
        whole.append(time.perf_counter() - t0)
        inner.append(parse(out))
    return min(inner), min(whole)


PY_DUDLEY = """
import sys, time
import dudley
t0 = time.perf_counter()
x = dudley.open_family(sys.argv[1]).read("/x")
t = time.perf_counter() - t0
print(t, x.shape[0], float(x[:, 0].sum()))
"""
PY_H5PY = """
import glob, sys, time
import h5py, numpy as np
t0 = time.perf_counter()
parts = []
for f in sorted(glob.glob(sys.argv[1])):
    with h5py.File(f, "r") as h:
        parts.append(h["x"][...])
x = np.stack(parts)
t = time.perf_counter() - t0
print(t, x.shape[0], float(x[:, 0].sum()))
"""


def main():
    make()
    index = os.path.join(ROOT, "run.index.bin")
    members = sorted(glob.glob(os.path.join(ROOT, "run_*.bin")))
    sys.path.insert(0, os.path.join(BUILD, "python"))
    import dudley
    f = dudley.open(members[0], layout=os.path.join(ROOT, "run.dud"))
    offset = f["x"].storage["offset"]
    first = lambda out: float(out.split()[0])
    py, py_whole = best_of(["/usr/bin/python3", "-c", PY_DUDLEY, index], first)
    h5, h5_whole = best_of(["/usr/bin/python3", "-c", PY_H5PY, os.path.join(ROOT, "h5/run_*.h5")],
                           first)
    fam = os.path.join(BUILD, "bench", "family_pread")
    cpp, cpp_whole = best_of([fam, "layout", os.path.join(ROOT, "run.dud"), "/x"] + members, first)
    floor, floor_whole = best_of([fam, "pread", str(offset), str(64 * 8)] + members, first)
    per = lambda t: t / FILES * 1e6
    print(f"one /x (64 f8) from each of {FILES} files, best of {REPEATS} fresh processes, warm cache")
    print(f"  python  dudley.open_family(index).read('/x'): {per(py):6.1f} us/file  (process {py_whole * 1e3:6.1f} ms)")
    print(f"  C++ API  layout once, bind + read per file:  {per(cpp):6.1f} us/file  (process {cpp_whole * 1e3:6.1f} ms)")
    print(f"  h5py     h5py.File(f)['x'][...]:             {per(h5):6.1f} us/file  (process {h5_whole * 1e3:6.1f} ms)")
    print(f"  floor    open + pread + close:               {per(floor):6.1f} us/file  (process {floor_whole * 1e3:6.1f} ms)")
    print(f"  python / C++ API: {py / cpp:5.2f}x (target <= 2x)   h5py / python: {h5 / py:5.1f}x (target >= 10x)")
    runs = f"best of {REPEATS}"
    results.record(f"one /x from each of {FILES} files, Python open_family", per(py),
                   "the C++ API", per(cpp), ">= 0.5x (<= 2x)", py / cpp <= 2, runs, "us/file")
    results.record(f"one /x from each of {FILES} files, Python open_family", per(py), "h5py",
                   per(h5), ">= 10x", h5 / py >= 10, runs, "us/file")


if __name__ == "__main__":
    main()
