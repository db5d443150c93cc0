"""What h5py users type and expect, added to the native File, Group and Array classes:
`get`, `values`, `in`, `len` and `visit` on groups; numpy scalars from integer indexes
(`a[0, 0]`, `a[()]` of a 0-d array), as h5py and numpy give them; on arrays h5py's
`chunks`, `compression`, `compression_opts`, `shuffle`, `fletcher32`, `fillvalue`,
`maxshape`, `astype` and `read_direct`; `File.mode`."""
import numpy as np

from . import _native

_MISSING = object()


def _get(self, name, default=None):
    """The member `name` (a path from here, or absolute), or `default` when there is none:
    h5py's Group.get."""
    try:
        return self[name]
    except KeyError:
        return default


def _values(self):
    """The members, in the order of keys()."""
    return [self[k] for k in self.keys()]


def _contains(self, name):
    return _get(self, name, _MISSING) is not _MISSING


def _len(self):
    return len(self.keys())


def _iter(self):
    return iter(self.keys())


def _visit(self, func):
    """Calls func(name) for every member below this group, names relative to it, in the
    order of visititems; stops at the first call that returns something other than None
    and returns that, as h5py's visit does."""
    return self.visititems(lambda name, obj: func(name))


def _integers_only(key):
    keys = key if isinstance(key, tuple) else (key,)
    return all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in keys)


# h5py's names of the codecs it knows, by our codec names.
_COMPRESSION = {"zlib": "gzip", "gzip": "gzip", "lzf": "lzf", "szip": "szip"}


def _codecs(self):
    return [c.get("name") for c in self.storage.get("codecs") or []]


def _chunks(self):
    """The chunk shape, or None for data stored in one run (h5py's Dataset.chunks)."""
    chunks = self.storage.get("chunk_shape")
    return tuple(chunks) if chunks else None


def _compression(self):
    """The compressing codec by h5py's name ("gzip", "lzf", "szip"; others by their own
    name, "zstd", "blosc"), or None."""
    for name in _codecs(self):
        if name in _COMPRESSION:
            return _COMPRESSION[name]
        if name not in ("shuffle", "fletcher32", "bytes", "crc32c", "transpose", "delta",
                        "vlen-utf8", "vlen-bytes", "nbit", "scaleoffset"):
            return name
    return None


def _compression_opts(self):
    """The gzip level (h5py's compression_opts), or None."""
    for c in self.storage.get("codecs") or []:
        if c.get("name") in ("zlib", "gzip"):
            return (c.get("configuration") or {}).get("level")
    return None


def _fillvalue(self):
    """What unwritten elements read as: the stored fill value, else the type's zero, as
    h5py's Dataset.fillvalue."""
    dtype = self.dtype
    if dtype.kind == "O":
        return None  # variable-length elements have no fixed fill
    value = self.storage.get("fill_value", self.attrs.get("fill_value"))
    return np.asarray(0 if value is None else value).astype(dtype).reshape(())[()]


def _maxshape(self):
    """The largest shape the array may grow to (None: unlimited), else its shape."""
    return tuple(self.storage.get("max_shape") or self.shape)


class AsType:
    """`a.astype(dtype)`: reads of `a` converted to `dtype`, as h5py's Dataset.astype."""

    def __init__(self, array, dtype):
        self._array, self.dtype = array, np.dtype(dtype)

    def __getitem__(self, key):
        return np.asarray(self._array[key]).astype(self.dtype)

    def __array__(self, dtype=None):
        out = self[...]
        return out if dtype is None else out.astype(dtype)

    def __len__(self):
        return len(self._array)


def _astype(self, dtype):
    return AsType(self, dtype)


def _read_direct(self, dest, source_sel=None, dest_sel=None):
    """Reads `self[source_sel]` into `dest[dest_sel]` (h5py's read_direct): `dest` must be
    a writeable C-contiguous numpy array."""
    if not isinstance(dest, np.ndarray) or not dest.flags.c_contiguous or \
            not dest.flags.writeable:
        raise TypeError("read_direct needs a writeable C-contiguous numpy array")
    data = self[... if source_sel is None else source_sel]
    dest[... if dest_sel is None else dest_sel] = data


def _install():
    for name, func in (("chunks", _chunks), ("compression", _compression),
                       ("compression_opts", _compression_opts), ("fillvalue", _fillvalue),
                       ("maxshape", _maxshape),
                       ("shuffle", lambda self: "shuffle" in _codecs(self)),
                       ("fletcher32", lambda self: "fletcher32" in _codecs(self))):
        setattr(_native.Array, name, property(func, doc=func.__doc__))
    _native.Array.astype = _astype
    _native.Array.read_direct = _read_direct
    _native.File.mode = property(lambda self: "r", doc="Always \"r\": files are read only")
    for cls in (_native.File, _native.Group):
        for name, func in (("get", _get), ("values", _values), ("__contains__", _contains),
                           ("__len__", _len), ("__iter__", _iter), ("visit", _visit)):
            if not hasattr(cls, name):
                setattr(cls, name, func)
    read = _native.Array.__getitem__

    def getitem(self, key):
        """As before; a single element chosen by integers (or `()` of a 0-d array) is a
        numpy scalar, as h5py and numpy return it; `...` keeps a 0-d array."""
        got = read(self, key)
        if isinstance(got, np.ndarray) and got.ndim == 0 and \
                (key == () or _integers_only(key)):
            return got[()]
        return got

    getitem.__doc__ = (read.__doc__ or "") + "\n" + getitem.__doc__
    _native.Array.__getitem__ = getitem


_install()
