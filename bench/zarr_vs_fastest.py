#!/usr/bin/python3
"""Issue 41, item 6: Zarr against the fastest implementations, side by side in one run.

A float64 array of GIB GiB (8192 columns, smooth data) in 1 MiB chunks (16 x 8192), with zstd
(level 3) or blosc (lz4, level 5, byte shuffle), unsharded or in shards of 16 chunks
(256 x 8192); written, read whole and read in a 1% region (a tenth of the rows by a tenth of
the columns, mid-array), with 1 and 2 codec threads (1: every tool pinned to one core with
taskset, its thread settings at 1 too). Peers (pinned in
tests/requirements-stack.txt, in .venv-stack): tensorstore, zarr-python 3 with zarrs' codec
pipeline, zarr-python 3 itself; and Debian's python3-zarr 2.13 on v2 stores (no shards).

Each measurement is a fresh process; every peer times its own call with the input already in
memory for writes, while dudley's write is the whole `dudley convert` command (reading the
raw input included), so the write ratios favour the peers. Reads use bench/read_once (open +
read into new memory, timed inside). All read the store dudley wrote (the same bytes); the
readers' checksums are compared. Medians of RUNS runs, tools in rotating order.

Targets: >= 1.0x tensorstore and zarrs, >= 2x zarr-python 3 and python3-zarr, in every case;
2 threads >= 1.7x 1 thread for dudley.

Usage: zarr_vs_fastest.py BUILD_DIR [WORKDIR] [RUNS] [GIB]
"""
import os
import statistics
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_runs import arguments_with_numbers, clean, wall, warm  # noqa: E402
import results  # noqa: E402  (bench/results.py: the table make bench writes)

HERE = os.path.dirname(os.path.abspath(__file__))
# Trailing numbers are RUNS then GIB; a first argument that is no number is WORKDIR.
BUILD, WORK, OWN_WORK, numbers = arguments_with_numbers(sys.argv, "zarr-fastest-")
RUNS = int(numbers[0]) if numbers else 3
GIB = float(numbers[1]) if len(numbers) > 1 else 1.0
DUDLEY = os.path.join(BUILD, "dudley")
READ_ONCE = os.path.join(BUILD, "bench", "read_once")
STACK = os.path.join(os.path.dirname(HERE), ".venv-stack", "bin", "python")
PEER = os.path.join(HERE, "zarr_peer_ops.py")
COLS, CHUNK_ROWS, SHARD_ROWS = 8192, 16, 256
ROWS = max(SHARD_ROWS, int(GIB * (1 << 30)) // 8 // COLS // SHARD_ROWS * SHARD_ROWS)
REGION = [ROWS // 2, ROWS // 2 + ROWS // 10, COLS // 2, COLS // 2 + COLS // 10]
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)


def pinned(cmd, threads):
    """`cmd` on one core when one thread is asked for: a thread setting alone does not bind
    every library's helpers (zarrs' rayon pool, blosc's own threads, libuv's)."""
    return (["taskset", "-c", "0"] if threads == 1 else []) + cmd


def inner(cmd, inputs, env=None):
    """(seconds, checksum) a process reports for its own call."""
    warm(*inputs)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env=dict(os.environ, **(env or {}))).stdout.split()
    return float(out[0]), float(out[1])


def versions():
    out = subprocess.run([STACK, "-c", "from importlib.metadata import version as v; print("
                          "', '.join(f'{p} {v(p)}' for p in ('tensorstore', 'zarrs', 'zarr')))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    z2 = subprocess.run(["/usr/bin/python3", "-c", "import zarr; print(zarr.__version__)"],
                        capture_output=True, text=True, check=True).stdout.strip()
    return f"{out}, python3-zarr {z2}"


def ours_write(codec, sharded, threads, store, v2=False):
    cmd = [DUDLEY, "convert", "-q", "--compressor", codec, "--chunks", f"{CHUNK_ROWS},{COLS}"]
    if sharded:
        cmd += ["--shards", f"{SHARD_ROWS},{COLS}"]
    if v2:
        cmd += ["--zarr-format", "2"]
    cmd += ["in.bin", store]
    clean(store)
    return wall(pinned(["env", f"DUDLEY_NUM_THREADS={threads}"] + cmd, threads), ["in.bin"]), None


def peer(tool, op, store, codec, sharded, threads):
    cmd = [STACK if tool != "zarr2" else "/usr/bin/python3", PEER, tool, op, store, codec,
           "1" if sharded else "0", str(threads)]
    cmd = pinned(cmd, threads)
    if op == "write":
        clean(store)
        return inner(cmd + ["in.bin", str(ROWS), str(COLS), str(CHUNK_ROWS), str(SHARD_ROWS)],
                     ["in.bin"])
    # dudley's stores hold the array as /x in a root group.
    cmd[cmd.index(store)] = os.path.join(store, "x")
    return inner(cmd + (list(map(str, REGION)) if op == "region" else []), [store])


def ours_read(op, store, threads):
    cmd = [READ_ONCE, store, "/x"] + (list(map(str, REGION)) if op == "region" else [])
    return inner(pinned(cmd, threads), [store], {"DUDLEY_NUM_THREADS": str(threads)})


def case(codec, sharded, op):
    """Medians per tool and thread count for one codec, layout and operation."""
    store = f"ours_{codec}_{'sharded' if sharded else 'plain'}.zarr"
    v2 = f"ours2_{codec}.zarr"
    tools = ["tensorstore", "zarrs", "zarr3"] + ([] if sharded else ["zarr2"])
    times = {}
    sums = {}
    for threads in (1, 2):
        runs = {t: [] for t in ["dudley", "dudley_v2"] + tools}
        for r in range(RUNS):
            order = ["dudley"] + tools
            order = order[r % len(order):] + order[:r % len(order)]
            for t in order:
                if op == "write":
                    if t == "dudley":
                        runs[t].append(ours_write(codec, sharded, threads, "w_ours.zarr")[0])
                    else:
                        runs[t].append(peer(t, "write", f"w_{t}.zarr", codec, sharded,
                                            threads)[0])
                    if t == "zarr2":
                        runs["dudley_v2"].append(
                            ours_write(codec, sharded, threads, "w_ours2.zarr", True)[0])
                else:
                    src = v2 if t == "zarr2" else store
                    s, c = ours_read(op, src, threads) if t == "dudley" else peer(
                        t, op, src, codec, sharded, threads)
                    runs[t].append(s)
                    sums.setdefault((t, src), c)
                    if t == "zarr2":
                        s2, c2 = ours_read(op, v2, threads)
                        runs["dudley_v2"].append(s2)
                        sums.setdefault(("dudley", v2), c2)
        times[threads] = {t: statistics.median(v) for t, v in runs.items() if v}
    clean("w_ours.zarr", "w_ours2.zarr", *[f"w_{t}.zarr" for t in tools])
    # Every reader of one store must have read the same values.
    for src in {s for _, s in sums}:
        got = {t: c for (t, s), c in sums.items() if s == src}
        if len(set(got.values())) > 1 and max(got.values()) - min(got.values()) > 1e-6 * max(
                abs(v) for v in got.values()):
            sys.exit(f"{src}: the readers disagree: {got}")
    return times


def report(codec, sharded, op, times):
    name = f"{op:6} {codec:5} {'sharded' if sharded else 'plain  '}"
    for threads in (1, 2):
        t = times[threads]
        parts = []
        misses = []
        for tool, target in (("tensorstore", 1.0), ("zarrs", 1.0), ("zarr3", 2.0), ("zarr2", 2.0)):
            if tool not in t:
                continue
            ours = t["dudley_v2"] if tool == "zarr2" else t["dudley"]
            ratio = t[tool] / ours
            parts.append(f"{tool} {t[tool] * 1000:.0f} ms {ratio:.2f}x")
            results.record_speedup(f"{name.strip()}, {threads} thread{'s' if threads > 1 else ''} "
                                   f"vs {tool}", ours, t[tool], target, RUNS)
            if ratio < target:
                misses.append(tool)
        verdict = "all targets met" if not misses else "NOT met: " + ", ".join(misses)
        print(f"{name} {threads} thread{'s' if threads > 1 else ' '}: dudley "
              f"{t['dudley'] * 1000:.0f} ms; {'; '.join(parts)}; {verdict}", flush=True)
    scaling = times[1]["dudley"] / times[2]["dudley"]
    print(f"{name} dudley 2 threads / 1: {scaling:.2f}x (target >= 1.7x: "
          f"{'met' if scaling >= 1.7 else 'NOT met'})", flush=True)
    results.record_speedup(f"{name.strip()}, 2 threads vs dudley with 1", times[2]["dudley"],
                           times[1]["dudley"], 1.7, RUNS)


def main():
    if not os.path.exists("in.bin") or os.path.getsize("in.bin") != ROWS * COLS * 8:
        np.sin(np.linspace(0, 400, ROWS * COLS)).astype("<f8").tofile("in.bin")
    open("in.dud", "w").write(f"x = <f8[{ROWS}, {COLS}]\n")
    print(f"{ROWS} x {COLS} float64 ({ROWS * COLS * 8 / (1 << 30):.2f} GiB), chunks "
          f"{CHUNK_ROWS} x {COLS}, shards {SHARD_ROWS} x {COLS}; region rows {REGION[0]}:"
          f"{REGION[1]}, columns {REGION[2]}:{REGION[3]}; {RUNS} runs each, medians; "
          f"{versions()}", flush=True)
    for codec in ("zstd", "blosc"):
        for sharded in (False, True):
            ours_write(codec, sharded, 2, f"ours_{codec}_{'sharded' if sharded else 'plain'}.zarr")
        ours_write(codec, False, 2, f"ours2_{codec}.zarr", True)
        for sharded in (False, True):
            for op in ("write", "read", "region"):
                report(codec, sharded, op, case(codec, sharded, op))
        clean(f"ours_{codec}_plain.zarr", f"ours_{codec}_sharded.zarr", f"ours2_{codec}.zarr")
    if OWN_WORK:
        clean(WORK)


main()
