"""What h5py users type and expect, added to the native File, Group and Array classes:
`get`, `values`, `in`, `len` and `visit` on groups; numpy scalars from integer indexes
(`a[0, 0]`, `a[()]` of a 0-d array), as h5py and numpy give them."""
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


def _install():
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
