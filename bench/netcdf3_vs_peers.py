#!/usr/bin/python3
"""netCDF classic files read through the Dudley layout their header makes, against the
peers, whole processes, fresh each run, alternating, medians (issue 36 targets):

- `ls` of a file of 1,000 variables         vs  `ncdump -h` (target: at most 1.2x)
- one whole variable (64 MiB of float32)     vs  netCDF4-python's v[:] in a fresh process
  (`dudley dump` is text: the read is measured through the Python module, `f[name][...]`,
  against `netCDF4.Dataset(path)[name][:]`; target: at least 0.9x netCDF4's speed)
- one variable from each of 1,000 files through `dudley layout`'s layout (dump --family
  --layout) vs open+pread+close of the same bytes (pread_files; target at most 1.2x)

Usage: netcdf3_vs_peers.py BUILD_DIR [RUNS]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import netCDF4
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_runs import wall, warm  # noqa: E402
import results  # noqa: E402  (bench/results.py: the table make bench writes)

build = os.path.abspath(sys.argv[1])
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
dudley = os.path.join(build, "dudley")
pread = os.path.join(build, "bench", "pread_files")
PY = "/usr/bin/python3"
env_py = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))


def median_pair(ours, peer, inputs):
    a, b = [], []
    for _ in range(runs):
        a.append(wall(ours, inputs))
        b.append(wall(peer, inputs))
    return statistics.median(a), statistics.median(b)


def report(what, ours, peer, peer_name):
    print(f"{what}: dudley {ours * 1000:.1f} ms, {peer_name} {peer * 1000:.1f} ms, "
          f"ratio {ours / peer:.2f}x")
    results.record_speedup(f"{what} vs {peer_name}", ours, peer, None, runs)


with tempfile.TemporaryDirectory() as tmp:
    many = os.path.join(tmp, "many.nc")
    with netCDF4.Dataset(many, "w", format="NETCDF3_64BIT_OFFSET") as d:
        d.createDimension("time", None)
        d.createDimension("x", 4)
        for i in range(1000):
            v = d.createVariable(f"var_{i}", "f4", ("time", "x") if i % 2 else ("x",))
            v.units = "K"
            v.long_name = f"variable number {i}"
    ours, peer = median_pair([dudley, "ls", many], ["ncdump", "-h", many], [many])
    report("ls, 1,000 variables", ours, peer, "ncdump -h")

    big = os.path.join(tmp, "big.nc")
    with netCDF4.Dataset(big, "w", format="NETCDF3_CLASSIC") as d:
        d.createDimension("y", 4096)
        d.createDimension("x", 4096)
        d.createVariable("v", "f4", ("y", "x"))[:] = np.ones((4096, 4096), "f4")
    read_ours = [PY, "-c", "import sys, dudley; a = dudley.open(sys.argv[1])['v'][...]; "
                 "assert a.shape == (4096, 4096)", big]
    read_peer = [PY, "-c", "import sys, netCDF4; d = netCDF4.Dataset(sys.argv[1]); "
                 "d.set_auto_mask(False); a = d['v'][:]; assert a.shape == (4096, 4096)", big]
    a, b = [], []
    for _ in range(runs):  # alternating; ours needs the build's package on its path
        warm(big)
        t0 = time.perf_counter()
        subprocess.run(read_ours, check=True, env=env_py)
        a.append(time.perf_counter() - t0)
        b.append(wall(read_peer, [big]))
    ours, peer = statistics.median(a), statistics.median(b)
    print(f"whole variable (64 MiB float32): dudley (Python) {ours * 1000:.1f} ms, netCDF4 "
          f"{peer * 1000:.1f} ms, speed {peer / ours:.2f}x netCDF4's")

    files = []
    for i in range(1000):
        path = os.path.join(tmp, f"run_{i:04d}.nc")
        with netCDF4.Dataset(path, "w", format="NETCDF3_CLASSIC") as d:
            d.createDimension("x", 512)
            d.createVariable("t", "f8", ("x",))[:] = np.full(512, float(i))
        files.append(path)
    layout = os.path.join(tmp, "run.dud")
    subprocess.run([dudley, "layout", files[0], "-o", layout], check=True)
    offset = int(open(layout).read().split("t = >f8[DIM_x] @ ")[1].split()[0])
    ours_cmd = [dudley, "dump", "--layout", layout, "--family", os.path.join(tmp, "run_*.nc"),
                "--max-values", "1", "/t[0]"]
    peer_cmd = [pread, str(offset), "4096", *files]
    ours, peer = median_pair(ours_cmd, peer_cmd, files)
    report("one variable of each of 1,000 files", ours, peer, "open+pread+close")
