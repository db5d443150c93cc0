#!/usr/bin/python3
"""Issue 42: `dudley plot` against matplotlib, what a scientist would otherwise script.

Each side a fresh process, alternating, inputs read right before, medians of RUNS runs:
- a 4096 x 4096 float32 heatmap (one slice of a 4 x 4096 x 4096 HDF5 dataset, chunked and
  compressed as a simulation would write it) with a colour bar, 800 x 600 pixels:
  `dudley plot FILE '/t[2]' -o out.png` against python3 with h5py reading the slice and
  matplotlib's imshow + colorbar + savefig (Agg) at the same size. Target: dudley < 0.5 s.
- a 1-D line of 10 million float64 (.npy), against matplotlib's plot of the same values.

Usage: plot_vs_matplotlib.py BUILD_DIR [WORKDIR] [RUNS]
"""
import os
import statistics
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_runs import arguments, clean, wall  # noqa: E402
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD, WORK, OWN, RUNS = arguments(sys.argv, "plot-bench-", 5)
DUDLEY = os.path.join(BUILD, "dudley")
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)

HEATMAP = """
import sys, h5py, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
with h5py.File(sys.argv[1]) as f:
    a = f["t"][2]
fig, ax = plt.subplots(figsize=(8, 6), dpi=100)
im = ax.imshow(a, cmap="viridis", interpolation="nearest")
fig.colorbar(im, ax=ax)
ax.set_title("/t[2]")
fig.savefig(sys.argv[2])
"""

LINE = """
import sys, numpy as np, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
a = np.load(sys.argv[1])
fig, ax = plt.subplots(figsize=(8, 6), dpi=100)
ax.plot(a)
fig.savefig(sys.argv[2])
"""


def make_inputs():
    import h5py
    if not os.path.exists("cube.h5"):
        rng = np.random.default_rng(7)
        y, x = np.mgrid[0:4096, 0:4096].astype("f4") / 512
        with h5py.File("cube.h5", "w") as f:
            d = f.create_dataset("t", shape=(4, 4096, 4096), dtype="<f4", chunks=(1, 512, 512),
                                 compression="gzip", compression_opts=1)
            for k in range(4):
                d[k] = np.sin(x * (k + 1)) * np.cos(y) + rng.normal(scale=0.05, size=x.shape)
    if not os.path.exists("line.npy"):
        np.save("line.npy", np.cumsum(np.random.default_rng(8).normal(size=10_000_000)))


def compare(name, ours, theirs, inputs, target_s=None):
    times = {"dudley": [], "matplotlib": []}
    for r in range(RUNS):
        sides = [("dudley", ours), ("matplotlib", theirs)]
        for side, cmd in (sides if r % 2 == 0 else sides[::-1]):
            times[side].append(wall(cmd, inputs))
    d, m = statistics.median(times["dudley"]), statistics.median(times["matplotlib"])
    verdict = ""
    if target_s is not None:
        verdict = f"; target dudley < {target_s} s: {'met' if d < target_s else 'NOT met'}"
    print(f"{name}: dudley {d * 1000:.0f} ms, matplotlib {m * 1000:.0f} ms -> {m / d:.1f}x"
          f"{verdict}", flush=True)
    results.record(name, d * 1000, "python3-matplotlib (Agg, savefig PNG)", m * 1000,
                   f"< {target_s * 1000:.0f} ms" if target_s else "",
                   None if target_s is None else d < target_s, RUNS)


def main():
    make_inputs()
    compare("plot a 4096 x 4096 float32 slice as a heatmap, 800 x 600 PNG (whole command)",
            [DUDLEY, "plot", "cube.h5", "/t[2]", "-o", "ours.png"],
            ["/usr/bin/python3", "-c", HEATMAP, "cube.h5", "theirs.png"], ["cube.h5"], 0.5)
    compare("plot 10 million float64 as a line, 800 x 600 PNG (whole command)",
            [DUDLEY, "plot", "line.npy", "/", "-o", "ours_line.png"],
            ["/usr/bin/python3", "-c", LINE, "line.npy", "theirs_line.png"], ["line.npy"])
    out = subprocess.run([DUDLEY, "plot", "cube.h5", "/t[2]", "-o", "ours.png"],
                         capture_output=True, text=True, check=True).stdout.strip()
    print("  " + out)
    if OWN:
        clean(WORK)


main()
