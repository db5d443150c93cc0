"""xarray's backend for dudley: xarray.open_dataset(path, engine="dudley").

Found through the entry point `dudley = dudley:XarrayBackend` (a dist-info beside the
package, written by python/CMakeLists.txt); imported only when xarray asks for it, so
`import dudley` does not import xarray.
"""

import os
import warnings

import numpy as np
import xarray as xr
from xarray.backends import BackendArray, BackendEntrypoint
from xarray.core import indexing

from . import _native


class DudleyArray(BackendArray):
    """One array of an open file, read lazily: basic indexes and one integer array or mask
    per read (xarray's OUTER_1VECTOR), which dudley reads as numpy does (only the runs and
    chunks touched); xarray applies the rest of an outer or vectorised index in memory."""

    def __init__(self, array):
        self.array = array
        self.shape = array.shape
        # Reads come back in native byte order.
        dtype = array.dtype
        self.dtype = dtype.newbyteorder("=") if dtype.byteorder in "<>" else dtype

    def __getitem__(self, key):
        return indexing.explicit_indexing_adapter(
            key, self.shape, indexing.IndexingSupport.OUTER_1VECTOR, self._read)

    def _read(self, key):
        out = self.array[key]  # a numpy scalar for one element: xarray wants arrays
        if self.dtype != object:
            return np.asarray(out)
        if not isinstance(out, np.ndarray):
            out = np.array(_as_text(out), dtype=object)
        elif out.size:
            # netCDF strings are text: ASCII ones (bytes to h5py) as str, as netCDF4 reads them.
            out = np.vectorize(_as_text, otypes=[object])(out)
        return out


def _as_text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _group_arrays(group):
    """(name, Array) for the arrays directly in `group` (as netCDF and xarray's engines open
    one group); a file that is one array (a .npy) gives ("data", it)."""
    if isinstance(group, _native.Array):
        return [("data", group)]
    return [(name, a) for name, a in group.items() if isinstance(a, _native.Array)]


def _dimension_names(name, a, attrs):
    dims = attrs.pop("dimension_names", None)
    attrs.pop("dimension_coordinates", None)
    if isinstance(dims, list) and len(dims) == a.ndim + 1 and a.dtype.kind in "SU":
        dims = dims[:-1]  # netCDF char data: the last dimension is the strings' length
    if not isinstance(dims, list) or len(dims) != a.ndim:
        dims = [None] * a.ndim
    return [d if isinstance(d, str) else f"{name}_dim_{i}" for i, d in enumerate(dims)]


def _zarr_v2(f, a):
    """Whether `a` is an array of a Zarr v2 store (its .zarray beside its chunks)."""
    return f.format == "zarr" and os.path.exists(
        os.path.join(f.filename, os.fsdecode(a.name).strip("/"), ".zarray"))


def _attribute(value):
    """An attribute as netCDF4 and h5netcdf give it: one-element arrays as numpy scalars."""
    if isinstance(value, np.ndarray) and value.ndim <= 1 and value.size == 1:
        return value.reshape(())[()]
    return value


def _encoding(a, dims, source, netcdf):
    """What xarray's engines put in `encoding`: the stored type, shape and chunks, the
    codecs, where it came from (to_netcdf and to_zarr write them back)."""
    storage = a.storage
    encoding = {"dtype": a.dtype, "source": source, "original_shape": a.shape}
    chunks = storage.get("chunk_shape")
    if netcdf and a.dtype == object:
        encoding["dtype"] = str  # netCDF strings, as the netcdf4 engine says them
    if netcdf:  # the netcdf4 engine's keys, with its defaults
        encoding.update(zlib=False, szip=False, zstd=False, bzip2=False, blosc=False,
                        shuffle=False, complevel=0, fletcher32=False, contiguous=not chunks,
                        chunksizes=tuple(chunks) if chunks else None)
    else:
        encoding["chunks"] = tuple(chunks) if chunks else a.shape
    if chunks:
        encoding["preferred_chunks"] = dict(zip(dims, chunks))
    codecs = storage.get("codecs") or []
    if codecs:
        encoding["codecs"] = codecs
    for codec in codecs:
        name, config = codec.get("name"), codec.get("configuration") or {}
        if name in ("zlib", "gzip"):
            encoding["zlib"] = True
            encoding["complevel"] = config.get("level", 4)
        elif name == "shuffle":
            encoding["shuffle"] = True
        elif name in ("fletcher32", "szip", "zstd", "bzip2", "blosc"):
            encoding[name] = True
    return encoding


def dataset_of(f, drop_variables=(), on_unreadable="warn", group=None):
    """The arrays of group `group` (the root by default) of open file `f` as an
    xarray.Dataset of lazy variables, raw (CF attributes kept for xarray's decoding). An
    array named like one of its dimensions and one-dimensional along it (an HDF5 dimension
    scale, a netCDF coordinate variable) becomes that dimension's coordinate. An array that
    cannot be read (an unknown codec) is left out with a warning naming it and why, or
    raises with on_unreadable="raise"."""
    if on_unreadable not in ("warn", "raise"):
        raise ValueError(f"on_unreadable={on_unreadable!r}: give \"warn\" or \"raise\"")
    where = f["/"] if group in (None, "", "/") else f[group]
    if isinstance(where, _native.Array) and group not in (None, "", "/"):
        raise ValueError(f"group={group!r} is an array, not a group")
    variables, coords, drop = {}, {}, set(drop_variables or ())
    dimensions = set()  # every dimension named (a netCDF file's are also parameters)
    for name, a in _group_arrays(where):
        if a.error is not None:
            if name in drop:
                continue
            if on_unreadable == "raise":
                a.dtype  # raises the array's own error (dudley.DataTypeError, ...)
            warnings.warn(f"{a.name}: left out, it cannot be read: {a.error}", stacklevel=3)
            continue
        named = a.attrs.get("dimension_names")
        if isinstance(named, list):
            dimensions.update(d for d in named if isinstance(d, str))
        if name in drop:
            continue
        attrs = {k: _attribute(v) for k, v in a.attrs.items()}
        # The storage's fill value: in a Zarr v2 array, xarray's _FillValue (its zarr engine
        # masks with it there, not in v3, where _FillValue is an attribute); elsewhere not a
        # CF attribute (netCDF's is the _FillValue attribute).
        attrs.pop("fill_value", None)
        fill = a.storage.get("fill_value")
        if _zarr_v2(f, a) and fill is not None and "_FillValue" not in attrs:
            attrs["_FillValue"] = fill
        dims = _dimension_names(name, a, attrs)
        data = indexing.LazilyIndexedArray(DudleyArray(a))
        variable = xr.Variable(dims, data, attrs=attrs,
                               encoding=_encoding(a, dims, os.path.abspath(f.filename),
                                                 f.format == "hdf5"))
        if a.ndim == 1 and dims == [name]:
            coords[name] = variable
        else:
            variables[name] = variable
    # A Dudley file's parameters (a run's step, its sizes) as scalar coordinates: over a
    # family (open_mfdataset) they line up along the member dimension. netCDF dimensions
    # are parameters too: they are dimensions here, not coordinates.
    for name, value in (where.params.items() if isinstance(where, _native.Group) else ()):
        if value is not None and name not in variables and name not in coords and \
                name not in dimensions:
            coords[name] = xr.Variable((), value)
    attrs = {k: _attribute(v) for k, v in where.attrs.items()}
    return xr.Dataset(variables, coords=coords, attrs=attrs)


def _groups(f):
    """Every group's path in `f`, the root first, then depth first as h5py visits them."""
    root = f["/"]
    if isinstance(root, _native.Array):
        return ["/"]
    found = ["/"]
    f.visititems(lambda name, obj: found.append("/" + name.strip("/"))
                 if isinstance(obj, _native.Group) else None)
    return found


def _decoded(dataset, mask_and_scale=True, decode_times=True, concat_characters=True,
             decode_coords=True, use_cftime=None, decode_timedelta=None):
    """The CF conventions decoded by xarray's own machinery, as for its netCDF engines
    (_FillValue and missing_value masked, scale_factor/add_offset applied, times as
    datetimes, the raw attributes moved to encoding)."""
    return xr.conventions.decode_cf(
        dataset, mask_and_scale=mask_and_scale, decode_times=decode_times,
        concat_characters=concat_characters, decode_coords=decode_coords,
        use_cftime=use_cftime, decode_timedelta=decode_timedelta)


class XarrayBackend(BackendEntrypoint):
    """xarray.open_dataset(path, engine="dudley"): the arrays of one group (the root, or
    `group=`) of any format dudley reads as lazy variables with their attributes, dimension
    names, coordinates and encoding, CF-decoded by xarray as its netcdf4 and h5netcdf
    engines are; xarray.open_datatree(path, engine="dudley") for every group. Over a family:
    xarray.open_mfdataset(dudley_paths, engine="dudley", combine="nested",
    concat_dim="member")."""

    description = "Any format dudley reads (Dudley layouts, ASDF, Zarr, Avro, HDF5, NDL, .npy)"
    url = "docs/python.md"
    open_dataset_parameters = ("filename_or_obj", "drop_variables", "group", "layout", "order",
                               "params", "format", "storage_options", "on_unreadable",
                               "mask_and_scale",
                               "decode_times", "concat_characters", "decode_coords",
                               "use_cftime", "decode_timedelta")

    def open_dataset(self, filename_or_obj, *, drop_variables=None, group=None, layout=None,
                     order=None, params=None, format=None, storage_options=None,
                     on_unreadable="warn", **decoding):
        f = _native.open(str(filename_or_obj), layout=layout, order=order, params=params,
                         format=format, storage_options=storage_options)
        return _decoded(dataset_of(f, drop_variables, on_unreadable, group), **decoding)

    def open_groups_as_dict(self, filename_or_obj, *, drop_variables=None, layout=None,
                            order=None, params=None, format=None, storage_options=None,
                            on_unreadable="warn", **decoding):
        """{group path: Dataset} for every group of the file (xarray's open_groups)."""
        decoding.pop("group", None)
        f = _native.open(str(filename_or_obj), layout=layout, order=order, params=params,
                         format=format, storage_options=storage_options)
        return {path: _decoded(dataset_of(f, drop_variables, on_unreadable, path), **decoding)
                for path in _groups(f)}

    def open_datatree(self, filename_or_obj, **kwargs):
        """xarray.open_datatree(path, engine="dudley"): every group as a node of the tree."""
        return xr.DataTree.from_dict(self.open_groups_as_dict(filename_or_obj, **kwargs))

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
