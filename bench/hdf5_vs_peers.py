#!/usr/bin/env python3
"""Issue 24's targets, each side measured in the same run, fresh processes, page cache warm:

1. `dudley describe` of an HDF5 file with 100,000 small datasets in 100 groups, against
   `h5ls -r` (Debian's hdf5-tools) on the same file: target at most 1.5x.
2. One dataset from each of 1,000 HDF5 files (200 contiguous datasets each, written by h5py),
   through a layout made by `dudley layout --family`:
   - in one process (bench/family_pread.cpp): the layout parsed and planned once, then per
     file open + bind + read, against open+pread+close of the same bytes (target at most
     1.2x) and against libhdf5 (H5Fopen + H5Dopen2 + H5Dread; target at least 5x faster);
   - through the CLI, whole process: `dudley dump --family 'run_*.h5' --layout run.dud /a100
     --json` against a C program doing open+pread+close (target at most 1.5x): the strongest
     such program links libc only (bench/pread_files.c); bench/family_pread.cpp, which links
     libhdf5 and dudley too, is timed as well, and so are the two processes' start alone
     (`dudley --version`, `pread_files` with no file), the part of the CLI's time no
     per-file work can remove.

Usage: hdf5_vs_peers.py BUILD_DIR [REPEATS]   (data cached in $DUDLEY_BENCH_DIR or /tmp/dudley-bench)
"""
import glob
import json
import os
import subprocess
import sys
import time

import h5py
import numpy as np
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
DUDLEY = os.path.join(BUILD, "dudley")
PREAD = os.path.join(BUILD, "bench", "family_pread")
PREAD_C = os.path.join(BUILD, "bench", "pread_files")
ROOT = os.environ.get("DUDLEY_BENCH_DIR", "/tmp/dudley-bench")


def many_datasets():
    path = os.path.join(ROOT, "h5many", "many.h5")
    if os.path.exists(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with h5py.File(path + ".tmp", "w") as f:
        for g in range(100):
            grp = f.create_group(f"g{g:03d}")
            for d in range(1000):
                grp.create_dataset(f"d{d:04d}", data=np.arange(4, dtype="f8") + d)
    os.rename(path + ".tmp", path)
    return path


def family():
    d = os.path.join(ROOT, "h5family")
    files = sorted(glob.glob(os.path.join(d, "run_*.h5")))
    if len(files) == 1000:
        return d, files
    os.makedirs(d, exist_ok=True)
    for i in range(1000):
        with h5py.File(os.path.join(d, f"run_{i:04d}.h5"), "w") as f:
            for a in range(200):
                f.create_dataset(f"a{a:03d}", data=np.arange(16, dtype="<f8") + a * 1000 + i)
    return d, sorted(glob.glob(os.path.join(d, "run_*.h5")))


def touch(paths):
    for p in paths:
        with open(p, "rb") as f:
            while f.read(1 << 20):
                pass


def timed(cmd, warm, stdout=subprocess.DEVNULL):
    best, out = None, None
    for _ in range(REPEATS):
        touch(warm)
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.PIPE if stdout is None else stdout, stderr=subprocess.PIPE, text=True)
        t = time.perf_counter() - t0
        if p.returncode != 0:
            raise SystemExit(f"{' '.join(cmd[:4])}... failed: {p.stderr[-500:]}")
        out = p.stdout
        best = t if best is None else min(best, t)
    return best, out


def main():
    many = many_datasets()
    h5ls, _ = timed(["h5ls", "-r", many], [many])
    desc, _ = timed([DUDLEY, "describe", many], [many])
    print(f"describe, 100,000 datasets: dudley {desc:.3f} s, h5ls -r {h5ls:.3f} s -> {desc / h5ls:.2f}x h5ls (target <= 1.5x)")
    results.record("describe, 100,000 datasets", desc * 1e3, "h5ls -r", h5ls * 1e3,
                   ">= 0.67x (<= 1.5x h5ls)", desc / h5ls <= 1.5, REPEATS)

    d, files = family()
    layout = os.path.join(d, "run.dud")
    t_layout, _ = timed([DUDLEY, "layout", "--family", os.path.join(d, "run_*.h5"), "-o", layout], files)
    text = open(layout).read()
    line = next(l for l in text.splitlines() if l.startswith("a100 ="))
    offset = int(line.split("@")[1])
    print(f"dudley layout --family over 1,000 files: {t_layout:.3f} s")

    def inproc(mode_args):
        best, s = None, None
        for _ in range(REPEATS):
            touch(files)
            p = subprocess.run([PREAD, *mode_args, *files], capture_output=True, text=True, check=True)
            t, s = p.stdout.split()
            best = float(t) if best is None else min(best, float(t))
        return best, float(s)

    t_pread, s1 = inproc(["pread", str(offset), "128"])
    t_hdf5, s2 = inproc(["hdf5", "a100"])
    t_dud, s3 = inproc(["layout", layout, "/a100"])
    assert s1 == s2 == s3, (s1, s2, s3)
    per = lambda t: t / len(files) * 1e6
    print(f"one array from each of 1,000 files (in process): open+pread+close {per(t_pread):.1f} us/file, "
          f"layout {per(t_dud):.1f} us/file -> {t_dud / t_pread:.2f}x the floor (target <= 1.2x); "
          f"libhdf5 {per(t_hdf5):.1f} us/file -> layout {t_hdf5 / t_dud:.1f}x faster (target >= 5x)")
    results.record("one array from each of 1,000 files through a layout, in process",
                   per(t_dud), "open+pread+close", per(t_pread), ">= 0.83x (<= 1.2x the floor)",
                   t_dud / t_pread <= 1.2, REPEATS, unit="us/file")
    results.record("one array from each of 1,000 files through a layout, in process",
                   per(t_dud), "libhdf5", per(t_hdf5), ">= 5x", t_hdf5 / t_dud >= 5, REPEATS,
                   unit="us/file")

    proc_c, c_sum = timed([PREAD_C, str(offset), "128", *files], files, stdout=None)
    proc_pread, _ = timed([PREAD, "pread", str(offset), "128", *files], files)
    proc_cli, out = timed([DUDLEY, "dump", "--family", os.path.join(d, "run_*.h5"), "--layout", layout,
                           "/a100", "--json"], files, stdout=None)
    lines = out.splitlines()
    cli_sum = sum(json.loads(l)["root"]["members"]["a100"]["data"][0] for l in lines)
    assert len(lines) == len(files) and abs(cli_sum - float(c_sum)) < 1e-6 * abs(cli_sum), (cli_sum, c_sum)
    start_cli, _ = timed([DUDLEY, "--version"], [])
    start_c, _ = timed([PREAD_C, str(offset), "128"], [])
    print(f"the CLI, whole process: dump --family --layout /a100 --json {proc_cli * 1e3:.1f} ms "
          f"({len(lines)} JSON lines); C open+pread+close (libc only) {proc_c * 1e3:.1f} ms -> "
          f"{proc_cli / proc_c:.1f}x (target <= 1.5x); the same reads by family_pread (linked with "
          f"libhdf5 and dudley) {proc_pread * 1e3:.1f} ms -> {proc_cli / proc_pread:.2f}x")
    results.record("the CLI, dump --family --layout /a100 --json (whole process)", proc_cli * 1e3,
                   "C open+pread+close (libc only)", proc_c * 1e3, ">= 0.67x (<= 1.5x C)",
                   proc_cli / proc_c <= 1.5, REPEATS)
    print(f"process start alone: dudley --version {start_cli * 1e3:.1f} ms, pread_files without "
          f"files {start_c * 1e3:.1f} ms; per file: CLI {(proc_cli - start_cli) / len(files) * 1e6:.1f} us, "
          f"C {(proc_c - start_c) / len(files) * 1e6:.1f} us")


if __name__ == "__main__":
    main()
