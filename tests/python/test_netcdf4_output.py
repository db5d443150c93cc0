"""What netCDF sees in a .nc copy. netCDF's order kept: a netCDF-4 (or classic) file copied
to .nc lists its dimensions (by netCDF's dimension ids) and variables in the source's order,
in netCDF4-python and ncdump; a dimension beside a variable of its name that is not its
coordinate keeps both (netCDF-C's "_nc4_non_coord_" variables); coordinate variables of two
dimensions keep both names; HDF5 groups that track creation order (h5py's track_order) list
their members in it. User-defined types (enums, h5py's booleans, compounds) are committed,
so netCDF lists their variables instead of skipping them."""
import json
import os

import h5py
import netCDF4
import numpy as np
import pytest

from cli_runner import program, run

REALWORLD = os.path.join(os.path.dirname(__file__), "..", "data", "realworld")
NETCDF_FILES = ["CRM032_test1.nc", "issue1152.nc", "issue671.nc", "netcdf_dummy_file.nc",
                "ubyte.nc", "pyfive_h5netcdf_test.hdf5"]


def structure(group, lost=(), classic=False, prefix=""):
    """Each group's dimensions (name, size, unlimited) and variables (name, dimensions) in
    netCDF's order, the groups' in theirs."""
    dims = [(k, len(d), d.isunlimited()) for k, d in group.dimensions.items()]
    variables = []
    for k, v in group.variables.items():
        if f"{prefix}/{k}" in lost:
            continue
        # Classic files' char arrays are read as text (their last dimension the length).
        text = classic and (v.dtype == "S1" or v.dtype is str)
        variables.append((k, None if text else v.dimensions))
    out = [(prefix or "/", dims, variables)]
    for k, g in group.groups.items():
        out += structure(g, lost, classic, f"{prefix}/{k}")
    return out


def lost_paths(report):
    return {item.split(":")[0] for item in report["lost"]}


@pytest.mark.parametrize("name", NETCDF_FILES)
def test_real_files_copied_to_netcdf_keep_netcdfs_order(name, tmp_path):
    source = os.path.join(REALWORLD, name)
    out = str(tmp_path / "copy.nc")
    r = run("convert", "--lossy", source, out, "--json")
    assert r.returncode == 0, r.stderr
    lost = lost_paths(json.loads(r.stdout))
    with netCDF4.Dataset(source) as want, netCDF4.Dataset(out) as got:
        classic = want.file_format.startswith("NETCDF3")
        assert structure(got, lost, classic) == structure(want, lost, classic)
        # Values through netCDF-C, variable by variable (masking and scaling off).
        want.set_auto_maskandscale(False)
        got.set_auto_maskandscale(False)
        for k, v in want.variables.items():
            if f"/{k}" in lost or v.dtype == "S1" or v.dtype is str:
                continue
            assert np.array_equal(got.variables[k][...], v[...]), k


def make_interleaved(path):
    """Dimensions defined in another order than their variables; a dimension without a
    variable between coordinate variables; a variable named like a dimension it does not
    use; a coordinate variable of two dimensions; a group with dimensions of its own."""
    with netCDF4.Dataset(path, "w") as d:
        d.createDimension("time", None)
        d.createDimension("nv", 2)
        d.createDimension("lat", 3)
        d.createDimension("strlen", 4)
        d.createDimension("station", 2)
        d.createDimension("lon", 5)          # its variable is not its coordinate
        t = d.createVariable("time", "f8", ("time",))
        t[:] = [1.0, 2.0]
        b = d.createVariable("time_bnds", "f8", ("time", "nv"))
        b[:] = [[0.5, 1.5], [1.5, 2.5]]
        lat = d.createVariable("lat", "f4", ("lat",))
        lat[:] = [-10, 0, 10]
        lon = d.createVariable("lon", "f4", ("lat",))
        lon[:] = [100, 110, 120]
        st = d.createVariable("station", "S1", ("station", "strlen"))
        st[:] = netCDF4.stringtochar(np.array(["ab", "cdef"], "S4"))
        tas = d.createVariable("tas", "f4", ("time", "lat", "lon"))
        tas[:] = np.arange(30, dtype="f4").reshape(2, 3, 5)
        g = d.createGroup("sub")
        g.createDimension("z", 3)
        g.createDimension("a", 2)
        v = g.createVariable("v", "i4", ("a", "z", "lat"))
        v[:] = np.arange(18).reshape(2, 3, 3)


def test_dimensions_and_variables_keep_their_order_and_names(tmp_path):
    source = str(tmp_path / "source.nc")
    make_interleaved(source)
    out = str(tmp_path / "copy.nc")
    r = run("convert", source, out, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["lost"] == []
    with netCDF4.Dataset(source) as want, netCDF4.Dataset(out) as got:
        assert structure(got) == structure(want)
        for k in ["time", "time_bnds", "lat", "lon", "station", "tas"]:
            assert np.array_equal(got[k][...], want[k][...]), k
        assert np.array_equal(got["sub/v"][...], want["sub/v"][...])
    # ncdump's header (types, dimensions, variables, attributes) is the source's.
    heads = [program("ncdump", "-h", p).stdout.split("\n", 1)[1] for p in (source, out)]
    assert heads[0] == heads[1]
    # A copy of the copy is the same again: what the writer stores, the reader reads.
    again = str(tmp_path / "again.nc")
    assert run("convert", out, again).returncode == 0
    assert program("ncdump", "-h", again).stdout.split("\n", 1)[1] == heads[0]


def members(node, prefix=""):
    """The paths of a `dudley ls --json` tree's members, in its order, depth first."""
    out = []
    for name, child in node.get("members", {}).items():
        out.append((f"{prefix}/{name}", child["kind"]))
        out += members(child, f"{prefix}/{name}")
    return out


def test_listing_follows_netcdfs_variable_order(tmp_path):
    source = str(tmp_path / "source.nc")
    make_interleaved(source)
    r = run("ls", source, "--json")
    assert r.returncode == 0, r.stderr
    root = json.loads(r.stdout)["root"]
    arrays = [p for p, kind in members(root) if kind == "array"]
    with netCDF4.Dataset(source) as d:
        want = [f"/{k}" for k in d.variables] + [f"/sub/{k}" for k in d["sub"].variables]
        # Dimensions without a coordinate variable are parameters, in netCDF's order.
        dims = [k for k in d.dimensions if k not in d.variables or k == "lon"]
    assert arrays == want
    assert list(root["params"]) == dims == ["nv", "strlen", "lon"]
    # The variable "lon" and the dimension "lon" both keep the name; the text listing too.
    text = run("ls", source).stdout
    assert "_nc4_non_coord_" not in text
    assert [line.split()[1] for line in text.splitlines() if line.startswith("/lon ")] == \
        ["parameter", "array"]


def test_hdf5_groups_that_track_creation_order_keep_it(tmp_path):
    source = str(tmp_path / "ordered.h5")
    with h5py.File(source, "w", track_order=True) as f:
        g = f.create_group("g", track_order=True)
        for name in ["zeta", "alpha", "mid"]:
            g[name] = np.arange(3)
        h = f.create_group("h")                     # name order: not tracked
        for name in ["zeta", "alpha"]:
            h[name] = np.arange(2)
    r = run("ls", source, "--json")
    listed = [p for p, _ in members(json.loads(r.stdout)["root"])]
    assert [p for p in listed if p.startswith("/g/")] == ["/g/zeta", "/g/alpha", "/g/mid"]
    assert [p for p in listed if p.startswith("/h/")] == ["/h/alpha", "/h/zeta"]
    out = str(tmp_path / "copy.h5")
    assert run("convert", source, out).returncode == 0
    with h5py.File(source) as want, h5py.File(out) as got:
        assert list(got["g"]) == list(want["g"]) == ["zeta", "alpha", "mid"]
        assert list(got["h"]) == list(want["h"])


def test_user_defined_types_are_variables_netcdf_lists(tmp_path):
    # Written by h5py, whose enums and compounds are not named types: netCDF-C skips such
    # variables without a word, so a copy commits them.
    source = str(tmp_path / "types.h5")
    with h5py.File(source, "w") as f:
        color = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 42}, basetype="i1")
        f.create_dataset("color", data=np.array([0, 1, 42], "i1"), dtype=color)
        f.create_dataset("flag", data=np.array([True, False]))
        f.create_dataset("pair", data=np.array([(1, 2.5)], dtype=[("a", "i4"), ("b", "f8")]))
        f.create_dataset("color_t", data=np.arange(3))  # the name a type would take
        f["color"].attrs["ok"] = np.bool_(True)
    out = str(tmp_path / "types.nc")
    r = run("convert", source, out, "--json")
    assert r.returncode == 0, r.stderr
    with netCDF4.Dataset(out) as d, h5py.File(source) as h:
        assert list(d.variables) == ["color", "color_t", "flag", "pair"]
        assert d["color"].datatype.enum_dict == {"RED": 0, "GREEN": 1, "BLUE": 42}
        assert d["color"].datatype.name != "color_t"
        assert d["flag"].datatype.enum_dict == {"FALSE": 0, "TRUE": 1}
        for k in ["color", "color_t", "flag"]:
            assert np.array_equal(np.asarray(d[k][...]), h[k][()].astype(d[k][...].dtype)), k
        got = d["pair"][...]
        assert got["a"].tolist() == [1] and got["b"].tolist() == [2.5]
        assert d["color"].getncattr("ok") == 1
    # ncdump prints the enum's names, as for a file netCDF-C wrote.
    assert "color = RED, GREEN, BLUE ;" in program("ncdump", out).stdout
    # The copy converts again with nothing lost: a named type its variable uses is no item.
    r = run("convert", out, str(tmp_path / "again.nc"), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["lost"] == [], r.stdout


def test_netcdf_enum_types_survive_a_copy(tmp_path):
    source = str(tmp_path / "enum.nc")
    with netCDF4.Dataset(source, "w") as d:
        cloud = d.createEnumType("u1", "cloud_t", {"clear": 0, "cumulus": 1, "missing": 255})
        d.createDimension("t", 3)
        v = d.createVariable("cloud", cloud, ("t",), fill_value=255)
        v[:] = np.array([0, 1, 255], "u1")
        d.createEnumType("i2", "unused_t", {"a": 1})
    out = str(tmp_path / "copy.nc")
    r = run("convert", source, out, "--json")
    # The type no variable uses is named as left out; the rest is carried.
    assert r.returncode == 1, r.stdout
    lost = json.loads(r.stdout)["error"]["lost"]
    assert len(lost) == 1 and lost[0].startswith("/unused_t:"), lost
    r = run("convert", "--lossy", source, out, "--json")
    assert r.returncode == 0, r.stderr
    with netCDF4.Dataset(source) as want, netCDF4.Dataset(out) as got:
        assert got["cloud"].datatype.enum_dict == want["cloud"].datatype.enum_dict
        assert np.array_equal(got["cloud"][...].data, want["cloud"][...].data)
        assert list(got.dimensions) == ["t"]


def test_issue671_copy_keeps_the_classic_model_and_its_header():
    # A real netCDF-4 classic model file (EUMETSAT): the copy's kind and whole header are
    # the source's, as ncdump prints them.
    source = os.path.join(REALWORLD, "issue671.nc")
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"issue671-copy-{os.getpid()}.nc")
    try:
        r = run("convert", source, out, "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["notes"] == []
        assert program("ncdump", "-k", out).stdout.strip() == "netCDF-4 classic model"
        heads = [program("ncdump", "-h", p).stdout.split("\n", 1)[1] for p in (source, out)]
        assert heads[0] == heads[1]
    finally:
        if os.path.exists(out):
            os.remove(out)


def test_classic_files_become_netcdf4_classic_model_with_char_kept(tmp_path):
    source = str(tmp_path / "classic.nc")
    with netCDF4.Dataset(source, "w", format="NETCDF3_CLASSIC") as d:
        d.title = "char and numbers"
        d.createDimension("time", None)
        d.createDimension("n", 2)
        d.createDimension("len", 4)
        name = d.createVariable("name", "S1", ("n", "len"))
        name[:] = netCDF4.stringtochar(np.array(["ab", "wxyz"], "S4"))
        t = d.createVariable("time", "f8", ("time",))
        t[:] = [0.0, 1.5, 3.0]
        v = d.createVariable("v", "i2", ("time", "n"), fill_value=-1)
        v[:] = np.arange(6).reshape(3, 2)
    out = str(tmp_path / "copy.nc")
    r = run("convert", source, out, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["notes"] == []
    assert program("ncdump", "-k", out).stdout.strip() == "netCDF-4 classic model"
    # Everything ncdump prints, data included, is the source's: char stays char.
    dumps = [program("ncdump", p).stdout.split("\n", 1)[1] for p in (source, out)]
    assert dumps[0] == dumps[1]
    assert "char name(n, len) ;" in dumps[1]


def test_a_source_the_classic_model_cannot_hold_says_why(tmp_path):
    source = str(tmp_path / "cdf5.nc")
    with netCDF4.Dataset(source, "w", format="NETCDF3_64BIT_DATA") as d:
        d.createDimension("n", 3)
        u = d.createVariable("counts", "u2", ("n",))
        u[:] = [1, 2, 65535]
    out = str(tmp_path / "copy.nc")
    for args in [[], ["--json"]]:
        r = run("convert", source, out, *args)
        assert r.returncode == 0, r.stderr
        text = r.stdout + r.stderr
        assert "not the source's classic data model: /counts is uint16" in text, text
    assert program("ncdump", "-k", out).stdout.strip() == "netCDF-4"
    with netCDF4.Dataset(out) as d:
        d.set_auto_mask(False)  # 65535 is also u2's default fill value
        assert d["counts"][...].tolist() == [1, 2, 65535]


def test_a_named_type_only_an_attribute_has_is_not_lost(tmp_path):
    source = str(tmp_path / "named.h5")
    with h5py.File(source, "w") as f:
        f["level_t"] = h5py.enum_dtype({"LOW": 0, "HIGH": 1}, basetype="u1")
        f.attrs.create("level", 1, dtype=f["level_t"])
        f["unused_t"] = h5py.enum_dtype({"A": 1}, basetype="i2")
        f["x"] = np.arange(3)
    r = run("convert", source, str(tmp_path / "copy.h5"), "--json")
    assert r.returncode == 1, r.stdout
    lost = json.loads(r.stdout)["error"]["lost"]
    assert [item.split(":")[0] for item in lost] == ["/unused_t"], lost
