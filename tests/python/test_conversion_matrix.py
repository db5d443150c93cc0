"""The conversion matrix of issue 37: files written by each peer (h5py, netCDF4, python3-zarr,
python-asdf, numpy, and our own Dudley writer), converted to every format that can hold them,
read back by that format's peer (h5py, python3-zarr, python-asdf with validation, numpy; our
reader for Zarr v3 and Dudley, which have no Python peer here) and compared array by array
with the values the peer wrote. A conversion either carries everything or fails naming what
it cannot carry; the losses each pair may have are listed here, and nothing else is lost."""
import json
import re

import asdf
import h5py
import netCDF4
import numpy as np
import pytest
import zarr

import dudley
from cli_runner import run

STRUCT = np.dtype([("a", "<i4"), ("b", "<f8"), ("s", "S3")])


def values():
    st = np.zeros(3, STRUCT)
    st["a"] = [1, 2, 3]
    st["b"] = [0.5, -1, 2e10]
    st["s"] = [b"ab", b"cde", b""]
    return {
        "/grid/x": np.linspace(0, 1, 5),
        "/grid/i": np.arange(-3, 3, dtype="<i2").reshape(2, 3),
        "/be": np.arange(4, dtype=">i4"),
        "/s": np.array([b"ab", b"wxyz"], "S4"),
        "/st": st,
    }


def make_h5(path, v):
    with h5py.File(path, "w") as f:
        for k, a in v.items():
            f[k] = a
        f["grid/x"].attrs["units"] = "m"


def make_nc(path, v):
    with netCDF4.Dataset(path, "w") as d:
        g = d.createGroup("grid")
        g.createDimension("n", 5)
        g.createDimension("r", 2)
        g.createDimension("c", 3)
        x = g.createVariable("x", "f8", ("n",))
        x[:] = v["/grid/x"]
        x.units = "m"
        i = g.createVariable("i", "i2", ("r", "c"))
        i[:] = v["/grid/i"]
    return {k: v[k] for k in ("/grid/x", "/grid/i")}


def make_zarr(path, v):
    g = zarr.open_group(path, mode="w")
    for k, a in v.items():
        g.create_dataset(k.lstrip("/"), data=a, chunks=tuple(max(1, n // 2) for n in a.shape))
    g["grid/x"].attrs["units"] = "m"


def make_asdf(path, v):
    tree = {"grid": {"x": v["/grid/x"], "i": v["/grid/i"]}, "be": v["/be"], "st": v["/st"],
            "s": v["/s"]}
    asdf.AsdfFile(tree).write_to(path)


def make_dudley(path, v, tmp):
    src = str(tmp / "dud_src.h5")
    make_h5(src, v)
    r = run("convert", "--lossy", src, path)  # Dudley holds no attribute values
    assert r.returncode == 0, r.stderr


def read_h5(path, key):
    with h5py.File(path) as f:
        return f[key][()]


def read_zarr2(path, key):
    return zarr.open_group(path, "r")[key.lstrip("/")][:]


def read_asdf(path, key):
    with asdf.open(path, validate_checksums=True) as f:
        node = f.tree
        for part in key.strip("/").split("/"):
            node = node[part]
        return np.asarray(node[...]).copy()


def read_ours(path, key):
    return dudley.open(path)[key.lstrip("/")][...]


TARGETS = {
    "h5": ("out.h5", [], read_h5),
    "zarr2": ("out.zarr", ["--zarr-format", "2"], read_zarr2),
    "zarr3": ("out3.zarr", [], read_ours),
    "asdf": ("out.asdf", [], read_asdf),
    "dudley": ("out.bin", [], read_ours),
}

# What each pair may lose (regular expressions of the lost items); anything else is a bug.
ALLOWED = {
    ("*", "dudley"): [r"^/grid/x@units: attribute not written", r"^/@"],
    ("*", "zarr3"): [r"^/st: Zarr v3 has no data type"],
    # netCDF dimensions and fill values: a layout has no place for their names, coordinates
    # or the _FillValue marking missing values.
    ("nc", "dudley"): [r"@(dimension_names|dimension_coordinates|fill_value): attribute not "
                        r"written"],
}


def allowed(source, target):
    out = []
    for (s, t), patterns in ALLOWED.items():
        if s in ("*", source) and t in ("*", target):
            out += patterns
    return out


def plain(a):
    """Values as Python lists, bytes as text, for comparison across readers."""
    a = np.asarray(a)
    if a.dtype.names:
        return [tuple(plain(np.asarray(row[n])) for n in a.dtype.names) for row in a]
    if a.dtype.kind == "O" or a.dtype.kind == "S":
        return [x.decode() if isinstance(x, bytes) else x for x in a.ravel().tolist()]
    return a.astype(a.dtype.newbyteorder("=")).tolist()


SOURCES = ["h5", "nc", "zarr", "asdf", "dudley"]


@pytest.mark.parametrize("source", SOURCES)
def test_every_source_to_every_target(tmp_path, source):
    v = values()
    src = str(tmp_path / {"h5": "src.h5", "nc": "src.nc", "zarr": "src.zarr",
                          "asdf": "src.asdf", "dudley": "src.bin"}[source])
    if source == "h5":
        make_h5(src, v)
    elif source == "nc":
        v = make_nc(src, v)
    elif source == "zarr":
        make_zarr(src, v)
    elif source == "asdf":
        make_asdf(src, v)
    else:
        make_dudley(src, v, tmp_path)
    args = ["--format", "hdf5"] if source == "nc" else []
    for target, (name, options, read) in TARGETS.items():
        out = str(tmp_path / name)
        r = run("convert", *args, *options, src, out, "--json")
        if r.returncode != 0:
            assert r.returncode == 1, (source, target, r.stdout, r.stderr)
            lost = json.loads(r.stdout)["error"]["lost"]
            patterns = allowed(source, target)
            unexpected = [item for item in lost if not any(re.search(p, item) for p in patterns)]
            assert not unexpected, (source, target, unexpected)
            r = run("convert", *args, *options, "--lossy", src, out, "--json")
            assert r.returncode == 0, (source, target, r.stderr)
            assert sorted(json.loads(r.stdout)["lost"]) == sorted(lost)
        lost = json.loads(r.stdout)["lost"]
        for key, expected in v.items():
            if any(item.startswith(key + ":") for item in lost):
                continue  # listed as left out
            got = read(out, key)
            assert plain(got) == plain(expected), (source, target, key)


def test_npy_takes_one_array_of_any_source(tmp_path):
    v = values()
    src = str(tmp_path / "src.h5")
    make_h5(src, v)
    for key in ["/grid/i", "/st", "/be"]:
        out = str(tmp_path / "one.npy")
        r = run("convert", src, out, key)
        assert r.returncode == 0, (key, r.stderr)
        assert plain(np.load(out)) == plain(v[key]), key
    r = run("convert", src, str(tmp_path / "x.npy"), "/grid/x")
    assert r.returncode == 1 and "/grid/x@units" in r.stderr  # its attribute has no place
