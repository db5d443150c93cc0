"""netCDF classic files (CDF-1, CDF-2, CDF-5) read natively through the Dudley layout their
header makes (issue 36), against the netCDF4 Python module and ncgen/ncdump (netcdf-bin):
every type, fill values, record variables, attributes, a zero-length record dimension, a
streaming record count; damaged headers fail naming the byte offset."""
import json
import struct

import netCDF4
import numpy as np
import pytest

import dudley
from cli_runner import program, run

FORMATS = {1: "NETCDF3_CLASSIC", 2: "NETCDF3_64BIT_OFFSET", 5: "NETCDF3_64BIT_DATA"}




def make(path, version, records=2):
    with netCDF4.Dataset(path, "w", format=FORMATS[version]) as d:
        d.title = "test file"
        d.version = np.int32(3)
        d.scales = np.array([1.5, 2.5], "f8")
        d.createDimension("time", None)
        d.createDimension("lat", 3)
        d.createDimension("lon", 4)
        d.createDimension("strlen", 5)
        t = d.createVariable("time", "f8", ("time",))
        t.units = "days since 2000-01-01"
        lat = d.createVariable("lat", "f4", ("lat",))
        lat[:] = [-10, 0, 10]
        temp = d.createVariable("temp", "f4", ("time", "lat", "lon"), fill_value=-999.0)
        temp.units = "K"
        temp.valid_range = np.array([-100, 400], "f4")
        sh = d.createVariable("sh", "i2", ("time",))
        name = d.createVariable("name", "S1", ("lat", "strlen"))
        b = d.createVariable("b", "i1", ("lat",))
        b[:] = [-1, 0, 1]
        i4 = d.createVariable("i4", "i4", ("lat", "lon"))
        i4[:] = np.arange(12).reshape(3, 4) * -1000
        sc = d.createVariable("scalar", "f8")
        sc.assignValue(2.5)
        d.createVariable("unwritten", "f4", ("lat",))  # reads as the default fill value
        if version == 5:
            for code in ("u1", "u2", "u4", "u8", "i8"):
                v = d.createVariable(code, code, ("lat",))
                v[:] = np.array([1, 2, 3], code) * (7 if code != "u8" else 2**62)
        for i in range(records):
            t[i] = i * 0.5
            temp[i] = np.arange(12).reshape(3, 4) + i
            sh[i] = -i
        if records > 1:
            temp[1, 0, 0] = np.ma.masked
        name[:] = netCDF4.stringtochar(np.array(["ab", "cde", "f"], dtype="S5"))


def reference(path):
    """Every variable's stored values and attributes, as netCDF4 reads them unmasked."""
    with netCDF4.Dataset(path) as d:
        d.set_auto_maskandscale(False)
        vals = {k: np.asarray(v[...]) for k, v in d.variables.items()}
        # char data as strings along its last dimension (netCDF4.chartostring), as we give it
        vals = {k: netCDF4.chartostring(v).astype("S") if v.dtype == "S1" and v.ndim else v
                for k, v in vals.items()}
        attrs = {k: {a: v.getncattr(a) for a in v.ncattrs()} for k, v in d.variables.items()}
        return vals, attrs, {a: d.getncattr(a) for a in d.ncattrs()}


@pytest.mark.parametrize("version", [1, 2, 5])
def test_values_and_attributes_match_netcdf4(tmp_path, version):
    path = tmp_path / f"cdf{version}.nc"
    make(path, version)
    vals, attrs, globals_ = reference(path)
    f = dudley.open(str(path))
    for name, want in vals.items():
        got = f[name][...]
        assert got.shape == want.shape, name
        assert np.array_equal(got, want), name
        for key, value in attrs[name].items():
            assert np.array_equal(np.asarray(f[name].attrs[key]).ravel(), np.asarray(value).ravel()), (name, key)
    for key, value in globals_.items():
        assert np.array_equal(np.asarray(f.attrs[key]).ravel(), np.asarray(value).ravel()), key
    # Selections as numpy takes them, record variables included.
    temp = vals["temp"]
    for index in [(1,), (slice(None), 2), (slice(None, None, -1), slice(1, None), slice(None, None, -2)),
                  (0, 1, 3), (Ellipsis, 0)]:
        assert np.array_equal(f["temp"][index], temp[index]), index
    assert f["temp"].attrs["dimension_names"] == ["time", "lat", "lon"]
    # The CLI: text and JSON.
    p = run("dump", "--json", str(path), "/temp", "/name", "/unwritten")
    assert p.returncode == 0, p.stderr
    members = json.loads(p.stdout)["root"]["members"]
    assert np.array_equal(np.array(members["temp"]["data"], "f4"), temp)
    assert members["name"]["data"] == ["ab", "cde", "f"]
    # Unwritten data holds the default fill value of float (9.9692099683868690e+36).
    assert np.array_equal(np.array(members["unwritten"]["data"], "f4"), vals["unwritten"])
    assert np.float32(members["unwritten"]["data"][0]) == np.float32(9.9692099683868690e+36)
    p = run("dump", str(path), "/temp[1, 0]")
    assert p.returncode == 0 and json.loads(p.stdout.split(" = ")[1]) == temp[1, 0].tolist()


def test_ls_shows_dimensions_attributes_and_unlimited_extents(tmp_path):
    path = tmp_path / "c.nc"
    make(path, 1, records=6)
    p = run("ls", str(path))
    assert p.returncode == 0, p.stderr
    lines = {}
    for line in p.stdout.splitlines():
        lines.setdefault(line.split()[0], []).append(line)
    assert any("array >f4 [6/Inf, 3, 4]" in line and 'units="K"' in line for line in lines["/temp"])
    assert any("parameter = 6" in line for line in lines["/time"])
    assert 'title="test file"' in lines["/"][0] and "version=[3]" in lines["/"][0]
    j = json.loads(run("ls", "--json", str(path)).stdout)
    assert j["format"] == "netcdf3"
    assert j["root"]["members"]["temp"]["storage"]["max_shape"] == [None, 3, 4]


def test_every_type_from_ncgen(tmp_path):
    cdl = tmp_path / "t.cdl"
    cdl.write_text("""netcdf t {
dimensions:
  n = 2 ; rec = UNLIMITED ;
variables:
  byte b(n) ; char c(n) ; short s(n) ; int i(n) ; float f(n) ; double d(n) ;
  ubyte ub(n) ; ushort us(n) ; uint ui(n) ; int64 i8(n) ; uint64 u8(n) ;
  short r(rec) ; r:_FillValue = -5s ;
  :note = "every type" ;
data:
  b = -128, 127 ; c = "xy" ; s = -32768, 32767 ; i = -2147483648, 2147483647 ;
  f = 1.5, -0 ; d = 1e300, -2.5 ; ub = 0, 255 ; us = 0, 65535 ; ui = 0, 4294967295 ;
  i8 = -5, 2000000000 ; u8 = 0, 18446744073709551615 ;
  r = 1, _, 3 ;
}""")
    path = tmp_path / "t.nc"
    program("ncgen", "-5", "-o", str(path), str(cdl), check=True)
    vals, attrs, globals_ = reference(path)
    f = dudley.open(str(path))
    for name, want in vals.items():
        got = f[name][...]
        assert np.array_equal(got, want) and got.dtype.kind == want.dtype.kind, (name, got, want)
    assert f["r"][...].tolist() == [1, -5, 3]  # the hole holds _FillValue
    assert f["r"].attrs["_FillValue"].tolist() == [-5] and f.attrs["note"] == "every type"
    # ncdump prints the same values.
    ncdump = program("ncdump", "-v", "u8,i8", str(path)).stdout
    assert "u8 = 0, 18446744073709551615 ;" in ncdump and "i8 = -5, 2000000000 ;" in ncdump
    p = run("dump", str(path), "/u8", "/i8")
    assert p.stdout.splitlines() == ["/u8 = [0,18446744073709551615]", "/i8 = [-5,2000000000]"]


def test_zero_records_and_streaming_count(tmp_path):
    path = tmp_path / "empty.nc"
    make(path, 1, records=0)
    f = dudley.open(str(path))
    assert f["temp"].shape == (0, 3, 4) and f["temp"][...].shape == (0, 3, 4)
    # A streaming file stores the record count as all ones: counted from the file's size.
    full = tmp_path / "full.nc"
    make(full, 1, records=3)
    raw = bytearray(full.read_bytes())
    raw[4:8] = b"\xff\xff\xff\xff"
    stream = tmp_path / "stream.nc"
    stream.write_bytes(bytes(raw))
    assert dudley.open(str(stream))["time"][...].tolist() == [0.0, 0.5, 1.0]


def test_xarray_engine_matches_netcdf4_engine(tmp_path):
    import xarray as xr
    path = tmp_path / "x.nc"
    make(path, 2)
    ours = xr.open_dataset(path, engine=dudley.XarrayBackend)
    ref = xr.open_dataset(path, engine="netcdf4")
    for name in ref.variables:
        a, b = ours[name].values, ref[name].values
        assert a.dtype == b.dtype, name
        if a.dtype.kind == "f":
            assert np.array_equal(a, b, equal_nan=True), name
        else:
            assert np.array_equal(a, b), name
    assert ours["temp"].dims == ("time", "lat", "lon")


def damaged(tmp_path, name, change):
    path = tmp_path / "ok.nc"
    make(path, 1)
    raw = bytearray(path.read_bytes())
    change(raw)
    bad = tmp_path / name
    bad.write_bytes(bytes(raw))
    return bad


@pytest.mark.parametrize("name,change,why", [
    ("version.nc", lambda r: r.__setitem__(3, 9), "version byte 9"),
    ("cut.nc", lambda r: r.__delitem__(slice(60, None)), "past the end of the file"),
    ("dims.nc", lambda r: r.__setitem__(slice(12, 16), struct.pack(">I", 0x7fffffff)),
     "dimensions in a file of"),
    ("records.nc", lambda r: r.__setitem__(slice(4, 8), struct.pack(">I", 1000)),
     "1000 records of"),
])
def test_damaged_headers_fail_naming_the_byte(tmp_path, name, change, why):
    bad = damaged(tmp_path, name, change)
    for args in (["ls", str(bad)], ["dump", str(bad)], ["ls", "--json", str(bad)]):
        p = run(*args)
        assert p.returncode == 1, (args, p.returncode, p.stderr)
        assert why in p.stdout + p.stderr, (args, p.stdout, p.stderr)
        assert "@" in p.stdout + p.stderr or ":" in p.stderr  # the byte offset is named
    with pytest.raises(dudley.DataError, match=why.split()[0]):
        dudley.open(str(bad))


def test_layout_reads_a_family_at_the_pread_floor(tmp_path):
    # `dudley layout x.nc` writes the layout the file is read through; with it, members of a
    # family are read without their headers being parsed, record counts from each file.
    first = tmp_path / "run_1.nc"
    make(first, 1, records=2)
    make(tmp_path / "run_2.nc", 1, records=3)
    layout = tmp_path / "run.dud"
    p = run("layout", str(first), "-o", str(layout))
    assert p.returncode == 0, p.stderr
    assert "NREC := >i4 @ 4" in layout.read_text() and run("check", str(layout)).returncode == 0
    p = run("dump", "--json", "--layout", str(layout), "--family", str(tmp_path / "run_*.nc"),
            "/records.time", "/lat")
    assert p.returncode == 0, p.stderr
    docs = [json.loads(line) for line in p.stdout.splitlines()]
    assert [d["root"]["members"]["records"]["selections"][".time"]["data"] for d in docs] == \
        [[0.0, 0.5], [0.0, 0.5, 1.0]]
    j = json.loads(run("layout", "--json", str(first)).stdout)
    assert j["layout"] == layout.read_text()


CHARS_CDL = """netcdf chars {
dimensions:
  time = UNLIMITED ; a = 2 ; len = 5 ;
variables:
  char letter ;
  char title(len) ;
  char Times(time, len) ;
  char flag(time) ;
  char grid(time, a, len) ;
  int n(time) ;
data:
  letter = "z" ;
  title = "hello" ;
  Times = "2026-", "11-29", "12:00" ;
  flag = "xyz" ;
  grid = "ab", "c", "defgh", "g", "hi", "jkl" ;
  n = 1, 2, 3 ;
}"""


def test_char_variables_as_netcdf_c_has_them(tmp_path):
    """A scalar char, char records of any rank (WRF's Times) and a record variable beside
    them: values, selections and text as netCDF4 and ncdump have them (ncgen writes the file)."""
    cdl = tmp_path / "chars.cdl"
    cdl.write_text(CHARS_CDL)
    path = tmp_path / "chars.nc"
    program("ncgen", "-k", "classic", "-o", str(path), str(cdl), check=True)
    with netCDF4.Dataset(path) as d:
        raw = {k: np.asarray(v[...]) for k, v in d.variables.items()}
    f = dudley.open(str(path))
    assert f["letter"][...].tolist() == raw["letter"].tolist() == b"z"
    for name in ("title", "Times", "flag", "grid"):
        want = raw[name]
        joined = np.ascontiguousarray(want).view(f"S{want.shape[-1]}")[..., 0]
        assert f[name][...].tolist() == joined.tolist(), name
    assert f["n"][...].tolist() == [1, 2, 3]
    members = json.loads(run("dump", "--json", str(path)).stdout)["root"]["members"]
    assert members["letter"]["shape"] == [] and members["letter"]["data"] == "z"
    assert members["Times"]["shape"] == [3, 5]
    assert members["Times"]["data"] == ["2026-", "11-29", "12:00"]
    assert members["flag"]["data"] == "xyz" and members["flag"]["shape"] == [3]
    assert members["grid"]["data"] == [["ab", "c"], ["defgh", "g"], ["hi", "jkl"]]
    # Selections of char records, as numpy takes them of netCDF4's characters.
    p = run("dump", "--json", str(path), "/grid[1:, 1, :]", "/flag[::2]", "/Times[2, 3:]")
    assert p.returncode == 0, p.stderr
    sel = json.loads(p.stdout)["root"]["members"]
    assert sel["grid"]["selections"]["[1:, 1, :]"]["data"] == ["g", "jkl"]
    assert sel["flag"]["selections"]["[::2]"]["data"] == "xz"
    assert sel["Times"]["selections"]["[2, 3:]"]["data"] == "00"
    # Text as ncdump prints the strings.
    p = run("dump", str(path), "/letter", "/Times")
    assert p.returncode == 0 and p.stdout.splitlines() == [
        '/letter = "z"', '/Times = ["2026-","11-29","12:00"]']
    ncdump = program("ncdump", "-v", "letter,Times", str(path)).stdout
    assert 'letter = "z" ;' in ncdump and '"2026-",' in ncdump
    # ls: the scalar has no dimension, the records their count first.
    listing = run("ls", str(path)).stdout
    assert "/letter" in listing and "array |S1 []" in listing
    assert "array |S1 [3/Inf, 5]" in listing


def test_record_variables_at_one_address_are_swapped_once(tmp_path):
    """Two record variables a header places at the same bytes (netCDF-C refuses such a
    header; others write it): each reads the bytes there, converted once (they read 256 for
    1 when the struct's two fields swapped the same bytes twice)."""
    path = tmp_path / "overlap.nc"
    with netCDF4.Dataset(path, "w", format="NETCDF3_CLASSIC") as d:
        d.createDimension("time", None)
        for name in ("a", "b"):
            d.createVariable(name, "i2", ("time",))[:] = [1, 2, 3] if name == "a" else [7, 8, 9]
        d.createVariable("c", "i4", ("time",))[:] = [100, 101, 102]
    data = bytearray(path.read_bytes())
    # b's begin (record start + 4) made a's: the two big-endian begins in the header.
    first = data.index(struct.pack(">i", len(data) - 3 * 12))
    second = data.index(struct.pack(">i", len(data) - 3 * 12 + 4), first + 4)
    data[second:second + 4] = data[first:first + 4]
    path.write_bytes(bytes(data))
    p = run("dump", "--json", str(path))
    assert p.returncode == 0, p.stderr
    members = json.loads(p.stdout)["root"]["members"]
    assert members["a"]["data"] == [1, 2, 3] and members["b"]["data"] == [1, 2, 3]
    assert members["c"]["data"] == [100, 101, 102]
