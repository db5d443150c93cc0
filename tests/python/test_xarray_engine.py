"""The xarray engine side by side with xarray's own engines (netcdf4, zarr) on the same
files: equal datasets after CF decoding with every decoding option, groups, dropped
variables, encoding, lazy outer and vectorised indexing, and DataTree where xarray has it."""
import os

# h5py before netCDF4: on the PyPI stack each wheel bundles a libhdf5, and h5py imported
# after netCDF4's fails with "Not a datatype" (the whole suite imports h5py first too).
import h5py  # noqa: F401
import netCDF4
import numpy as np
import pytest
import xarray as xr

import dudley  # noqa: F401 (the engine's package)


@pytest.fixture(scope="module")
def cf_file(tmp_path_factory):
    """A netCDF-4 file as CF producers write it: times with units, packed integers with a
    fill value, scale and offset, strings, a coordinate-less dimension and a group."""
    path = tmp_path_factory.mktemp("cf") / "cf.nc"
    with netCDF4.Dataset(path, "w") as d:
        d.createDimension("time", 3)
        d.createDimension("x", 4)
        t = d.createVariable("time", "f8", ("time",))
        t.units = "days since 2000-01-01"
        t.calendar = "standard"
        t[:] = [0, 1, 2.5]
        v = d.createVariable("tas", "i2", ("time", "x"), fill_value=-999, zlib=True,
                             chunksizes=(1, 4))
        v.scale_factor = 0.5
        v.add_offset = 10.0
        v.units = "K"
        v.set_auto_maskandscale(False)
        v[:] = np.array([[1, 2, -999, 4], [5, 6, 7, 8], [9, 10, 11, -999]], dtype="i2")
        lag = d.createVariable("lag", "f4", ("x",))
        lag.units = "hours"
        lag[:] = [1, 2, 3, 4]
        s = d.createVariable("name", str, ("x",))
        s[:] = np.array(["a", "bb", "c", "dd"], dtype=object)
        d.title = "cf test"
        d.version = np.int32(3)
        g = d.createGroup("sub")
        g.createDimension("y", 2)
        w = g.createVariable("w", "f4", ("y",), fill_value=np.float32(-1))
        w[:] = [1.5, -1]
        g.note = "inner"
    return str(path)


OPTIONS = [
    {},
    {"mask_and_scale": False},
    {"decode_times": False},
    {"decode_timedelta": True},
    {"decode_times": False, "mask_and_scale": False, "decode_coords": False},
    {"use_cftime": True},
    {"concat_characters": False},
    {"drop_variables": ["tas"]},
    {"group": "sub"},
    {"group": "/sub", "mask_and_scale": False},
]


@pytest.mark.parametrize("engine", ["netcdf4", "h5netcdf"])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "defaults")
def test_equal_to_netcdf_engines(cf_file, options, engine):
    want = xr.open_dataset(cf_file, engine=engine, **options).load()
    got = xr.open_dataset(cf_file, engine="dudley", **options).load()
    xr.testing.assert_identical(want, got)
    if engine != "netcdf4":
        return  # h5netcdf's encoding keys are its own
    for name in want.variables:
        for key in ("dtype", "_FillValue", "scale_factor", "add_offset", "units", "calendar",
                    "chunksizes", "zlib", "shuffle", "complevel", "original_shape", "source"):
            if key in want[name].encoding:
                assert np.array_equal(got[name].encoding.get(key), want[name].encoding[key]), \
                    (name, key, got[name].encoding)


def test_lazy_outer_and_vectorised_indexing(cf_file):
    want = xr.open_dataset(cf_file, engine="netcdf4")
    got = xr.open_dataset(cf_file, engine="dudley")
    for select in (dict(time=[2, 0], x=[3, 1, 1]), dict(time=slice(None, None, -1), x=[0, 2]),
                   dict(x=xr.DataArray([0, 3], dims="p"), time=xr.DataArray([1, 2], dims="p")),
                   dict(time=np.array([True, False, True]))):
        xr.testing.assert_identical(want.tas.isel(**select).load(), got.tas.isel(**select).load())


def test_equal_to_zarr_engine(tmp_path):
    ds = xr.Dataset({"t": (("time", "y"), np.arange(6.0).reshape(3, 2), {"units": "K"}),
                     "n": (("y",), np.array([1, -5], dtype="i4"))},
                    coords={"time": np.array(["2001-01-01", "2001-01-02", "2001-01-05"],
                                             dtype="datetime64[ns]")},
                    attrs={"title": "zarr run"})
    ds["n"].encoding["_FillValue"] = -5
    store = str(tmp_path / "x.zarr")
    ds.to_zarr(store, mode="w", consolidated=False)
    want = xr.open_dataset(store, engine="zarr", consolidated=False).load()
    got = xr.open_dataset(store, engine="dudley").load()
    xr.testing.assert_identical(want, got)
    assert got["t"].encoding["preferred_chunks"] == want["t"].encoding["preferred_chunks"]


def test_open_datatree(cf_file):
    if not hasattr(xr, "open_datatree"):
        pytest.skip(f"xarray {xr.__version__} has no DataTree (the PyPI stack tests it)")
    want = xr.open_datatree(cf_file, engine="netcdf4")
    got = xr.open_datatree(cf_file, engine="dudley")
    xr.testing.assert_identical(want.load(), got.load())


def test_open_groups_as_dict(cf_file):
    from dudley._xarray import XarrayBackend
    groups = XarrayBackend().open_groups_as_dict(cf_file)
    assert list(groups) == ["/", "/sub"]
    xr.testing.assert_identical(groups["/sub"].load(),
                                xr.open_dataset(cf_file, engine="netcdf4", group="sub").load())


REALWORLD = os.path.join(os.path.dirname(__file__), "..", "data", "realworld")


@pytest.mark.parametrize("name", ["CRM032_test1.nc", "issue1152.nc", "issue671.nc",
                                  "netcdf_dummy_file.nc", "ubyte.nc",
                                  pytest.param("pyfive_h5netcdf_test.hdf5", marks=pytest.mark.xfail(
                                      strict=True, reason="known differences: a dimension "
                                      "without a variable whose scale holds strings (z), and "
                                      "dimension-only parameters shown as scalar coordinates"))])
def test_real_files_equal_to_netcdf4_engine(name):
    """Files other projects wrote (tests/data/realworld/SOURCES.md): the same dataset as
    xarray's netcdf4 engine gives, decoded and raw."""
    path = os.path.join(REALWORLD, name)
    for options in ({}, {"mask_and_scale": False, "decode_times": False}):
        try:
            want = xr.open_dataset(path, engine="netcdf4", **options).load()
        except ValueError:
            continue  # the peer refuses these options (times it cannot decode): nothing to compare
        got = xr.open_dataset(path, engine="dudley", **options).load()
        xr.testing.assert_identical(want, got)
        sel = {d: [0, -1] if n > 1 else [0] for d, n in want.sizes.items() if n}
        if sel and want.data_vars:
            xr.testing.assert_identical(want.isel(sel), got.isel(sel))
