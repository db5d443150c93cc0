"""dudley: open any file dudley reads (Dudley layouts, ASDF, Zarr, Avro, HDF5, NDL, .npy)
h5py-style, read arrays into numpy with numpy's basic indexing, and write numpy arrays.

    import dudley
    with dudley.open("run.h5") as f:
        rho = f["/hydro/rho"][1:, ::2]      # a numpy array; only the selection is read

See docs/python.md for the whole interface.
"""
import os as _os

from ._native import (Array, DataError, DataTypeError, Diagnostic, Error, Family, File,
                      FileError, Group, LimitError, LossError, ParseError, SemanticError,
                      UsageError, __version__, check, fmt, open_family)
from ._native import open as _open_native
from ._native import _family_native, _reopen_native
from . import _h5py_habits  # noqa: F401  (adds get, values, in, len, visit; scalars)
from ._dask import to_dask
from ._empty import Empty
from ._paths import resolve as _resolve_path
from ._save import Item, save
from ._writer import FamilyWriter, UnwrittenWarning, Writer

__all__ = ["Array", "DataError", "DataTypeError", "Diagnostic", "Empty", "Error", "Family",
           "FamilyWriter", "File", "FileError", "Group", "Item", "LimitError", "LossError",
           "ParseError",
           "SemanticError", "UnwrittenWarning", "UsageError", "Writer", "check", "fmt", "open", "open_family",
           "save", "to_dask"]


def open(path, layout=None, order=None, params=None, format=None, storage_options=None,
         allow_outside=None):
    path, storage_options = _resolve_path(path, storage_options)
    if allow_outside is not None:
        # One folder or several, str or path objects.
        single = isinstance(allow_outside, (str, bytes, _os.PathLike))
        allow_outside = [_os.fsdecode(f) for f in ([allow_outside] if single else allow_outside)]
    return _open_native(path, layout, order, params, format, storage_options, allow_outside)


open.__doc__ = (_open_native.__doc__ or "").split("\n\n", 1)[-1] + (
    " path may also be a path object, or an fsspec file object (s3fs.S3FileSystem().open(...), "
    "fsspec.open(...)): read at its URL with its file system's credentials.")


def _reopen(path, request, node_path):
    """Opens a pickled file, group or array again (pickle calls it by this name)."""
    return _reopen_native(path, request, node_path)


def _family(members):
    """Rebuilds a pickled Family (pickle calls it by this name)."""
    return _family_native(members)


def __getattr__(name):
    # xarray's backend is imported when xarray asks for it: `import dudley` stays fast and
    # does not need xarray.
    if name == "XarrayBackend":
        from ._xarray import XarrayBackend
        return XarrayBackend
    raise AttributeError(f"module 'dudley' has no attribute {name!r}")
