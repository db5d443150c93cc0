"""Files other projects wrote for their own tests (tests/data/realworld/, sources and licenses
in SOURCES.md): every variable and attribute compared with what the netCDF4 module reads,
classic and netCDF-4 (HDF5) files alike; each also lists and dumps whole through the CLI."""
import json
import os
import subprocess

import netCDF4
import numpy as np
import pytest

import dudley

DUDLEY = os.environ.get("DUDLEY_BIN", "dudley")
HERE = os.path.dirname(os.path.abspath(__file__))
REALWORLD = os.path.join(HERE, "..", "data", "realworld")
FILES = sorted(f for f in os.listdir(REALWORLD) if f.endswith((".nc", ".h5")))


def variables(group, prefix=""):
    for name, v in group.variables.items():
        yield prefix + "/" + name, v
    for name, g in group.groups.items():
        yield from variables(g, prefix + "/" + name)


def same(got, want):
    if want.dtype == object or got.dtype == object:
        return [np.asarray(x).tolist() for x in np.ravel(got)] == \
               [np.asarray(x).tolist() for x in np.ravel(want)]
    if want.dtype.kind == "f":
        return np.array_equal(got, want, equal_nan=True)
    return np.array_equal(got, want)


@pytest.mark.parametrize("name", FILES)
def test_every_variable_as_netcdf4_reads_it(name):
    path = os.path.join(REALWORLD, name)
    f = dudley.open(path)
    with netCDF4.Dataset(path) as d:
        d.set_auto_maskandscale(False)
        compared = 0
        for vpath, v in variables(d):
            want = np.asarray(v[...])
            if v.dtype == "S1" and want.ndim:
                want = netCDF4.chartostring(want).astype("S")
            got = f[vpath][...]
            assert same(got, want), (vpath, got, want)
            for key in v.ncattrs():
                if key.startswith("_Netcdf4") or key == "_NCProperties":
                    continue
                a, b = f[vpath].attrs[key], v.getncattr(key)
                assert np.asarray(a).ravel().tolist() == np.asarray(b).ravel().tolist(), (vpath, key)
            compared += 1
        for key in d.ncattrs():
            a, b = f.attrs[key], d.getncattr(key)
            assert np.asarray(a).ravel().tolist() == np.asarray(b).ravel().tolist(), key
        assert compared > 0


@pytest.mark.parametrize("name", FILES)
def test_cli_lists_and_dumps_the_whole_file(name):
    path = os.path.join(REALWORLD, name)
    for args in (["ls", path], ["ls", "--json", path], ["dump", "--json", path]):
        p = subprocess.run([DUDLEY, *args], capture_output=True, text=True)
        assert p.returncode == 0, (args, p.stderr)
    json.loads(p.stdout)
