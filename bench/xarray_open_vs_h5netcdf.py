#!/usr/bin/env python3
"""Issue 38's second speed target, in fresh processes, alternating, medians, page cache warm:
`xarray.open_dataset(path, engine=E)` of a netCDF-4 file with 1,000 variables (each 100
float32 values along one of 10 dimensions, with units and a _FillValue), engine "dudley"
against "h5netcdf" (and "netcdf4" for reference). Only the open is timed (what a user
waits for before touching data); the check after it reads one variable.
Target: dudley at most 1.2x h5netcdf's time.

Usage: xarray_open_vs_h5netcdf.py BUILD_DIR [RUNS]   (data in $DUDLEY_BENCH_DIR or /tmp/dudley-bench)
"""
import os
import statistics
import subprocess
import sys

import netCDF4
import numpy as np

from fresh_runs import warm
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.abspath("build")
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
ROOT = os.environ.get("DUDLEY_BENCH_DIR", "/tmp/dudley-bench")


def make():
    path = os.path.join(ROOT, "vars1000.nc")
    if not os.path.exists(path):
        os.makedirs(ROOT, exist_ok=True)
        with netCDF4.Dataset(path + ".tmp", "w") as d:
            for k in range(10):
                d.createDimension(f"d{k}", 100)
            for i in range(1000):
                v = d.createVariable(f"v{i:04d}", "f4", (f"d{i % 10}",), fill_value=np.float32(-1))
                v.units = "m"
                v[:] = np.arange(100, dtype="f4") + i
        os.rename(path + ".tmp", path)
    return path


CODE = ("import sys, time\nimport xarray as xr\n"
        "import dudley\n"
        "t = time.perf_counter()\nds = xr.open_dataset(sys.argv[1], engine=sys.argv[2])\n"
        "t = time.perf_counter() - t\n"
        "assert len(ds.data_vars) == 1000 and float(ds['v0007'][3]) == 10.0\nprint(t)")


def once(engine, path):
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    warm(path)
    out = subprocess.run(["/usr/bin/python3", "-c", CODE, path, engine], env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[-1])


def main():
    path = make()
    times = {"dudley": [], "h5netcdf": [], "netcdf4": []}
    for _ in range(RUNS):
        for engine in times:
            times[engine].append(once(engine, path))
    med = {e: statistics.median(t) for e, t in times.items()}
    print(f"xr.open_dataset of 1,000 variables, fresh processes, {RUNS} alternating runs, medians")
    for engine, t in med.items():
        print(f"  {engine:9} {t * 1e3:8.1f} ms   {t / med['h5netcdf']:5.2f}x h5netcdf")
        if engine != "dudley":
            results.record_speedup(f"xr.open_dataset of 1,000 variables, engine dudley vs "
                                   f"engine {engine}", med["dudley"], t, None, RUNS)


if __name__ == "__main__":
    main()
