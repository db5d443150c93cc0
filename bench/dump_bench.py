#!/usr/bin/python3
"""Streamed dump of a large array, side by side with h5dump (issue 10).

Writes a float64 array (1 GiB by default) as a raw file with its layout and as an HDF5
dataset (h5py, contiguous), then runs, in one session and alternating:
  dudley dump FILE /x          (text)
  dudley dump --json FILE /x   (JSON)
  h5dump -d /x FILE.h5         (h5dump's text; 6 significant digits by default, so it prints
                                less than dudley's shortest round-trip digits)
each with stdout to /dev/null, and reports wall time and peak memory (GNU time's maximum
resident set size). Each run is preceded by a pass over its input, so the page cache is warm.

Usage: bench/dump_bench.py DUDLEY [MiB] [ROUNDS]   (data in $DUDLEY_BENCH_DIR, default
/tmp/dudley-bench)
"""
import os
import subprocess
import sys
import time

import numpy as np
import results  # noqa: E402  (bench/results.py: the table make bench writes)


def make_inputs(directory, mib):
    raw = os.path.join(directory, f"dump_{mib}m.bin")
    h5 = os.path.join(directory, f"dump_{mib}m.h5")
    count = mib * 1024 * 1024 // 8
    if os.path.exists(raw) and os.path.getsize(raw) == count * 8 and os.path.exists(h5):
        return raw, h5, count
    import h5py

    # Smooth data with full-precision values (every value prints with ~17 digits).
    chunk = 1 << 22
    with open(raw, "wb") as f, h5py.File(h5, "w") as h:
        d = h.create_dataset("x", shape=(count,), dtype="<f8")
        for start in range(0, count, chunk):
            n = min(chunk, count - start)
            v = np.sin(np.arange(start, start + n) * 1e-4) * 1000.0 + 1.0 / 3.0
            v.astype("<f8").tofile(f)
            d[start : start + n] = v
    with open(os.path.join(directory, f"dump_{mib}m.dud"), "w") as f:
        f.write(f"x = <f8[{count}]\n")
    return raw, h5, count


def warm(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def run(command, path):
    """Wall seconds and peak resident MiB of `command` with stdout to /dev/null.

    Peak memory comes from GNU time, which forks the command itself: a child of this
    (numpy-sized) Python process would report Python's size as its own peak.
    """
    warm(path)
    with open(os.devnull, "wb") as null:
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, stdout=null,
                           stderr=subprocess.PIPE, text=True)
        seconds = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}: {p.stderr}")
    return seconds, int(p.stderr.strip().splitlines()[-1]) / 1024.0


def main():
    dudley = sys.argv[1]
    mib = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    directory = os.environ.get("DUDLEY_BENCH_DIR", "/tmp/dudley-bench")
    os.makedirs(directory, exist_ok=True)
    raw, h5, count = make_inputs(directory, mib)
    sides = {
        "dudley text": ([dudley, "dump", raw, "/x"], raw),
        "dudley json": ([dudley, "dump", "--json", raw, "/x"], raw),
        "h5dump": (["h5dump", "-d", "/x", h5], h5),
    }
    times = {k: [] for k in sides}
    memory = {k: 0.0 for k in sides}
    for r in range(rounds):
        order = list(sides) if r % 2 == 0 else list(reversed(sides))
        for name in order:
            s, m = run(*sides[name])
            times[name].append(s)
            memory[name] = max(memory[name], m)
    best = {k: min(v) for k, v in times.items()}
    print(f"  {count:,} float64 values ({mib} MiB), best of {rounds} rounds:")
    for name in sides:
        line = f"  {name:12} {best[name]:7.1f} s  peak {memory[name]:6.1f} MiB"
        if name != "h5dump":
            line += f"  -> {best['h5dump'] / best[name]:.1f}x faster than h5dump (target >= 3x, memory < 64 MiB)"
            results.record(f"{count:,} float64 values, {name.strip()} ({memory[name]:.0f} MiB)",
                           best[name], "h5dump -d", best["h5dump"], ">= 3x",
                           best["h5dump"] / best[name] >= 3 and memory[name] < 64,
                           f"best of {rounds}", unit="s")
        print(line)


if __name__ == "__main__":
    main()
