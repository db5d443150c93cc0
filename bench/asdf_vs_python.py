#!/usr/bin/python3
"""ASDF: dudley against python3-asdf 2.14 (and numpy.fromfile) on the same files, in one run.

1. A tree of 10,000 small arrays: `dudley ls --json` (a whole process) against asdf.open +
   walking the tree (in process).
2. 256 MiB of smooth float64 in one block, uncompressed, zlib and lz4: reading the array (ours in
   process with bench's asdf_tool) against asdf.open(copy_arrays=True) + np.asarray, like
   for like: without MD5 verification (python's default) and with it (ours by default,
   python's validate_checksums=True), and numpy.fromfile of the same bytes for the
   uncompressed file; every reader sums the array it read (so a view of the file counts
   its page faults); writing it against AsdfFile.write_to.
3. The same data as 8 arrays of 32 MiB, every array read and summed: ours verifying every
   block, python3-asdf's validate_checksums checking the first (see below).
Each timing is the best of REPEAT; files are read once right before timing (warm cache).

Usage: asdf_vs_python.py BUILD_DIR [WORKDIR]
"""
import os
import subprocess
import sys
import tempfile
import time
import warnings

import asdf
import numpy as np
import results  # noqa: E402  (bench/results.py: the table make bench writes)

warnings.simplefilter("ignore")
BUILD = sys.argv[1]
WORK = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="asdf-bench-")
os.makedirs(WORK, exist_ok=True)
DUDLEY = os.path.join(BUILD, "dudley")
TOOL = os.path.join(BUILD, "bench", "asdf_tool")
REPEAT = 3


def best(fn):
    times = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def warm(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def tool(*args):
    out = subprocess.run([TOOL, *args], check=True, capture_output=True, text=True).stdout.split()
    return float(out[0])


def best_tool(*args, path=None):
    times = []
    for _ in range(1 if args[0].startswith("read") else REPEAT):  # the tool repeats reads itself
        if path:
            warm(path)
        times.append(tool(*args))
    return min(times)


rows = []

# 1. 10,000 small arrays.
many = os.path.join(WORK, "many.asdf")
if not os.path.exists(many):
    asdf.AsdfFile({f"a{i:05d}": np.arange(i % 7 + 1, dtype="f8") for i in range(10_000)}).write_to(many)


def python_list():
    with asdf.open(many) as f:
        for k, v in f.tree.items():
            _ = (k, getattr(v, "shape", None), getattr(v, "dtype", None))


def ours_list():
    subprocess.run([DUDLEY, "ls", "--json", many], check=True, stdout=subprocess.DEVNULL)


warm(many)
tp, to = best(python_list), best(ours_list)
rows.append(("open + list 10,000 arrays", to, tp, "python3-asdf", tp / to, "≥50x"))

# 2. 256 MiB of float64.
n = 256 * 1024 * 1024 // 8
data = np.cumsum(np.random.default_rng(1).standard_normal(n) * 0.01)
raw = os.path.join(WORK, "big.raw")
data.tofile(raw)
for comp in ["none", "zlib", "lz4"]:
    path = os.path.join(WORK, f"big_{comp}.asdf")
    kwargs = {} if comp == "none" else {"all_array_compression": comp}

    def python_write():
        asdf.AsdfFile({"x": data}).write_to(path, **kwargs)

    tpw = best(python_write)

    def python_read(validate=False):
        with asdf.open(path, copy_arrays=True, validate_checksums=validate) as f:
            np.asarray(f.tree["x"]).sum()

    warm(path)
    tpr = best(python_read)
    warm(path)
    tpr_ck = best(lambda: python_read(True))
    ours_path = os.path.join(WORK, f"ours_{comp}.asdf")
    tow = best_tool("write", raw, ours_path, comp)
    tow_nock = best_tool("write", raw, ours_path, comp, "--no-checksums")
    tor = best_tool("read", path, "/x", path=path)
    tor_nock = best_tool("read", path, "/x", "--no-checksums", path=path)
    rows.append((f"read {comp}, no MD5", tor_nock, tpr, "python3-asdf", tpr / tor_nock, "≥2x" if comp != "none" else "-"))
    rows.append((f"read {comp}, MD5 verified", tor, tpr_ck, "python3-asdf, validate_checksums", tpr_ck / tor, "≥3x" if comp != "none" else "≥1.0x"))
    rows.append((f"write {comp}, MD5 stored", tow, tpw, "python3-asdf", tpw / tow, "≥2x" if comp != "none" else "-"))
    rows.append((f"write {comp}, no MD5", tow_nock, tpw, "python3-asdf", tpw / tow_nock, "-"))
    if comp == "none":
        with asdf.open(path) as f:
            offset = f.blocks.get_block(0).data_offset

        def fromfile():
            np.fromfile(path, dtype="<f8", count=n, offset=offset).sum()

        warm(path)
        tff = best(fromfile)
        rows.append(("read none, no MD5 vs numpy.fromfile", tor_nock, tff, "numpy.fromfile", tff / tor_nock, "≥0.9x"))
        rows.append(("read none, MD5 verified vs numpy.fromfile", tor, tff, "numpy.fromfile", tff / tor, "-"))

# 3. The same 256 MiB as 8 arrays of 32 MiB (8 blocks), every array read and summed. Ours
#    verifies every block: uncompressed ones' checksums several at once on every core first
#    (as convert does), compressed ones as they decode. python3-asdf 2.14's
#    validate_checksums=True checks only the blocks it reads while opening, the first one of
#    an indexed file: the others are loaded lazily without a check (asdf/block.py), and a
#    damaged sixth block goes unnoticed. So this is not like for like: the single-block rows
#    above are.
# Copies: views of one array would share its one block.
parts = [p.copy() for p in np.split(data, 8)]
for comp in ["none", "zlib", "lz4"]:
    path = os.path.join(WORK, f"eight_{comp}.asdf")
    if not os.path.exists(path):
        kwargs = {} if comp == "none" else {"all_array_compression": comp}
        asdf.AsdfFile({f"x{k}": parts[k] for k in range(8)}).write_to(path, **kwargs)

    def python_read_all(validate=True):
        with asdf.open(path, copy_arrays=True, validate_checksums=validate) as f:
            for k in range(8):
                np.asarray(f.tree[f"x{k}"]).sum()

    warm(path)
    tp_all = best(python_read_all)
    to_all = best_tool("read-all", path, path=path)
    rows.append((f"read 8 blocks {comp}, all verified (python: first block only)", to_all, tp_all,
                 "python3-asdf, validate_checksums", tp_all / to_all, "-"))

print(f"| measurement | dudley (s) | baseline (s) | baseline | speed-up | target |")
print("|---|---|---|---|---|---|")
for what, ours, theirs, who, ratio, target in rows:
    print(f"| {what} | {ours:.3f} | {theirs:.3f} | {who} | {ratio:.2f}x | {target} |")
    wanted = float(target.strip("≥x")) if target.startswith("≥") else None
    results.record(what, ours * 1000, who, theirs * 1000, target.replace("≥", ">= "),
                   None if wanted is None else ratio >= wanted, f"best of {REPEAT}")
