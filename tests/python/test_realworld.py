"""Files other projects wrote for their own tests (tests/data/realworld/, sources and licenses
in SOURCES.md): every variable and attribute of the netCDF files compared with what the
netCDF4 module reads, classic and netCDF-4 (HDF5) alike, every dataset and attribute of the
HDF5 files (h5py's and pyfive's test files) with what h5py reads; each file also lists and
dumps whole through the CLI."""
import json
import os

import netCDF4
import numpy as np
import pytest

import dudley
from cli_runner import program, run

HERE = os.path.dirname(os.path.abspath(__file__))
REALWORLD = os.path.join(HERE, "..", "data", "realworld")
FILES = sorted(f for f in os.listdir(REALWORLD) if f.endswith(".nc"))
HDF5_FILES = sorted(f for f in os.listdir(REALWORLD) if f.endswith((".h5", ".hdf5")))


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


def same_attribute(got, want):
    """Attribute values alike, element by element (a NaN fill value equals NaN)."""
    got, want = np.asarray(got).ravel(), np.asarray(want).ravel()
    if want.dtype.kind == "f" and got.dtype.kind == "f":
        return np.array_equal(got, want, equal_nan=True)
    return got.tolist() == want.tolist()


def joined_chars(chars):
    """A char array as strings along its last dimension, bytes as they are (netCDF-C's own
    test files hold bytes 0x00-0xFF, which netCDF4.chartostring cannot decode)."""
    chars = np.ascontiguousarray(chars)
    return chars.view(f"S{chars.shape[-1]}")[..., 0]


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
                want = joined_chars(want)
            got = f[vpath][...]
            assert same(got, want), (vpath, got, want)
            for key in v.ncattrs():
                if key.startswith("_Netcdf4") or key == "_NCProperties":
                    continue
                a, b = f[vpath].attrs[key], v.getncattr(key)
                assert same_attribute(a, b), (vpath, key, a, b)
            compared += 1
        for key in d.ncattrs():
            a, b = f.attrs[key], d.getncattr(key)
            assert same_attribute(a, b), (key, a, b)
        assert compared > 0


def netcdf_name(item, h):
    """The member name netCDF gives the HDF5 object `item`: a variable named like a
    dimension it does not use is stored as "_nc4_non_coord_" and its name."""
    group, _, last = ("/" + item).rpartition("/")
    prefix = "_nc4_non_coord_"
    if last.startswith(prefix) and f"{group}/{last[len(prefix):]}" in h:
        return f"{group}/{last[len(prefix):]}".lstrip("/")
    return item


def plain(x):
    """An h5py value as plain Python (bytes decoded, records as dicts, arrays as lists)."""
    if isinstance(x, bytes):
        return x.decode("utf-8", "replace")
    if isinstance(x, np.void) and x.dtype.names:
        return {k: plain(x[k]) for k in x.dtype.names}
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return plain(x[()])
        if x.dtype.names or x.dtype == object or x.dtype.kind == "S":
            return [plain(v) for v in x]
        return x.tolist()
    if isinstance(x, np.generic):
        return plain(x.item()) if isinstance(x, np.bytes_) else x.item()
    return x


@pytest.mark.parametrize("name", HDF5_FILES)
def test_every_dataset_as_h5py_reads_it(name):
    import h5py
    path = os.path.join(REALWORLD, name)
    f = dudley.open(path)
    listing = json.loads(run("ls", path, "--json").stdout)
    seen = []

    def visit(item, obj):
        seen.append(item)
        if not isinstance(obj, h5py.Dataset):
            return
        if obj.dtype.kind == "O" and h5py.check_dtype(ref=obj.dtype):
            return  # references: compared by tests/interop/hdf5_peer_test.py through the CLI
        name = obj.attrs.get("NAME", b"")
        if isinstance(name, bytes) and name.startswith(b"This is a netCDF dimension but not"):
            # A netCDF dimension without a variable: a parameter of its group, no array.
            group, _, dim = ("/" + item).rpartition("/")
            node = listing["root"]
            for part in filter(None, group.split("/")):
                node = node["members"][part]
            assert node["params"][dim]["value"] == obj.shape[0], item
            # The member of its name, if any, is the variable netCDF stores as
            # "_nc4_non_coord_" and the name.
            if dim in node.get("members", {}):
                assert f"{group}/_nc4_non_coord_{dim}" in obj.file, item
            return
        want = np.asarray(obj[()])
        ours_item = "/" + netcdf_name(item, obj.file)
        got = np.asarray(f[ours_item][...])
        assert np.array_equal(got, want) or plain(got) == plain(want), item
        for key, value in obj.attrs.items():
            if key in ("DIMENSION_LIST", "REFERENCE_LIST", "CLASS", "NAME", "_Netcdf4Dimid",
                       "_Netcdf4Coordinates"):
                continue
            ours = f[ours_item].attrs[key]
            assert plain(np.asarray(ours)) == plain(np.asarray(value)), (item, key)

    def h5py_misreads(value):
        # h5py 3.7 reads variable-length sequences of big-endian numbers unswapped; h5dump
        # reads them as we do (checked below for pyfive_attr_datatypes' vlen_uint64).
        base = h5py.check_dtype(vlen=value)
        return isinstance(base, np.dtype) and base.byteorder == ">"

    with h5py.File(path, "r") as h:
        h.visititems(visit)
        for key, value in h.attrs.items():
            if key == "_NCProperties" or h5py_misreads(h.attrs.get_id(key).dtype):
                continue
            assert plain(np.asarray(f.attrs[key])) == plain(np.asarray(value)), key
    assert seen or len(f.attrs)  # something of the file was compared
    if name == "pyfive_attr_datatypes.hdf5":
        dump = program("h5dump", "-a", "vlen_uint64", path)
        assert "(0): (1, 2), (3, 4, 5), (42)" in dump.stdout
        assert [v.tolist() for v in f.attrs["vlen_uint64"]] == [[1, 2], [3, 4, 5], [42]]


@pytest.mark.parametrize("name", FILES + HDF5_FILES)
def test_cli_lists_and_dumps_the_whole_file(name):
    path = os.path.join(REALWORLD, name)
    for args in (["ls", path], ["ls", "--json", path], ["dump", "--json", path]):
        p = run(*args)
        assert p.returncode == 0, (args, p.stderr)
    json.loads(p.stdout)


ALL_FILES = sorted(f for f in os.listdir(REALWORLD) if f.endswith((".h5", ".hdf5", ".nc")))


@pytest.mark.parametrize("name", ALL_FILES)
def test_real_files_convert_whole_or_name_what_they_lose(name, tmp_path):
    """Every real file to HDF5, Zarr v2 and ASDF: carried whole (exit 0, nothing lost), or
    refused naming each item it cannot carry (exit 1), never another failure; --lossy then
    writes a file the format's peer opens, and every numeric dataset not listed as lost has
    h5py's values there."""
    import asdf
    import h5py
    import zarr
    path = os.path.join(REALWORLD, name)
    with open(path, "rb") as f:
        hdf5 = f.read(8) == b"\x89HDF\r\n\x1a\n"  # netCDF-4 too; classic files are compared
    options = []                                      # by the netCDF tests
    for target, extra in [("out.h5", []), ("out.zarr", ["--zarr-format", "2"]),
                          ("out.asdf", [])]:
        out = str(tmp_path / target)
        r = run("convert", *options, *extra, path, out, "--json")
        assert r.returncode in (0, 1), (name, target, r.stderr)
        if r.returncode == 1:
            error = json.loads(r.stdout)["error"]
            assert error["code"] == "loss" and error["lost"], (name, target, error)
            assert not os.path.exists(out)
            r = run("convert", "--lossy", *options, *extra, path, out, "--json")
            assert r.returncode == 0, (name, target, r.stderr)
        lost = json.loads(r.stdout)["lost"]
        if target == "out.h5":
            opened = h5py.File(out, "r")
        elif target == "out.zarr":
            opened = zarr.open(out, "r")
        else:
            opened = asdf.open(out)
        with opened:
            if not hdf5:
                continue
            with h5py.File(path, "r") as h:
                def compare(item, obj):
                    if not isinstance(obj, h5py.Dataset) or obj.dtype.kind not in "iufb":
                        return
                    dimension = obj.attrs.get("NAME", b"")
                    if isinstance(dimension, bytes) and dimension.startswith(b"This is a netCDF"):
                        return  # a netCDF dimension without a variable: a parameter
                    if obj.shape is None or any(x.startswith("/" + item) for x in lost):
                        return
                    if target != "out.h5":  # HDF5 keeps netCDF's stored names
                        item = netcdf_name(item, h)
                    if target == "out.asdf":
                        node = opened.tree
                        for part in item.split("/"):
                            node = node[part]
                        got = np.asarray(node)
                    else:
                        got = opened[item][()] if target == "out.h5" else opened[item][...]
                    assert np.array_equal(got, obj[()], equal_nan=obj.dtype.kind == "f"), \
                        (name, target, item)
                h.visititems(compare)
