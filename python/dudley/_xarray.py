"""xarray's backend for dudley: xarray.open_dataset(path, engine="dudley").

Found through the entry point `dudley = dudley:XarrayBackend` (a dist-info beside the
package, written by python/CMakeLists.txt); imported only when xarray asks for it, so
`import dudley` does not import xarray.
"""

import os
import warnings

import xarray as xr
from xarray.backends import BackendArray, BackendEntrypoint
from xarray.core import indexing

from . import _native


class DudleyArray(BackendArray):
    """One array of an open file, read lazily through numpy basic indexing."""

    def __init__(self, array):
        self.array = array
        self.shape = array.shape
        # Reads come back in native byte order.
        dtype = array.dtype
        self.dtype = dtype.newbyteorder("=") if dtype.byteorder in "<>" else dtype

    def __getitem__(self, key):
        return indexing.explicit_indexing_adapter(
            key, self.shape, indexing.IndexingSupport.BASIC, self.array.__getitem__)


def _arrays(f):
    """(name, Array) for every array of file `f`, depth first; a file that is one array
    (a .npy) gives ("data", it)."""
    root = f["/"]
    if isinstance(root, _native.Array):
        return [("data", root)]
    found = []
    f.visititems(lambda name, obj: found.append((name.strip("/"), obj))
                 if isinstance(obj, _native.Array) else None)
    return found


def _dimension_names(name, a, attrs):
    dims = attrs.pop("dimension_names", None)
    attrs.pop("dimension_coordinates", None)
    if isinstance(dims, list) and len(dims) == a.ndim + 1 and a.dtype.kind in "SU":
        dims = dims[:-1]  # netCDF char data: the last dimension is the strings' length
    if not isinstance(dims, list) or len(dims) != a.ndim:
        dims = [None] * a.ndim
    return [d if isinstance(d, str) else f"{name}_dim_{i}" for i, d in enumerate(dims)]


def dataset_of(f, drop_variables=(), on_unreadable="warn"):
    """The arrays of open file `f` as an xarray.Dataset of lazy variables. An array named
    like one of its dimensions and one-dimensional along it (an HDF5 dimension scale, a
    netCDF coordinate variable) becomes that dimension's coordinate. An array that cannot
    be read (an unknown codec) is left out with a warning naming it and why, or raises
    with on_unreadable="raise"."""
    if on_unreadable not in ("warn", "raise"):
        raise ValueError(f"on_unreadable={on_unreadable!r}: give \"warn\" or \"raise\"")
    variables, coords, drop = {}, {}, set(drop_variables or ())
    dimensions = set()  # every dimension named (a netCDF file's are also parameters)
    for name, a in _arrays(f):
        if a.error is not None:
            if name in drop:
                continue
            if on_unreadable == "raise":
                a.dtype  # raises the array's own error (dudley.DataTypeError, ...)
            warnings.warn(f"{name}: left out, it cannot be read: {a.error}", stacklevel=3)
            continue
        named = a.attrs.get("dimension_names")
        if isinstance(named, list):
            dimensions.update(d for d in named if isinstance(d, str))
        if name in drop:
            continue
        attrs = dict(a.attrs)
        dims = _dimension_names(name, a, attrs)
        data = indexing.LazilyIndexedArray(DudleyArray(a))
        variable = xr.Variable(dims, data, attrs=attrs)
        if a.ndim == 1 and dims == [name]:
            coords[name] = variable
        else:
            variables[name] = variable
    # A Dudley file's root parameters (a run's step, its sizes) as scalar coordinates: over
    # a family (open_mfdataset) they line up along the member dimension.
    # netCDF dimensions are parameters too: they are dimensions here, not coordinates.
    root = f["/"]
    for name, value in (root.params.items() if isinstance(root, _native.Group) else ()):
        if value is not None and name not in variables and name not in coords and \
                name not in dimensions:
            coords[name] = xr.Variable((), value)
    return xr.Dataset(variables, coords=coords, attrs=dict(f.attrs))


class XarrayBackend(BackendEntrypoint):
    """xarray.open_dataset(path, engine="dudley"): every array of any format dudley reads as a
    lazy variable named by its path, with its attributes, dimension names and coordinates.
    Over a family: xarray.open_mfdataset(dudley_paths, engine="dudley", combine="nested",
    concat_dim="member")."""

    description = "Any format dudley reads (Dudley layouts, ASDF, Zarr, Avro, HDF5, NDL, .npy)"
    url = "docs/python.md"
    open_dataset_parameters = ("filename_or_obj", "drop_variables", "layout", "order", "params",
                               "format", "on_unreadable", "mask_and_scale", "decode_times", "concat_characters",
                               "decode_coords", "use_cftime", "decode_timedelta")

    def open_dataset(self, filename_or_obj, *, drop_variables=None, layout=None, order=None,
                     params=None, format=None, on_unreadable="warn", mask_and_scale=True,
                     decode_times=True,
                     concat_characters=True, decode_coords=True, use_cftime=None,
                     decode_timedelta=None):
        f = _native.open(str(filename_or_obj), layout=layout, order=order, params=params,
                         format=format)
        # The CF conventions decoded as xarray's own engines decode them (_FillValue and
        # missing_value masked, scale_factor/add_offset applied, times as datetimes).
        return xr.conventions.decode_cf(
            dataset_of(f, drop_variables, on_unreadable), mask_and_scale=mask_and_scale,
            decode_times=decode_times, concat_characters=concat_characters,
            decode_coords=decode_coords, use_cftime=use_cftime, decode_timedelta=decode_timedelta)

    def guess_can_open(self, filename_or_obj):
        """Whether the path looks like a file dudley reads, by its first bytes, its name or
        what lies beside it, without opening it (xarray asks every engine)."""
        try:
            path = os.fspath(filename_or_obj)
        except TypeError:
            return False
        if not isinstance(path, str):
            return False
        if os.path.isdir(path):  # a Zarr store
            return any(os.path.exists(os.path.join(path, name))
                       for name in ("zarr.json", ".zgroup", ".zarray"))
        if os.path.splitext(path)[1].lower() in _EXTENSIONS:
            return True
        if os.path.exists(os.path.splitext(path)[0] + ".dud"):  # Dudley data and its layout
            return True
        try:
            with open(path, "rb") as f:
                head = f.read(8)
        except OSError:
            return False
        return any(head.startswith(magic) for magic in _SIGNATURES)


# What guess_can_open recognises: the formats' extensions and signatures.
_EXTENSIONS = {".h5", ".hdf5", ".he5", ".nc", ".nc4", ".zarr", ".asdf", ".avro", ".npy", ".ndl",
               ".dud"}
_SIGNATURES = (b"\x89HDF\r\n\x1a\n", b"CDF\x01", b"CDF\x02", b"CDF\x05", b"#ASDF", b"Obj\x01",
               b"\x93NUMPY", b"\x89d\x95d")
