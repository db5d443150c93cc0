"""dudley.save and dudley.Item: writing a tree of numpy arrays (or an open file) in any
format the library writes."""
from . import _native


class Item:
    """A value of a dict given to dudley.save, with what a bare array cannot say: its
    attributes (a dict: numpy arrays and numpy scalars are kept typed, other values as
    JSON-like values) and its documentation.

        dudley.save({"rho": dudley.Item(rho, attrs={"units": "kg/m3"}),
                     "run": dudley.Item({"t": t}, attrs={"step": np.int32(7)})}, "out.h5")
    """

    def __init__(self, value, attrs=None, doc=""):
        self.value = value
        self.attrs = dict(attrs or {})
        self.doc = doc

    def __repr__(self):
        return f"dudley.Item({self.value!r}, attrs={self.attrs!r}, doc={self.doc!r})"


def save(obj, path, format=None, lossy=False, storage_options=None, overwrite=False):
    """Write `obj` to `path`, in the format its extension names or `format`: a file
    dudley.open returned (any format), or a dict of numpy arrays (any strides, byte order
    or structured dtype; lists and scalars too), str values, dicts for groups, and
    dudley.Item for attributes. The output appears whole or not at all, never over the
    file being read. What the format cannot carry (a Dudley layout holds no attribute
    values) raises dudley.LossError naming every item (its `lost`), and nothing is written;
    with lossy=True the rest is written. `path` may be s3://BUCKET/NAME, reached with
    `storage_options` (fsspec's names, as dudley.open takes them): the output is staged in
    $TMPDIR and uploaded, a Zarr store's metadata after its chunks. What is at `path` already
    is replaced only when it is an output of the same format (a file the format recognises,
    a Zarr store of nothing but its own keys) or an empty folder; anything else (a folder of
    your files, a file of another format) raises dudley.Error naming it, unless
    overwrite=True, and even then a Zarr store written into a folder removes only its own
    keys. Returns notes on what the format keeps otherwise, then "left out: ..." for each
    item a lossy save left out."""
    if not isinstance(obj, (dict, Item)) and not hasattr(obj, "keys") and \
            not isinstance(obj, (_native.Array,)):
        # A bare array (or a list, or a scalar) is the file's one array, named "data" where
        # the format names arrays (.npy holds it as it is).
        obj = {"data": obj}
    from ._paths import resolve
    path, storage_options = resolve(path, storage_options)
    return _native._save(obj, path, format, Item, lossy, storage_options, overwrite)
