"""Text attributes keep the type they were stored as across conversions, checked against the
peers that show the difference: h5py reads a fixed-length string as bytes and a
variable-length one as str; ncdump prints netCDF's NC_STRING as `string :units = "K"` where
its char attribute (NC_CHAR, what netCDF-C and netCDF4-python write for ASCII text) is
`:units = "K"`. Conversions once wrote every text attribute as a variable-length UTF-8
string, changing both. A .nc output is netCDF-4 (HDF5), and its ASCII text attributes
without a stored type are char, as netCDF4-python writes a str.
"""
import os

import h5py
import netCDF4
import numpy as np
import pytest

import dudley
from cli_runner import program, run


def header(path):
    """ncdump -h without its first line (which names the file)."""
    r = program("ncdump", "-h", str(path))
    assert r.returncode == 0, r.stderr
    return r.stdout.split("\n", 1)[1]


def h5py_attributes(path):
    """Every attribute as h5py reads it: (value, its numpy type, its HDF5 character set)."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            for k in obj.attrs:
                v = obj.attrs[k]
                out[(name, k)] = (v.tolist() if isinstance(v, np.ndarray) else v,
                                  obj.attrs.get_id(k).dtype,
                                  obj.attrs.get_id(k).get_type().get_cset())
        visit("/", f)
        f.visititems(visit)
    return out


def netcdf4_file(path, fmt="NETCDF4"):
    with netCDF4.Dataset(path, "w", format=fmt) as d:
        d.createDimension("x", 3)
        t = d.createVariable("t", "f4", ("x",))
        t.units = "K"
        t.long_name = "temperature"
        t[:] = [1, 2, 3]
        d.title = "run 5"
        d.empty = ""
        if fmt == "NETCDF4":
            d.setncattr_string("kind", "model")  # NC_STRING, ASCII
            d.note = "caf\u00e9"  # netCDF4-python writes text that is not ASCII as NC_STRING


@pytest.mark.parametrize("fmt", ["NETCDF4", "NETCDF3_CLASSIC"])
def test_netcdf_to_netcdf_keeps_char_and_string_attributes(tmp_path, fmt):
    source, out = tmp_path / "in.nc", tmp_path / "out.nc"
    netcdf4_file(source, fmt)
    r = run("convert", str(source), str(out))
    assert r.returncode == 0, r.stderr
    assert header(out) == header(source)
    with netCDF4.Dataset(source) as a, netCDF4.Dataset(out) as b:
        assert {k: a.getncattr(k) for k in a.ncattrs()} == {k: b.getncattr(k) for k in b.ncattrs()}
        assert b["t"].units == "K"


def test_hdf5_to_hdf5_keeps_fixed_and_variable_length_text(tmp_path):
    source, out = tmp_path / "in.h5", tmp_path / "out.h5"
    with h5py.File(source, "w") as f:
        f.attrs["fixed"] = np.bytes_(b"abc")  # |S3, ASCII
        f.attrs.create("padded", np.bytes_(b"K"), dtype="S20")
        f.attrs.create("utf8_fixed", "\u00b5m".encode(), dtype=h5py.string_dtype("utf-8", 3))
        f.attrs["vlen"] = "text"  # h5py's str: variable-length UTF-8
        f.attrs.create("vlen_ascii", "ascii", dtype=h5py.string_dtype("ascii"))
        x = f.create_dataset("x", data=np.arange(3.0))
        x.attrs["units"] = np.bytes_(b"m")
        x.attrs["label"] = "distance"
    for target in (out, tmp_path / "saved.h5"):
        if target == out:
            r = run("convert", str(source), str(target))
            assert r.returncode == 0, r.stderr
        else:
            dudley.save(dudley.open(str(source)), str(target))
        got, want = h5py_attributes(target), h5py_attributes(source)
        assert got == want


def test_new_netcdf_text_attributes_as_netcdf4_python_writes_them(tmp_path):
    # Text with no stored type (from a dict, Zarr, ASDF): ASCII as char, other text as
    # NC_STRING, as netCDF4-python writes a str. The same values through netCDF4-python:
    peer = tmp_path / "peer.nc"
    with netCDF4.Dataset(peer, "w") as d:
        d.createDimension("t_dim_0", 3)
        t = d.createVariable("t", "f8", ("t_dim_0",))
        t.units = "K"
        t[:] = [1, 2, 3]
        d.title = "run 5"
        d.note = "caf\u00e9"
    ours = tmp_path / "ours.nc"
    dudley.save(dudley.Item({"t": dudley.Item(np.array([1.0, 2.0, 3.0]), attrs={"units": "K"})},
                            attrs={"title": "run 5", "note": "caf\u00e9"}), str(ours))
    lines = [line.strip() for line in header(ours).splitlines() if "=" in line]
    peer_lines = [line.strip() for line in header(peer).splitlines() if "=" in line]
    for line in ('t:units = "K" ;', ':title = "run 5" ;', 'string :note = "caf\u00e9" ;'):
        assert line in lines and line in peer_lines, (line, lines, peer_lines)
    # A .h5 output keeps h5py's way: text as a variable-length UTF-8 string (str in h5py).
    h5 = tmp_path / "ours.h5"
    dudley.save(dudley.Item({"t": np.arange(3.0)}, attrs={"title": "run 5"}), str(h5))
    with h5py.File(h5) as f:
        assert f.attrs["title"] == "run 5" and f.attrs.get_id("title").dtype == object


def test_convert_names_the_output_nc_as_netcdf4(tmp_path):
    # out.nc was refused ("no format writes '.nc' files"): it is netCDF-4, which netCDF4 and
    # xarray read.
    source = tmp_path / "in.h5"
    with h5py.File(source, "w") as f:
        f["v"] = np.arange(6.0).reshape(2, 3)
        f["v"].attrs["units"] = "m"
    out = tmp_path / "out.nc"
    r = run("convert", "--json", str(source), str(out))
    assert r.returncode == 0, r.stderr
    with netCDF4.Dataset(out) as d:
        np.testing.assert_array_equal(d["v"][:], np.arange(6.0).reshape(2, 3))
        assert d["v"].units == "m"
    assert 'v:units = "m" ;' in header(out)


def test_a_real_netcdf4_file_keeps_its_attributes(tmp_path):
    # EUMETSAT's ASCAT soil moisture product cut by ncks (netcdf4-python's test file
    # issue671.nc): every attribute reads the same in netCDF4-python, and none of its char
    # attributes becomes a `string` one in ncdump.
    source = os.path.join(os.path.dirname(__file__), "..", "data", "realworld", "issue671.nc")
    out = tmp_path / "copy.nc"
    r = run("convert", source, str(out))
    assert r.returncode == 0, r.stderr

    def attributes(path):
        with netCDF4.Dataset(path) as d:
            got = {"/": {k: d.getncattr(k) for k in d.ncattrs()}}
            for name, v in d.variables.items():
                got[name] = {k: v.getncattr(k) for k in v.ncattrs() if k != "_FillValue"}
            return {k: {a: (x.tolist() if isinstance(x, np.ndarray) else x) for a, x in v.items()}
                    for k, v in got.items()}

    assert attributes(out) == attributes(source)
    strings = [line for line in header(source).splitlines() if line.strip().startswith("string ")]
    assert [line for line in header(out).splitlines()
            if line.strip().startswith("string ")] == strings
    # Each text attribute is stored as netCDF-C stored it: the same length, character set and
    # padding (null-terminated, which HDF5 must not shorten by a character) as h5py reads them.
    def text_types(path):
        with h5py.File(path, "r") as f:
            out = {}
            for name, obj in [("/", f), *f.items()]:
                for k in obj.attrs:
                    if k == "_NCProperties":  # the writing library's own, not the data's
                        continue
                    t = obj.attrs.get_id(k).get_type()
                    if isinstance(t, h5py.h5t.TypeStringID) and not t.is_variable_str():
                        out[(name, k)] = (t.get_size(), t.get_cset(), t.get_strpad())
            return out
    stored = text_types(source)
    assert len(stored) > 10 and text_types(out) == stored
