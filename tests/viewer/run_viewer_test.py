#!/usr/bin/python3
"""Runs tests/viewer/viewer_test.mjs (playwright-core driving Debian's chromium) against
`dudley view` of the same arrays in every format: HDF5 (h5py), netCDF-4 (netCDF4), Zarr v2
(python3-zarr), ASDF (python3-asdf), .npy (numpy), raw bytes through a Dudley layout, and a
family of HDF5 files (a group per member). Each
server runs on 127.0.0.1, started here and always stopped. The colours the page must show
come from matplotlib, the values from numpy.

Usage: run_viewer_test.py DUDLEY_BIN ARTIFACTS_DIR
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

import numpy as np
from matplotlib import colormaps

HERE = os.path.dirname(os.path.abspath(__file__))
DUDLEY, ARTIFACTS = sys.argv[1], os.path.abspath(sys.argv[2])
os.makedirs(ARTIFACTS, exist_ok=True)
CUBE = (np.arange(3 * 6 * 8, dtype="<f8").reshape(3, 6, 8) * 1.5 - 7) ** 2  # distinct per slice
LINE = np.sin(np.arange(500) / 20.0)
MASK = np.zeros(CUBE.shape, bool)
MASK[2, 5, 7] = True


def colours(slice_, cmap, mask=None):
    """What the page must show at each cell: matplotlib's colour of the value between the
    least and greatest values not masked, cyan where a mask hides the value."""
    mask = np.zeros(slice_.shape, bool) if mask is None else mask
    lo, hi = slice_[~mask].min(), slice_[~mask].max()
    rows, cols = slice_.shape
    return [{"row": r, "col": c, "rows": rows, "cols": cols, "value": float(slice_[r, c]),
             "rgb": [0, 255, 255] if mask[r, c] else
             [int(x) for x in colormaps[cmap](float((slice_[r, c] - lo) / (hi - lo)),
                                             bytes=True)[:3]]}
            for r in range(rows) for c in range(cols)]


def write_files(d):
    """name -> (path, extra options, tree items, array path, line path or None, search)."""
    import asdf
    import h5py
    import netCDF4
    import zarr
    out = {}
    with h5py.File(f"{d}/a.h5", "w") as f:
        f["cube"] = CUBE
        f["g/line"] = LINE
        # 2 MiB strings, mostly never written: a table page of 50 x 20 would read 2 GB, so
        # the server answers pages of 1 x 20 (64 MiB) and the buttons move by that.
        names = f.create_dataset("g/names", shape=(6, 40), dtype="S2097152", chunks=(1, 1),
                                 compression="gzip")
        names[1, 3] = b"row 1 col 3"
    out["hdf5"] = (f"{d}/a.h5", [], ["/cube", "/g", "/g/line", "/g/names"], "/cube", "/g/line",
                   ("line", ["/g", "/g/line"]))
    with netCDF4.Dataset(f"{d}/a.nc", "w") as n:
        for name, size in (("t", 3), ("y", 6), ("x", 8), ("n", 500)):
            n.createDimension(name, size)
        n.createVariable("cube", "f8", ("t", "y", "x"))[:] = CUBE
        n.createVariable("line", "f8", ("n",))[:] = LINE
    out["netcdf"] = (f"{d}/a.nc", [], ["/cube", "/line"], "/cube", "/line", ("cu", ["/cube"]))
    root = zarr.open_group(f"{d}/a.zarr", mode="w")
    root.create_dataset("cube", data=CUBE, chunks=(1, 3, 4))
    root.create_group("g").create_dataset("line", data=LINE, chunks=(100,))
    out["zarr"] = (f"{d}/a.zarr", [], ["/cube", "/g", "/g/line"], "/cube", "/g/line",
                   ("line", ["/g", "/g/line"]))
    # ASDF: the cube masked at the greatest value of slice 2, which then shows in cyan.
    asdf.AsdfFile({"cube": np.ma.array(CUBE, mask=MASK), "line": LINE}).write_to(f"{d}/a.asdf")
    out["asdf"] = (f"{d}/a.asdf", [], ["/cube", "/cube_mask", "/line"], "/cube", "/line",
                   ("line", ["/line"]))  # python3-asdf keeps the mask as an array of its own
    np.save(f"{d}/a.npy", CUBE)  # one array, the root
    out["npy"] = (f"{d}/a.npy", [], ["/"], "/", None, None)
    raw = np.concatenate([CUBE.ravel(), LINE]).astype("<f8")
    raw.tofile(f"{d}/a.bin")
    with open(f"{d}/a.dud", "w") as f:
        f.write("cube = <f8[3, 6, 8]\nline = <f8[500]\n")
    out["dudley"] = (f"{d}/a.bin", ["--layout", f"{d}/a.dud"], ["/cube", "/line"], "/cube", "/line",
                     ("cube", ["/cube"]))
    # A family: a group per member, named by its file (quoted in item paths: '/"m_1.h5"/cube').
    os.makedirs(f"{d}/fam")
    for i in range(2):
        with h5py.File(f"{d}/fam/m_{i}.h5", "w") as f:
            f["cube"] = CUBE + (0 if i == 1 else 1000)
            f["line"] = LINE
    members = [f'/"m_{i}.h5"' for i in range(2)]
    out["family"] = (None, ["--family", f"{d}/fam/m_*.h5"],
                     members + [f"{m}/{a}" for m in members for a in ("cube", "line")],
                     '/"m_1.h5"/cube', '/"m_1.h5"/line',
                     ("m_1", ['/"m_1.h5"', '/"m_1.h5"/cube', '/"m_1.h5"/line']))
    return out


def run_case(name, path, extra, items, array, line, search):
    mask = MASK[2] if name == "asdf" else None
    p = subprocess.Popen([DUDLEY, "view", *([path] if path else []), "--json", *extra],
                         stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        started = p.stdout.readline()
        if not started:
            return f"{name}: dudley view did not start: {p.stderr.read()}"
        case = {
            "name": name, "url": json.loads(started)["url"], "items": items,
            "search": {"text": search[0], "visible": search[1]} if search else None,
            "array": {"path": array, "first": {"cells": colours(CUBE[0], "viridis")},
                      "second": {"index": 2, "cells": colours(CUBE[2], "viridis", mask),
                                 "magma_reversed": colours(CUBE[2], "magma_r", mask),
                                 "table": [[None if mask is not None and mask[r, c] else v
                                            for c, v in enumerate(row)]
                                           for r, row in enumerate(CUBE[2].tolist())]}},
            "line": {"path": line, "length": len(LINE)},
        }
        if name == "hdf5":
            import h5py
            with h5py.File(path) as f:  # the second page's first row as h5py reads it
                second = [v.decode() for v in f["g/names"][1, :20]]
            case["paging"] = {"path": "/g/names", "first": "rows 0 to 0 of 6, columns 0 to 19 of 40",
                              "second": "rows 1 to 1 of 6, columns 0 to 19 of 40", "row": second}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(case, f)
        r = subprocess.run(["node", os.path.join(HERE, "viewer_test.mjs"), f.name, ARTIFACTS],
                           capture_output=True, text=True, timeout=180)
        os.unlink(f.name)
        sys.stdout.write(r.stdout)
        return None if r.returncode == 0 else (r.stderr or r.stdout)
    finally:
        p.send_signal(signal.SIGINT)
        try:
            if p.wait(timeout=15) != 0:
                return f"{name}: dudley view exited {p.returncode}: {p.stderr.read()}"
        except subprocess.TimeoutExpired:
            p.kill()
            return f"{name}: dudley view did not stop on SIGINT"


def main():
    failures = []
    with tempfile.TemporaryDirectory() as d:
        for name, args in write_files(d).items():
            problem = run_case(name, *args)
            if problem:
                failures.append(problem)
    for f in failures:
        print(f, file=sys.stderr)
    print(f"screenshots in {ARTIFACTS}")
    sys.exit(1 if failures else 0)


main()
