#!/usr/bin/python3
"""Issue 41, item 3: a 1 GiB float64 array read into new memory in a fresh process, in
alternating runs (the file read right before each, so each run finds it in the page cache):

- C: one pread into huge-page memory (2 MiB-aligned, MADV_HUGEPAGE) and into plain
  anonymous memory (bench/c_read_once huge|plain);
- dudley's C++ API (bench/read_once: open + read of the .npy);
- Python: dudley.open(path)[...] and numpy.load, each timed around the call.

Prints each one's median, its spread (min and max: stalls show there) and ratios to the C
reads. Target: dudley's medians at least 0.9x C's huge-page read.

Usage: fresh_memory_read.py BUILD_DIR [WORKDIR] [RUNS]
"""
import os
import statistics
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_runs import arguments, warm  # noqa: E402
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD, WORK, OWN_WORK, RUNS = arguments(sys.argv, "fresh-read-", 10)
PY = "/usr/bin/python3"
os.makedirs(WORK, exist_ok=True)
FILE = os.path.join(WORK, "gib.npy")
HEADER = 128  # np.save's header for this shape and type

PY_DUDLEY = """
import sys, time, dudley
t = time.perf_counter(); a = dudley.open(sys.argv[1])[...]; s = time.perf_counter() - t
print(s, float(a.sum()))
"""
PY_NUMPY = """
import sys, time, numpy as np
t = time.perf_counter(); a = np.load(sys.argv[1]); s = time.perf_counter() - t
print(s, float(a.sum()))
"""


def seconds(cmd, env=None):
    warm(FILE)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return float(out.split()[0])


def main():
    if not os.path.exists(FILE):
        np.save(FILE, np.arange(1 << 27, dtype="<f8") * 0.5)
    with open(FILE, "rb") as f:
        assert len(f.read(HEADER + 8)) == HEADER + 8
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    tools = {
        "C read, huge pages": [os.path.join(BUILD, "bench", "c_read_once"), "huge", FILE,
                               str(HEADER)],
        "C read, 4 KiB pages": [os.path.join(BUILD, "bench", "c_read_once"), "plain", FILE,
                                str(HEADER)],
        "dudley C++ read": [os.path.join(BUILD, "bench", "read_once"), FILE, "/"],
        "dudley Python a[...]": [PY, "-c", PY_DUDLEY, FILE],
        "numpy.load": [PY, "-c", PY_NUMPY, FILE],
    }
    times = {name: [] for name in tools}
    for _ in range(RUNS):
        for name, cmd in tools.items():
            times[name].append(seconds(cmd, env))
    huge = statistics.median(times["C read, huge pages"])
    plain = statistics.median(times["C read, 4 KiB pages"])
    print(f"1 GiB into new memory, fresh processes, {RUNS} alternating runs: median (min-max)")
    for name, t in times.items():
        m = statistics.median(t)
        print(f"  {name:22s} {m:.3f} s ({min(t):.3f}-{max(t):.3f})  "
              f"C huge/this {huge / m:.2f}x  C 4K/this {plain / m:.2f}x")
        if name.startswith("dudley"):
            results.record_speedup(f"1 GiB into new memory, {name} vs C read, huge pages", m, huge,
                                   0.9, RUNS)


if __name__ == "__main__":
    main()
