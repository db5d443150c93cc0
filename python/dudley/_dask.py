"""dudley.to_dask: any array dudley reads, or one array of every member of a family, as a
dask.array (Dask imported only when used)."""
import numpy as np

from . import _native


class FamilyArray:
    """Array `path` of every member of a family as one array of shape (members, ...): what
    to_dask reads a family through. Indexing reads the members the first index selects
    (Family.read: the layout planned once), the rest of the index applied to each. Every
    member must hold the array with the first one's shape and type (else dudley.DataError).
    Pickles as its family and path."""

    def __init__(self, family, path, shape=None, dtype=None):
        self.family, self.path = family, path
        if shape is None:
            # Every member's shape and type, checked now: a member that differs is named
            # when the graph is built, not when a task reads it.
            first = family[0][path]
            dtype = first.dtype
            shape = (len(family),) + first.shape
            for i in range(1, len(family)):
                other = family[i][path]
                if other.shape != first.shape or other.dtype != first.dtype:
                    raise _native.DataError(
                        f"{path}: member {i} ({family.files[i]}) holds it as {other.dtype} "
                        f"{other.shape}, member 0 ({family.files[0]}) as {first.dtype} "
                        f"{first.shape}; to_dask stacks members of one shape and type (read "
                        "them with Family.read(..., stack=False))")
        self.shape, self.dtype, self.ndim = tuple(shape), np.dtype(dtype), len(shape)
        self.read_unit = (1,) + self.shape[1:]  # a member

    def __reduce__(self):
        return (FamilyArray, (self.family, self.path, self.shape, self.dtype))

    def __getitem__(self, key):
        """Members key[0] (an integer or a slice: what Dask asks), each indexed by key[1:]."""
        key = key if isinstance(key, tuple) else (key,)
        which, rest = (key[0], key[1:]) if key else (slice(None), ())
        picked = range(self.shape[0])[which]
        single = isinstance(picked, int)
        if not single and len(picked) == 0:  # no member: numpy's empty result
            return np.empty((0,) + self.shape[1:], self.dtype)[(slice(None),) + rest]
        members = self.family._subset([picked] if single else list(picked))
        parts = members.read(self.path, rest or Ellipsis, stack=True)
        if isinstance(parts, list):
            raise _native.DataError(f"{self.path}: members of the family differ in shape or "
                                    "type; read them with Family.read(..., stack=False)")
        return parts[0] if single else parts


def to_dask(array, chunks=None, path=None):
    """A dask.array over `array`: a dudley.Array, or with `path` a dudley.Family (array
    `path` of every member, stacked on a new first axis).

    Chunks follow the read unit (a chunk or block the format decodes at once, a family
    member): each Dask chunk is a whole number of them, grouped to Dask's configured chunk
    size (array.chunk-size, 128 MiB by default), so no unit is decoded by two tasks; arrays
    stored as one run of bytes get Dask's own choice. Give `chunks` to choose. The graph
    pickles arrays and families by path, so it runs on dask.distributed worker processes as
    well as on threads."""
    import dask.array as da

    if isinstance(array, _native.Family):
        if path is None:
            raise TypeError("to_dask(family, path=...): name the array to read from each member")
        array = FamilyArray(array, path)
    # Reads come back in native byte order, as the meta says.
    dtype = array.dtype.newbyteorder("=") if array.dtype.byteorder in "<>" else array.dtype
    if chunks is None:
        import dask
        from dask.utils import parse_bytes
        limit = parse_bytes(dask.config.get("array.chunk-size", "128MiB"))
        chunks = da.core.normalize_chunks("auto", array.shape, dtype=dtype, limit=limit,
                                          previous_chunks=array.read_unit)
    meta = np.empty((0,) * array.ndim, dtype=dtype)
    # The array is inlined in every task: it pickles by path in ~100 bytes, and tasks that
    # each carry it start at once on every worker, instead of waiting for one worker to
    # make it and the others to fetch it.
    return da.from_array(array, chunks=chunks, meta=meta, asarray=False, fancy=False,
                         lock=False, inline_array=True)
