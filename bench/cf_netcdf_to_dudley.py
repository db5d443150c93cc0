#!/usr/bin/python3
"""Issue 64: converting a CF netCDF-4 file of VARS variables to Dudley, beside xarray.

netCDF4 writes a CF file: a `time` coordinate (units, calendar), `lat` and `lon`
coordinates, and VARS float32 variables (time, lat, lon) of 8 x 16 x 32 each with `units`,
`long_name`, `standard_name` and a `_FillValue`, and a global `title` and `history`. Timed
as a user pays it, each a whole fresh process, the file read right before (page cache
warm), medians of RUNS runs in alternating order:
- `dudley convert cf.nc cf.bin` (every attribute, dimension name and fill value carried);
- `python3 -c "xarray.open_dataset(cf.nc).to_netcdf(copy.nc)"`, the strongest peer for
  carrying a CF file with its metadata to another file.
Both outputs are checked: xarray opens the Dudley copy (engine="dudley") as the same
Dataset as the source.

Target: dudley at least 2x faster than xarray.

Usage: cf_netcdf_to_dudley.py BUILD_DIR [WORKDIR] [RUNS] [VARS]
"""
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_runs import arguments_with_numbers, clean, wall  # noqa: E402
import results  # noqa: E402

BUILD, WORK, OWN_WORK, numbers = arguments_with_numbers(sys.argv, "cf-netcdf-")
RUNS = int(numbers[0]) if numbers else 5
VARS = int(numbers[1]) if len(numbers) > 1 else 1000
DUDLEY = os.path.join(BUILD, "dudley")
PY = "/usr/bin/python3"

WRITE = f"""
import numpy as np, netCDF4
with netCDF4.Dataset("cf.nc", "w", format="NETCDF4") as d:
    d.title = "bench"
    d.history = "written by bench/cf_netcdf_to_dudley.py"
    for name, n in (("time", 8), ("lat", 16), ("lon", 32)):
        d.createDimension(name, n)
    t = d.createVariable("time", "f8", ("time",))
    t.units = "days since 2000-01-01"
    t.calendar = "noleap"
    t[:] = np.arange(8.0)
    for name, n in (("lat", 16), ("lon", 32)):
        v = d.createVariable(name, "f4", (name,))
        v.units = "degrees"
        v[:] = np.linspace(-80, 80, n)
    x = np.random.default_rng(0).random((8, 16, 32), dtype="f4")
    for i in range({VARS}):
        v = d.createVariable(f"v{{i:04d}}", "f4", ("time", "lat", "lon"),
                             fill_value=np.float32(1e20))
        v.units = "K"
        v.long_name = f"variable {{i}}"
        v.standard_name = "air_temperature"
        v[:] = x + i
"""

XARRAY = "import xarray; xarray.open_dataset('cf.nc').to_netcdf('copy.nc')"

CHECK = f"""
import sys, xarray
sys.path.insert(0, {os.path.join(BUILD, 'python')!r})
import dudley
a = xarray.open_dataset("cf.nc")
b = xarray.open_dataset("cf.bin", engine="dudley")
xarray.testing.assert_identical(a, b)
"""


def main():
    os.makedirs(WORK, exist_ok=True)
    os.chdir(WORK)
    subprocess.run([PY, "-c", WRITE], check=True)
    ours, theirs = [], []
    for run in range(RUNS):
        order = [([DUDLEY, "convert", "-q", "cf.nc", "cf.bin"], ours, ("cf.bin", "cf.dud")),
                 ([PY, "-c", XARRAY], theirs, ("copy.nc",))]
        for cmd, into, outputs in order if run % 2 == 0 else reversed(order):
            clean(*outputs)
            into.append(wall(cmd, ["cf.nc"]))
    subprocess.run([PY, "-c", CHECK], check=True)
    a = statistics.median(ours)
    b = statistics.median(theirs)
    print(f"CF netCDF-4 of {VARS} variables ({os.path.getsize('cf.nc') / 1e6:.1f} MB); "
          f"medians of {RUNS} fresh processes")
    print(f"  dudley convert to Dudley          {a:7.3f} s")
    print(f"  xarray open_dataset + to_netcdf   {b:7.3f} s")
    print(f"  dudley is {b / a:.2f}x faster (target >= 2x: {'met' if b / a >= 2 else 'NOT met'})")
    results.record_speedup(f"convert a CF netCDF-4 file of {VARS} variables to Dudley vs "
                           "xarray open_dataset + to_netcdf", a, b, target=2.0, runs=RUNS)
    if OWN_WORK:
        os.chdir("/")
        clean(WORK)


if __name__ == "__main__":
    main()
