#!/usr/bin/env python3
"""Issue 41, item 2: the command line at its floor. Each side a fresh process, the sides
alternating, page cache warm, medians of REPEATS runs:

- process start: `dudley --version` against `print_floats` given nothing to do;
- one array (16 float64) from each of 1,000 HDF5 files through a layout, printed as text:
  `dudley dump --family 'run_*.h5' --layout run.dud /a100` against bench/print_floats.cpp,
  which reads the same bytes with open+pread+close and prints them with the same formatter
  (fmt's shortest text, format compiled); the two outputs must be equal byte for byte.
  Target: dudley at most 1.5x. The same family with --json, and with --binary raw (reading
  without printing), show where the time goes;
- 10 million float64 printed: `dudley dump x.npy /` against `print_floats npy x.npy` (equal
  output), and the formatter's own speed in memory (`print_floats speed`): the target of 50
  million values a second on one core.

Usage: family_cli_vs_c.py BUILD_DIR [REPEATS]   (data in $DUDLEY_BENCH_DIR or /tmp/dudley-bench)
"""
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hdf5_vs_peers  # noqa: E402  (its family of 1,000 HDF5 files)
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
DUDLEY = os.path.join(BUILD, "dudley")
PRINT = os.path.join(BUILD, "bench", "print_floats")
ROOT = os.environ.get("DUDLEY_BENCH_DIR", "/tmp/dudley-bench")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in (0, 2) or (p.returncode == 2 and cmd[0] != PRINT):
        raise SystemExit(f"{' '.join(cmd[:5])}... failed ({p.returncode}): {p.stderr[-400:]!r}")
    return p.stdout


def alternate(sides, warm):
    """Median seconds of each named command, the sides taking turns, each run warm."""
    times = {name: [] for name in sides}
    outputs = {}
    for _ in range(REPEATS):
        for name, cmd in sides.items():
            hdf5_vs_peers.touch(warm)
            t0 = time.perf_counter()
            outputs[name] = run(cmd)
            times[name].append(time.perf_counter() - t0)
    return {n: statistics.median(t) for n, t in times.items()}, outputs


def main():
    d, files = hdf5_vs_peers.family()
    layout = os.path.join(d, "run.dud")
    if not os.path.exists(layout):
        run([DUDLEY, "layout", "--family", os.path.join(d, "run_*.h5"), "-o", layout])
    line = next(l for l in open(layout).read().splitlines() if l.startswith("a100 ="))
    offset = int(line.split("@")[1])
    glob_arg = os.path.join(d, "run_*.h5")
    family = [DUDLEY, "dump", "--family", glob_arg, "--layout", layout, "/a100"]
    t, out = alternate({
        "start dudley": [DUDLEY, "--version"],
        "start C": [PRINT],
        "C text": [PRINT, "family", str(offset), "16", "/a100", *files],
        "dudley text": family,
        "dudley json": family + ["--json"],
        "dudley raw": family + ["--binary", "raw"],
    }, files)
    assert out["dudley text"] == out["C text"], "the outputs differ"
    assert len(out["dudley raw"]) == len(files) * 16 * 8
    ms = lambda name: t[name] * 1e3
    print(f"process start: dudley --version {ms('start dudley'):.1f} ms, C {ms('start C'):.1f} ms")
    print(f"1,000 files, /a100 as text: dudley {ms('dudley text'):.1f} ms, C (same bytes, same "
          f"formatter, equal output) {ms('C text'):.1f} ms -> {t['dudley text'] / t['C text']:.2f}x "
          f"(target <= 1.5x)")
    results.record("1,000 files, /a100 printed as text (whole command)", ms("dudley text"),
                   "C open+pread+close, same formatter", ms("C text"), ">= 0.67x (<= 1.5x C)",
                   t["dudley text"] / t["C text"] <= 1.5, REPEATS)
    results.record("process start (--version)", ms("start dudley"), "C program, nothing to do",
                   ms("start C"), runs=REPEATS)
    per = lambda name, start: (t[name] - t[start]) / len(files) * 1e6
    print(f"  per file after start: dudley {per('dudley text', 'start dudley'):.1f} us, "
          f"C {per('C text', 'start C'):.1f} us; --binary raw (no printing) {ms('dudley raw'):.1f} ms, "
          f"--json {ms('dudley json'):.1f} ms")

    big = os.path.join(ROOT, "floats10m.npy")
    if not os.path.exists(big):
        np.save(big, np.random.default_rng(1).uniform(-1e6, 1e6, 10_000_000))
    t, out = alternate({"dudley": [DUDLEY, "dump", big, "/"], "C": [PRINT, "npy", big]}, [big])
    assert out["dudley"] == out["C"], "the outputs differ"
    print(f"10 million float64 as text: dudley {t['dudley']:.3f} s ({10 / t['dudley']:.1f} M/s), "
          f"C {t['C']:.3f} s ({10 / t['C']:.1f} M/s) -> {t['dudley'] / t['C']:.2f}x")
    results.record("10 million float64 printed as text", t["dudley"] * 1e3,
                   "C, same formatter", t["C"] * 1e3, runs=REPEATS)
    print("the formatter in memory, one core (target >= 50 M/s):")
    speeds = run([PRINT, "speed", "10000000"]).decode()
    sys.stdout.write("  " + speeds.replace("\n", "\n  ").rstrip() + "\n")
    for line in speeds.splitlines():
        # "random (17 digits): 39.1 M values/s printed, 18.0 bytes each; ... (Dragonbox) 95.2 M/s"
        kind, rest = line.split(": ", 1)
        printed = float(rest.split(" M values/s")[0])
        digits = float(rest.split("(Dragonbox) ")[1].split(" M/s")[0])
        results.record(f"formatter, one core, {kind} (M values/s; target is 50 M/s)", printed,
                       "Dragonbox's shortest digits alone", digits, ">= 50 M/s", printed >= 50,
                       1, unit="M/s", ratio=printed / digits)


if __name__ == "__main__":
    main()
