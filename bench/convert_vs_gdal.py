#!/usr/bin/python3
"""Issue 41, item 8: conversions against GDAL's gdalmdimtranslate (Debian's gdal-bin), the
tool our users already have, on a netCDF-4 file as climate models write them: one float32
variable 256 x 512 x 512, zlib level 1, chunks 8 x 512 x 512 (207 MB). Whole commands in
fresh processes, alternating, medians of RUNS; each input read right before each run and the
previous run's writes flushed. Peak memory (GNU time's %M) is the median run's.

1. netCDF-4 -> Zarr v2, uncompressed (GDAL 3.6 writes Zarr uncompressed only), chunks as
   GDAL chooses them (1 x 256 x 256). Target >= 1.5x.
2. netCDF-4 -> Zarr v3 with zstd (dudley's default), against GDAL's uncompressed Zarr v2.
3. Zarr v2 (uncompressed) -> netCDF-4, uncompressed on both sides. Target >= 1.5x.
4. Zarr v2 (zstd, from dudley) -> netCDF-4: dudley keeps it compressed (deflate: HDF5 has
   no zstd every reader has), GDAL writes it uncompressed.
5. The reading half: the whole variable out of the netCDF-4 file (`dudley dump --binary
   raw`), against h5py reading it whole in a fresh python3. Target >= 0.9x.
6. Listing: `dudley ls` against `gdalmdiminfo` of the netCDF-4 file and of a Zarr store.

Every output is checked against the input with h5py, netCDF4 or zarr before timing.

Usage: convert_vs_gdal.py BUILD_DIR [WORKDIR] [RUNS]
"""
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_runs import arguments, clean, warm  # noqa: E402
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD, WORK, OWN_WORK, RUNS = arguments(sys.argv, "convert-gdal-", 5)
DUDLEY = os.path.join(BUILD, "dudley")
PY = "/usr/bin/python3"
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)


def make_input():
    """The netCDF-4 file: smooth fields with a little noise, as a model's output."""
    if os.path.exists("big.nc"):
        return
    import netCDF4
    rng = np.random.default_rng(1)
    with netCDF4.Dataset("big.nc.tmp", "w") as ds:
        for name, n in (("t", 256), ("y", 512), ("x", 512)):
            ds.createDimension(name, n)
        v = ds.createVariable("v", "f4", ("t", "y", "x"), zlib=True, complevel=1,
                              chunksizes=(8, 512, 512))
        y, x = np.mgrid[0:512, 0:512].astype(np.float32)
        for t in range(0, 256, 8):
            v[t:t + 8] = np.stack([
                np.sin(x / 37 + (t + k) / 9) * np.cos(y / 23) +
                rng.standard_normal((512, 512), dtype=np.float32) * 0.01 for k in range(8)])
    os.rename("big.nc.tmp", "big.nc")


OUTPUTS = ("out.zarr", "out_gdal.zarr", "out.nc", "out_gdal.nc")


def timed(cmd, inputs):
    """(seconds, peak KiB) of `cmd` in a fresh process, inputs warm and old outputs gone."""
    clean(*OUTPUTS)
    warm(*inputs)
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    return seconds, int(r.stderr.strip().splitlines()[-1])


def side_by_side(name, ours, theirs, inputs, target=None, peer="gdalmdimtranslate"):
    """Alternating runs; prints and returns the ratio (peer time / ours)."""
    a, b = [], []
    for _ in range(RUNS):
        a.append(timed(ours, inputs))
        b.append(timed(theirs, inputs))
    ta = statistics.median(x[0] for x in a)
    tb = statistics.median(x[0] for x in b)
    ma = sorted(a)[len(a) // 2][1] // 1024
    mb = sorted(b)[len(b) // 2][1] // 1024
    ratio = tb / ta
    verdict = "" if target is None else \
        f" (target >= {target}x: {'met' if ratio >= target else 'NOT met'})"
    print(f"{name}: dudley {ta * 1000:.0f} ms ({ma} MiB), peer {tb * 1000:.0f} ms ({mb} MiB), "
          f"{ratio:.2f}x{verdict}", flush=True)
    results.record_speedup(f"{name} vs {peer}", ta, tb, target, RUNS)
    return ratio


def same_as_input(path, kind):
    import h5py
    want = h5py.File("big.nc", "r")["v"][...]
    if kind == "zarr":
        import zarr
        got = zarr.open_group(path, mode="r")["v"][...]
    else:
        got = h5py.File(path, "r")["v"][...]
    if not np.array_equal(got, want):
        sys.exit(f"{path}: differs from big.nc")


def versions():
    gdal = subprocess.run(["gdalmdimtranslate", "--version"], capture_output=True,
                          text=True).stdout.strip()
    import h5py
    return f"{gdal}; h5py {h5py.__version__} (libhdf5 {h5py.version.hdf5_version})"


make_input()
print(f"peers: {versions()}; {RUNS} runs each, medians", flush=True)

# Check the outputs first (and make the Zarr inputs of cases 3 and 4).
clean("ours_none.zarr", "ours_zstd.zarr", "gdal.zarr", "check.nc", *OUTPUTS)
subprocess.run([DUDLEY, "convert", "-q", "--zarr-format", "2", "--compressor", "none",
                "--chunks", "1,256,256", "big.nc", "ours_none.zarr"], check=True)
same_as_input("ours_none.zarr", "zarr")
subprocess.run([DUDLEY, "convert", "-q", "--zarr-format", "2", "big.nc", "ours_zstd.zarr"],
               check=True)
same_as_input("ours_zstd.zarr", "zarr")
subprocess.run(["gdalmdimtranslate", "-q", "big.nc", "gdal.zarr", "-of", "Zarr"], check=True)
same_as_input("gdal.zarr", "zarr")
for src in ("ours_none.zarr", "ours_zstd.zarr"):
    clean("check.nc")
    subprocess.run([DUDLEY, "convert", "-q", src, "check.nc", "--to", "hdf5"], check=True)
    same_as_input("check.nc", "hdf5")
    clean("check.nc")
    subprocess.run(["gdalmdimtranslate", "-q", src, "check.nc", "-of", "netCDF"], check=True)
    same_as_input("check.nc", "hdf5")
clean("check.nc")

side_by_side("1. netCDF-4 -> Zarr v2, uncompressed",
             [DUDLEY, "convert", "-q", "--zarr-format", "2", "--compressor", "none", "--chunks",
              "1,256,256", "big.nc", "out.zarr"],
             ["gdalmdimtranslate", "-q", "big.nc", "-of", "Zarr", "out_gdal.zarr"],
             ["big.nc"], 1.5)
side_by_side("2. netCDF-4 -> Zarr v3 zstd (GDAL: v2 uncompressed)",
             [DUDLEY, "convert", "-q", "big.nc", "out.zarr"],
             ["gdalmdimtranslate", "-q", "big.nc", "-of", "Zarr", "out_gdal.zarr"],
             ["big.nc"])
side_by_side("3. Zarr v2 -> netCDF-4, uncompressed",
             [DUDLEY, "convert", "-q", "--to", "hdf5", "ours_none.zarr", "out.nc"],
             ["gdalmdimtranslate", "-q", "ours_none.zarr", "-of", "netCDF", "out_gdal.nc"],
             ["ours_none.zarr"], 1.5)
side_by_side("4. Zarr v2 zstd -> netCDF-4 (dudley: deflate; GDAL: uncompressed)",
             [DUDLEY, "convert", "-q", "--to", "hdf5", "ours_zstd.zarr", "out.nc"],
             ["gdalmdimtranslate", "-q", "ours_zstd.zarr", "-of", "netCDF", "out_gdal.nc"],
             ["ours_zstd.zarr"])
side_by_side("5. the whole variable read (dump --binary raw)",
             ["sh", "-c", f"{DUDLEY} dump --binary raw big.nc /v > /dev/null"],
             [PY, "-c", "import h5py; h5py.File('big.nc', 'r')['v'][...]"],
             ["big.nc"], 0.9, peer="h5py")
side_by_side("6a. dudley ls, netCDF-4",
             [DUDLEY, "ls", "big.nc"], ["gdalmdiminfo", "big.nc"], ["big.nc"], peer="gdalmdiminfo")
side_by_side("6b. dudley ls, Zarr v2",
             [DUDLEY, "ls", "ours_zstd.zarr"], ["gdalmdiminfo", "ours_zstd.zarr"],
             ["ours_zstd.zarr/.zmetadata"], peer="gdalmdiminfo")
clean(*OUTPUTS)
if OWN_WORK:
    clean(WORK)
