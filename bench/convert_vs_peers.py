#!/usr/bin/python3
"""Issue 21's targets as users meet them: whole commands and first calls in fresh processes,
each beside its strongest peer in the same run (medians of N runs, alternating; each input
read right before each run, so every run finds it in the page cache).

1. `dudley convert` (MD5 verified) of 256 MiB of float64 in 8 uncompressed ASDF blocks to
   Dudley data, against python3-asdf opening the file and writing each array with tofile
   (its defaults: no verification), a whole python3 process each. Target >= 1.0x. Then the
   same with zlib blocks: target >= 2x.
2. `dudley convert --no-checksums` of a 1 GiB uncompressed ASDF array to Dudley data,
   against `cp` of the same file. Target >= 0.7x.
3. The first parse of the plain 100,000-array layout in a fresh process (bench/parse_once),
   and `dudley check` of it as a whole command. Target <= 30 ms.
4. A 1 GiB float64 array read into new memory through the library (bench/read_once: open +
   read), against numpy.fromfile of the same bytes, each in a fresh process, timed around
   the call. Target >= 0.9x.

Usage: convert_vs_peers.py BUILD_DIR [WORKDIR] [RUNS]
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_runs import arguments, clean, wall, warm  # noqa: E402
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD, WORK, OWN_WORK, RUNS = arguments(sys.argv, "convert-bench-", 5)
DUDLEY = os.path.join(BUILD, "dudley")
PY = "/usr/bin/python3"
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)


def side_by_side(ours, theirs, before=lambda: None):
    """Medians of RUNS runs of each, alternating: (ours, theirs)."""
    a, b = [], []
    for _ in range(RUNS):
        before()
        a.append(ours())
        before()
        b.append(theirs())
    return statistics.median(a), statistics.median(b)


def report(name, ours, theirs, target):
    ratio = theirs / ours
    print(f"{name}: dudley {ours * 1000:.0f} ms, peer {theirs * 1000:.0f} ms, "
          f"{ratio:.2f}x (target >= {target}x: {'met' if ratio >= target else 'NOT met'})")
    results.record_speedup(name, ours, theirs, target, RUNS)


PEER_TOFILE = """
import sys, asdf, numpy as np
with asdf.open(sys.argv[1]) as f:
    for i in range(8):
        np.asarray(f[f"a{i}"]).tofile(f"peer_{i}.bin")
"""


def blocks_case():
    import asdf
    x = np.sin(np.linspace(0, 200, (256 << 20) // 8)).reshape(8, -1)
    for compression in (None, "zlib"):
        name = f"eight_{compression or 'raw'}.asdf"
        af = asdf.AsdfFile({f"a{i}": x[i].copy() for i in range(8)})
        if compression:
            for i in range(8):
                af.set_array_compression(af[f"a{i}"], compression)
        af.write_to(name)
        ours, theirs = side_by_side(
            lambda: wall([DUDLEY, "convert", "-q", name, "out.bin"], [name]),
            lambda: wall([PY, "-c", PEER_TOFILE, name], [name]),
            before=lambda: clean("out.bin", "out.dud", *[f"peer_{i}.bin" for i in range(8)]))
        report(f"1. convert 256 MiB in 8 {compression or 'uncompressed'} blocks (MD5) vs "
               "python3-asdf + tofile", ours, theirs, 2.0 if compression else 1.0)


def copy_case():
    import asdf
    x = np.random.default_rng(0).standard_normal((1 << 30) // 8)
    asdf.AsdfFile({"x": x}).write_to("gib.asdf")
    del x
    ours, theirs = side_by_side(
        lambda: wall([DUDLEY, "convert", "-q", "--no-checksums", "gib.asdf", "gib.bin"],
                     ["gib.asdf"]),
        lambda: wall(["cp", "gib.asdf", "copy.asdf"], ["gib.asdf"]),
        before=lambda: clean("gib.bin", "gib.dud", "copy.asdf"))
    report("2. convert --no-checksums 1 GiB vs cp", ours, theirs, 0.7)
    clean("gib.asdf", "gib.bin", "gib.dud", "copy.asdf")


def parse_case():
    subprocess.run([os.path.join(BUILD, "bench", "generate_layout"), WORK, "100000", "plain"],
                   check=True, stdout=subprocess.DEVNULL)
    parses, jsons, checks = [], [], []

    def parse_once(name):
        warm(name)
        out = subprocess.run([os.path.join(BUILD, "bench", "parse_once"), name],
                             check=True, capture_output=True, text=True).stdout.split()
        return float(out[0])

    for _ in range(max(RUNS, 11)):
        parses.append(parse_once("plain.dud"))
        jsons.append(parse_once("plain.json"))
        checks.append(wall([DUDLEY, "check", "plain.dud"], ["plain.dud"]))
    parse, check = statistics.median(parses), statistics.median(checks)
    json_parse = statistics.median(jsons)
    print(f"3. first parse of the plain 100,000-array layout in a fresh process: "
          f"{parse * 1000:.1f} ms (issue 21's target <= 30 ms: "
          f"{'met' if parse <= 0.030 else 'NOT met'}; issue 41's <= 15 ms: "
          f"{'met' if parse <= 0.015 else 'NOT met'}); simdjson's DOM of the same content as "
          f"JSON: {json_parse * 1000:.1f} ms ({parse / json_parse:.2f}x it); "
          f"`dudley check` as a whole command: {check * 1000:.1f} ms (target <= 30 ms: "
          f"{'met' if check <= 0.030 else 'NOT met'})")
    runs = max(RUNS, 11)
    results.record("first parse of the plain 100,000-array layout, fresh process (target 15 ms)",
                   parse * 1000, "simdjson's DOM, the same content as JSON", json_parse * 1000,
                   "<= 15 ms", parse <= 0.015, runs)
    results.record("dudley check of that layout, whole command (target 30 ms)", check * 1000,
                   "simdjson's DOM parse alone", json_parse * 1000, "<= 30 ms", check <= 0.030,
                   runs)


PEER_FROMFILE = """
import sys, time, numpy as np
t0 = time.perf_counter()
a = np.fromfile(sys.argv[1], "<f8")
print(time.perf_counter() - t0, a.sum())
"""


def read_case():
    np.random.default_rng(2).standard_normal((1 << 30) // 8).tofile("gib_read.bin")
    open("gib_read.dud", "w").write(f"x = <f8[{(1 << 30) // 8}]\n")

    def timed(cmd):
        warm("gib_read.bin")
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split()
        return float(out[0])

    ours, theirs = side_by_side(
        lambda: timed([os.path.join(BUILD, "bench", "read_once"), "gib_read.bin", "/x"]),
        lambda: timed([PY, "-c", PEER_FROMFILE, "gib_read.bin"]))
    report("4. 1 GiB read into new memory, fresh processes, vs numpy.fromfile", ours, theirs, 0.9)
    clean("gib_read.bin", "gib_read.dud")


try:
    blocks_case()
    copy_case()
    parse_case()
    read_case()
finally:
    if OWN_WORK:
        os.chdir("/")
        shutil.rmtree(WORK, ignore_errors=True)
