"""The conversion matrix of issue 37: sources written by each peer (h5py, netCDF4,
python3-zarr, zarrita, python-asdf, numpy, python3-avro, an NDL document as a person writes
it, and our own Dudley writer), converted to every format, read back by that format's peer
(h5py, python3-zarr, zarrita, python-asdf with validation, numpy, python3-avro, PyYAML for
NDL's text; our reader for Dudley, which has no other) and compared item by item: values,
types, shapes, attributes and fill values. A conversion either carries everything or fails
naming what it cannot carry; the losses each pair may have are listed here, and nothing else
is lost. Every case runs in text and in --json, and both must agree."""
import json
import os
import re
import subprocess

import asdf
import avro.datafile
import avro.io
import avro.schema
import h5py
import netCDF4
import numpy as np
import pytest
import yaml
import zarr

import dudley
from cli_runner import run

HERE = os.path.dirname(os.path.abspath(__file__))
ZARRITA = os.path.join(HERE, "..", "interop", "zarrita_peer.mjs")
STRUCT = np.dtype([("a", "<i4"), ("b", "<f8"), ("s", "S3")])
NDARRAY_SCHEMA = {"type": "record", "name": "ndarray", "logicalType": "ndarray", "fields": [
    {"name": "shape", "type": {"type": "array", "items": "int"}},
    {"name": "typestr", "type": "string"}, {"name": "data", "type": "bytes"},
    {"name": "version", "type": "int"}]}


class Item:
    """What a source holds at one path: its values, the attributes and fill value a target
    that has a place for them must carry."""

    def __init__(self, values, attrs=None, fill=None):
        self.values = np.asarray(values)
        self.attrs = attrs or {}
        self.fill = fill


def values():
    st = np.zeros(3, STRUCT)
    st["a"] = [1, 2, 3]
    st["b"] = [0.5, -1, 2e10]
    st["s"] = [b"ab", b"cde", b""]
    return {
        "/grid/x": Item(np.linspace(0, 1, 5), {"units": "m"}),
        "/grid/i": Item(np.arange(-3, 3, dtype="<i2").reshape(2, 3), fill=-7),
        "/be": Item(np.arange(4, dtype=">i4")),
        "/s": Item(np.array([b"ab", b"wxyz"], "S4")),
        "/st": Item(st),
    }


# Sources: each writes a file with its peer and returns the items it holds.
def make_h5(path, tmp):
    v = values()
    with h5py.File(path, "w") as f:
        for k, item in v.items():
            f.create_dataset(k, data=item.values, fillvalue=item.fill)
            f[k].attrs.update(item.attrs)
    return v


def make_nc(path, tmp):
    v = {k: values()[k] for k in ("/grid/x", "/grid/i")}
    with netCDF4.Dataset(path, "w") as d:
        g = d.createGroup("grid")
        g.createDimension("n", 5)
        g.createDimension("r", 2)
        g.createDimension("c", 3)
        x = g.createVariable("x", "f8", ("n",), fill_value=False)
        x[:] = v["/grid/x"].values
        x.units = "m"
        i = g.createVariable("i", "i2", ("r", "c"), fill_value=-7)
        i[:] = v["/grid/i"].values
    return v


def make_zarr2(path, tmp):
    v = values()
    g = zarr.open_group(path, mode="w")
    for k, item in v.items():
        a = g.create_dataset(k.lstrip("/"), data=item.values, fill_value=item.fill,
                             chunks=tuple(max(1, n // 2) for n in item.values.shape))
        a.attrs.update(item.attrs)
    return v


def make_zarr3(path, tmp):
    subprocess.run(["node", ZARRITA, "matrix", path], check=True)
    v = values()
    v["/be"] = Item(np.arange(4, dtype="<i4"))
    return {k: v[k] for k in ("/grid/x", "/grid/i", "/be")}


def make_asdf(path, tmp):
    v = values()
    del v["/grid/x"].attrs["units"]  # an ndarray of python-asdf has no attributes
    tree = {"grid": {"x": v["/grid/x"].values, "i": v["/grid/i"].values},
            "be": v["/be"].values, "st": v["/st"].values, "s": v["/s"].values}
    asdf.AsdfFile(tree).write_to(path)
    for item in v.values():
        item.fill = None
    return v


def make_npy(path, tmp):
    np.save(path, values()["/grid/i"].values)
    return {"/data": Item(values()["/grid/i"].values)}


def make_avro(path, tmp):
    schema = avro.schema.parse(json.dumps(NDARRAY_SCHEMA))
    v = {"/0": Item(np.linspace(0, 1, 5)), "/1": Item(np.arange(4, dtype=">i4"))}
    with avro.datafile.DataFileWriter(open(path, "wb"), avro.io.DatumWriter(), schema,
                                      codec="deflate") as w:
        for item in v.values():
            a = item.values
            w.append({"shape": list(a.shape), "typestr": a.dtype.str, "data": a.tobytes(),
                      "version": 3})
    return v


def make_ndl(path, tmp):
    # As a person writes it (NDL has no writer but ours): the NDL specification's forms.
    with open(path, "w") as f:
        f.write("/grid:\n"
                "  ndarrays:\n"
                "    x:\n      shape: [5]\n      type: float64\n"
                "      value: [0.0, 0.25, 0.5, 0.75, 1.0]\n"
                "      attributes:\n        units: m\n"
                "    i:\n      shape: [2, 3]\n      type: int16\n"
                "      value: [[-3, -2, -1], [0, 1, 2]]\n"
                "      storage:\n        fillvalue: -7\n")
    return {k: values()[k] for k in ("/grid/x", "/grid/i")}


def make_dudley(path, tmp):
    src = str(tmp / "dud_src.h5")
    v = make_h5(src, tmp)
    r = run("convert", src, path)  # attributes and fill values as `#@` attributes
    assert r.returncode == 0, r.stderr
    return v


SOURCES = {
    "h5": ("src.h5", make_h5, []),
    "nc": ("src.nc", make_nc, ["--format", "hdf5"]),
    "zarr2": ("src2.zarr", make_zarr2, []),
    "zarr3": ("src3.zarr", make_zarr3, []),
    "asdf": ("src.asdf", make_asdf, []),
    "npy": ("src.npy", make_npy, []),
    "avro": ("src.avro", make_avro, []),
    "ndl": ("src.ndl", make_ndl, []),
    "dudley": ("src.bin", make_dudley, []),
}


# Targets: each reads what we wrote with its peer, as {path: (values, dtype, attrs, fill)}.
def read_h5(path, keys):
    out = {}
    with h5py.File(path) as f:
        for k in keys:
            d = f[k]
            out[k] = (d[()], d.dtype, dict(d.attrs), d.fillvalue)
    return out


def read_zarr2(path, keys):
    out = {}
    store = zarr.open(path, "r")
    for k in keys:
        a = store if k == "/" else store[k.lstrip("/")]
        out[k] = (a[...], a.dtype, dict(a.attrs), a.fill_value)
    return out


def read_zarr3(path, keys):
    got = subprocess.run(["node", ZARRITA, "items", path, *keys], capture_output=True,
                         text=True)
    assert got.returncode == 0, got.stderr
    out = {}
    for k, a in json.loads(got.stdout).items():
        dtype = np.dtype(object) if a["dtype"] == "string" else np.dtype(a["dtype"])
        vals = np.array(a["values"], dtype=dtype).reshape(a["shape"])
        out[k] = (vals, dtype, a.get("attributes", {}), a["fill_value"])
    return out


def read_asdf(path, keys):
    out = {}
    with asdf.open(path, validate_checksums=True) as f, \
            asdf.open(path, _force_raw_types=True) as raw:
        for k in keys:
            node, mapping = f.tree, raw.tree
            for part in k.strip("/").split("/"):
                at = int(part) if isinstance(node, list) else part  # a list's items
                node, mapping = node[at], mapping[at]
            a = np.asarray(node[...]).copy()
            own = {"source", "datatype", "byteorder", "shape", "strides", "offset", "data",
                   "mask"}
            attrs = {n: v for n, v in mapping.items() if n not in own}
            out[k] = (a, a.dtype, attrs, None)
    return out


def read_ours(path, keys):
    """Our reader: a Dudley layout's `#@` attributes are the arrays' .attrs, its fill_value
    attribute the .fillvalue."""
    f = dudley.open(path)
    out = {}
    for k in keys:
        node = f[k.lstrip("/")] if k != "/" else f
        a = node[...]
        out[k] = (a, a.dtype, dict(node.attrs), node.fillvalue)
    return out


def read_avro(path, keys):
    """The records in order: `keys` are the arrays in the source's order."""
    with avro.datafile.DataFileReader(open(path, "rb"), avro.io.DatumReader()) as r:
        records = list(r)
    out = {}
    for k, rec in zip(keys, records):
        a = np.frombuffer(rec["data"], np.dtype(rec["typestr"])).reshape(rec["shape"])
        out[k] = (a, a.dtype, {}, None)
    return out


NDL_TYPES = {"float64": "f8", "float32": "f4", "int16": "i2", "int32": "i4", "int64": "i8",
             "uint8": "u1", "string": "O"}


def read_ndl(path, keys):
    """NDL is YAML: PyYAML reads its values, types and attributes."""
    with open(path) as f:
        doc = yaml.safe_load(f)
    out = {}
    for k in keys:
        group, name = k.rsplit("/", 1)
        g = doc[group or "/"]
        entity = {**g.get("ndarrays", {}), **g.get("dimcoords", {})}[name]
        t = entity["type"]
        if isinstance(t, dict) and "compound" in t:
            fields = [list(f.items())[0] for f in t["compound"]]
            dtype = np.dtype([(n, "O" if ft == "string" else NDL_TYPES[ft]) for n, ft in fields])
            vals = np.array([tuple(row[n] for n, _ in fields) for row in entity["value"]], dtype)
        else:
            dtype = np.dtype(NDL_TYPES[t])
            vals = np.array(entity["value"], dtype)
        attrs = {n: v for n, v in (entity.get("attributes") or {}).items()}
        fill = (entity.get("storage") or {}).get("fillvalue")
        out[k] = (vals, dtype, attrs, fill)
    return out


TARGETS = {
    "h5": ("out.h5", [], read_h5),
    "zarr2": ("out2.zarr", ["--zarr-format", "2"], read_zarr2),
    "zarr3": ("out3.zarr", [], read_zarr3),
    "asdf": ("out.asdf", [], read_asdf),
    "dudley": ("out.bin", [], read_ours),
    "avro": ("out.avro", [], read_avro),
    "ndl": ("out.ndl", [], read_ndl),
}

# What each pair may lose (regular expressions of the lost items); anything else is a bug.
NO_ATTRIBUTES = r"@units: attribute not written"
ALLOWED = {
    ("*", "avro"): [NO_ATTRIBUTES, r"^/(s|st): the ndarray record has no typestr"],
    ("*", "zarr3"): [r"^/st: Zarr v3 has no data type"],
    ("*", "ndl"): [],
    ("nc", "avro"): [r"@(dimension_names|dimension_coordinates|fill_value|_FillValue): "
                     r"attribute not written"],
    ("zarr2", "avro"): [r"@fill_value: attribute not written"],
    ("zarr3", "avro"): [r"@(fill_value|dimension_names): attribute not written"],
    ("ndl", "avro"): [r"@fill_value: attribute not written"],
    ("h5", "avro"): [r"@fill_value: attribute not written"],
    ("dudley", "avro"): [r"@fill_value: attribute not written"],
    # A list has no place in NDL (the records of an Avro container).
    ("avro", "ndl"): [r"^/: a list of 2 items; NDL has no lists"],
}

# Types a target states otherwise, every value kept: fixed strings as variable-length ones.
VLEN_STRINGS = {"zarr3", "ndl"}


def allowed(source, target):
    out = []
    for (s, t), patterns in ALLOWED.items():
        if s in ("*", source) and t in ("*", target):
            out += patterns
    return out


def where(source, target, key):
    """The path a source's item has in the target: an Avro container's records are a list
    (`/items/N` where the target has lists), a root array of .npy is `/data` (a Zarr store
    keeps it at the root)."""
    if source == "avro" and target in ("asdf", "dudley"):
        return "/items" + key
    if source == "npy" and target in ("zarr2", "zarr3"):
        return "/"
    return key


def plain(a):
    """Values as Python lists, bytes as text, for comparison across readers."""
    a = np.asarray(a)
    if a.dtype.names:
        return [tuple(plain(np.asarray(row[n])) for n in a.dtype.names) for row in a.ravel()]
    if a.dtype.kind in "OSU":
        return [x.decode() if isinstance(x, bytes) else str(x) for x in a.ravel().tolist()]
    return a.astype(a.dtype.newbyteorder("=")).ravel().tolist()


def same_type(want, got, target):
    """Whether `got` holds `want`'s values as the same kind of element (byte order aside;
    fixed strings may become variable-length where the target has no fixed ones)."""
    if want.names:
        return got.names == want.names and all(
            same_type(want[n], got[n], target) for n in want.names)
    if want.kind in "SU":
        if got.kind == "O":
            return target in VLEN_STRINGS or target == "h5" and want.kind == "U"
        return got.kind == want.kind and got.itemsize == want.itemsize
    return got.kind == want.kind and got.itemsize == want.itemsize


def is_lost(key, lost):
    """Whether the item at `key`, or a group or list above it, is among `lost`."""
    for x in lost:
        path = x.split(": ")[0]
        if "@" in path:
            continue  # an attribute
        if path == key or key.startswith(path.rstrip("/") + "/"):
            return True
    return False


def source_order(src, options):
    """The source's array paths in the order our reader lists them."""
    tree = json.loads(run("ls", *options, src, "--json").stdout)["root"]
    out = []

    def walk(node, path):
        if node["kind"] == "array":
            out.append(path or "/")
        for name, child in (node.get("members") or {}).items():
            walk(child, f"{path}/{name}")
        for i, child in enumerate(node.get("items") or []):
            walk(child, f"{path}/{i}")
    walk(tree, "")
    return out


def convert(args, json_output):
    return run("convert", *args, *(["--json"] if json_output else []))


def check_case(source, target, src, out, options, items, tmp):
    """Converts `src` to `out` in --json and in text: both must agree on the exit status and
    on what was lost; then the target's peer reads every item that was not lost."""
    args = [*SOURCES[source][2], *options, src, out]
    r = convert(args, True)
    text = convert(args, False)
    assert text.returncode == r.returncode, (source, target, text.stderr)
    lost = []
    if r.returncode != 0:
        assert r.returncode == 1, (source, target, r.stdout, r.stderr)
        lost = json.loads(r.stdout)["error"]["lost"]
        patterns = allowed(source, target)
        unexpected = [item for item in lost if not any(re.search(p, item) for p in patterns)]
        assert not unexpected, (source, target, unexpected)
        for item in lost:
            assert item in text.stderr, (source, target, item)  # named in text too
        assert not os.path.exists(out)  # nothing written
        r = convert(["--lossy", *args], True)
        text = convert(["--lossy", *args], False)
        assert r.returncode == 0 and text.returncode == 0, (source, target, r.stderr)
        assert sorted(json.loads(r.stdout)["lost"]) == sorted(lost)
        for item in lost:
            assert f"note: left out: {item}" in text.stderr, (source, target, item)
    else:
        assert json.loads(r.stdout)["lost"] == []
    kept = {k: item for k, item in items.items() if not is_lost(k, lost)}
    read = TARGETS[target][2]
    if target == "avro":  # records in the source's order, without names: every array read
        order = ["/data" if k == "/" else k for k in source_order(src, SOURCES[source][2])]
        got = read(out, [k for k in order if not is_lost(k, lost)])
    else:
        got = read(out, [where(source, target, k) for k in kept])
    for key, item in kept.items():
        values, dtype, attrs, fill = got[where(source, target, key)]
        case = (source, target, key)
        assert np.shape(values) == item.values.shape, case
        assert same_type(item.values.dtype, np.dtype(dtype), target), (case, dtype)
        assert plain(values) == plain(item.values), case
        if target != "avro":  # an ndarray record has no attributes
            for name, value in item.attrs.items():
                if source == "nc" and target == "h5" and isinstance(value, str):
                    # netCDF's char attribute stays fixed-length text, which h5py reads as
                    # bytes in the source file and in ours alike (nccopy keeps it so too).
                    value = value.encode()
                assert attrs.get(name) == value, (case, name, attrs)
        if item.fill is not None and target in ("h5", "zarr2", "zarr3", "ndl", "dudley"):
            assert fill == item.fill, (case, fill)


@pytest.mark.parametrize("source", list(SOURCES))
def test_every_source_to_every_target(tmp_path, source):
    name, make, _ = SOURCES[source]
    src = str(tmp_path / name)
    items = make(src, tmp_path)
    for target, (out_name, options, _) in TARGETS.items():
        check_case(source, target, src, str(tmp_path / f"{target}-{out_name}"), options, items,
                   tmp_path)


@pytest.mark.parametrize("source", [s for s in SOURCES if s != "avro"])
def test_npy_takes_one_array_of_any_source(tmp_path, source):
    """.npy holds one array: each of a source's arrays, chosen by path, read by numpy."""
    name, make, options = SOURCES[source]
    src = str(tmp_path / name)
    items = make(src, tmp_path)
    for key, item in items.items():
        out = str(tmp_path / "one.npy")
        args = [*options, src, out] + ([] if source == "npy" else [key])
        r = run("convert", "--lossy", *args, "--json")
        assert r.returncode == 0, (source, key, r.stderr)
        lost = json.loads(r.stdout)["lost"]
        assert all(re.search(r"@\w+: attribute not written", x) for x in lost), lost
        got = np.load(out)
        assert got.shape == item.values.shape and plain(got) == plain(item.values), (source, key)
        assert same_type(item.values.dtype, got.dtype, "npy"), (source, key, got.dtype)


def test_npy_attribute_is_a_loss(tmp_path):
    src = str(tmp_path / "src.h5")
    make_h5(src, tmp_path)
    r = run("convert", src, str(tmp_path / "x.npy"), "/grid/x")
    assert r.returncode == 1 and "/grid/x@units" in r.stderr  # its attribute has no place
    assert not os.path.exists(tmp_path / "x.npy")


def test_xarray_sees_the_same_dataset(tmp_path):
    """xarray, reading what we wrote, sees what it sees in the source: dimension names
    (netCDF dimensions with and without coordinate variables, xarray's own Zarr
    _ARRAY_DIMENSIONS), coordinates, attributes and fill values, values unmasked where the
    source has no fill value."""
    import xarray as xr
    nc3 = str(tmp_path / "c3.nc")
    with netCDF4.Dataset(nc3, "w", format="NETCDF3_CLASSIC") as d:
        d.createDimension("n", 3)
        v = d.createVariable("v", "f8", ("n",))
        v[:] = [0.0, 1.0, 2.0]
        v.units = "K"
    nc4 = str(tmp_path / "src.nc")
    make_nc(nc4, tmp_path)
    xz = str(tmp_path / "xarray.zarr")
    ds = xr.Dataset({"t": (("time", "y"), np.arange(6.0).reshape(3, 2), {"units": "K"})},
                    coords={"time": [0.0, 1.0, 2.0], "y": [10, 20]})
    ds.to_zarr(xz, consolidated=False)
    cases = [(nc3, {}, []), (nc4, {"group": "grid"}, ["--format", "hdf5"]),
             (xz, {"engine": "zarr", "consolidated": False}, [])]
    for k, (src, open_source, options) in enumerate(cases):
        want = xr.open_dataset(src, **open_source)
        group = {"group": open_source["group"]} if "group" in open_source else {}
        for out, open_out, extra in [(f"o{k}.h5", {}, []),
                                     (f"o{k}.zarr", {"engine": "zarr"}, ["--zarr-format", "2"])]:
            r = run("convert", *options, *extra, src, str(tmp_path / out))
            assert r.returncode == 0, (src, out, r.stderr)
            got = xr.open_dataset(str(tmp_path / out), **open_out, **group)
            xr.testing.assert_identical(want, got)
            if src == xz and out.endswith(".h5"):
                # A Zarr v2 fill value is xarray's _FillValue there; in HDF5 it is the
                # datasets' fill value (no _FillValue attribute is made up): NaN for floats.
                with h5py.File(str(tmp_path / out)) as h:
                    assert np.isnan(h["t"].fillvalue) and np.isnan(h["time"].fillvalue)
                continue
            assert {n: v.encoding.get("_FillValue") for n, v in got.variables.items()} == \
                {n: v.encoding.get("_FillValue") for n, v in want.variables.items()}, (src, out)
