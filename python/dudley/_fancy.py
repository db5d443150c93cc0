"""numpy's advanced indexing on a dudley.Array: integer arrays and lists (any order, repeats),
boolean masks, mixed with integers, slices, Ellipsis and np.newaxis, with numpy's result.

The index is turned into an outer selection (per dimension a run or the distinct coordinates
it touches), which the library reads with as few requests as the runs and chunks allow
(model::read_outer); numpy then picks the result from what was read, so its rules (where the
broadcast dimensions go, repeats, order) hold by construction. Indexes whose arrays pair up
coordinates (``a[rows, cols]`` with many points) would make that outer box far larger than
the result: those are read point group by point group instead.
"""

import operator

import numpy as np

# An outer box this many times the result (and above _SMALL elements) is read point-wise.
_POINT_FACTOR = 16
_SMALL = 1 << 20


def _entries(index, ndim):
    """The index as a list of (kind, value): "int", "slice", "array", "mask" (each taking one
    dimension, a mask as many as it has), "new", "bool0" (none), "ellipsis" and "implicit"
    (the dimensions not named, as many as the value says)."""
    raw = index if isinstance(index, tuple) else (index,)
    parsed = []
    ellipses = 0
    for e in raw:
        if e is None:
            parsed.append(("new", None))
        elif e is Ellipsis:
            ellipses += 1
            if ellipses > 1:
                raise IndexError("an index can only have a single ellipsis ('...')")
            parsed.append(("ellipsis", None))
        elif isinstance(e, slice):
            parsed.append(("slice", e))
        elif isinstance(e, (bool, np.bool_)):
            parsed.append(("bool0", bool(e)))
        elif isinstance(e, (list, tuple, np.ndarray)):
            a = np.asarray(e)
            if a.dtype == np.bool_:
                parsed.append(("bool0", bool(a)) if a.ndim == 0 else ("mask", a))
            elif a.size == 0 and a.dtype.kind not in "iu":
                parsed.append(("array", a.astype(np.intp)))  # [] is an empty integer index
            elif a.dtype.kind not in "iu":
                raise IndexError("arrays used as indices must be of integer (or boolean) type")
            elif a.ndim == 0:
                parsed.append(("int", int(a)))
            else:
                parsed.append(("array", a))
        else:
            try:
                parsed.append(("int", operator.index(e)))
            except TypeError:
                raise IndexError(
                    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                    "integer or boolean arrays are valid indices") from None
    taken = sum(v.ndim if k == "mask" else 1 for k, v in parsed if k in ("int", "slice", "array", "mask"))
    if taken > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, "
                         f"but {taken} were indexed")
    # numpy keeps Ellipsis as an entry (it parts advanced indexes even when it stands for no
    # dimension); the dimensions left out at the end are numpy's too, standing apart.
    out = [("ellipsis", ndim - taken) if k == "ellipsis" else (k, v) for k, v in parsed]
    if ellipses == 0:
        out.append(("implicit", ndim - taken))
    return out


def _per_axis(entries, shape):
    """Masks checked against the dimensions they cover and replaced by their nonzero()
    arrays; integers and arrays checked against their dimension's size, made non-negative.
    Returns the entries and, for each, its dimension (None for "new" and "bool0")."""
    out, dims = [], []
    axis = 0
    for k, v in entries:
        if k == "mask":
            for j in range(v.ndim):
                if v.shape[j] != shape[axis + j]:
                    raise IndexError(
                        f"boolean index did not match indexed array along dimension {axis + j}; "
                        f"dimension is {shape[axis + j]} but corresponding boolean dimension "
                        f"is {v.shape[j]}")
            for j, nz in enumerate(v.nonzero()):
                out.append(("array", nz))
                dims.append(axis + j)
            axis += v.ndim
            continue
        if k in ("new", "bool0"):
            out.append((k, v))
            dims.append(None)
            continue
        if k in ("ellipsis", "implicit"):
            out.append((k, v))
            dims.append(axis)  # the first of the v dimensions it stands for
            axis += v
            continue
        n = shape[axis]
        if k == "int":
            if not -n <= v < n:
                raise IndexError(f"index {v} is out of bounds for axis {axis} with size {n}")
            v = v % n if n else v
        elif k == "array":
            if v.size:
                low, high = int(v.min()), int(v.max())
                bad = low if low < -n else (high if high >= n else None)
                if bad is not None:
                    raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
            v = np.where(v < 0, v + n, v).astype(np.int64)
        out.append((k, v))
        dims.append(axis)
        axis += 1
    return out, dims


def read(array, index):
    """array[index] for an index with advanced entries, as numpy gives it."""
    shape = array.shape
    entries, dims = _per_axis(_entries(index, len(shape)), shape)
    axes = [None] * len(shape)  # the outer selection, per dimension
    remap = []  # the index numpy applies to what is read
    arrays = []  # (position in remap, distinct coordinates, inverse) per array entry
    for (k, v), d in zip(entries, dims):
        if k == "int":
            axes[d] = [v]
            remap.append(0)
        elif k == "slice":
            start, stop, step = v.indices(shape[d])
            axes[d] = (start, len(range(start, stop, step)), step)
            remap.append(slice(None))
        elif k == "array":
            distinct, inverse = np.unique(v, return_inverse=True)
            axes[d] = distinct.tolist()
            arrays.append((len(remap), d, inverse.reshape(v.shape)))
            remap.append(None)  # set once positions are known
        elif k in ("ellipsis", "implicit"):
            for j in range(v):
                axes[d + j] = (0, shape[d + j], 1)
            if k == "ellipsis":
                remap.append(Ellipsis)
        else:
            remap.append(None if k == "new" else v)
    try:
        np.broadcast_shapes(*(inverse.shape for _, _, inverse in arrays))
    except ValueError:
        shapes = " ".join(str(inverse.shape) for _, _, inverse in arrays)
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                         f"with shapes {shapes}") from None
    if array.dtype == object:
        return _read_box(array, axes, remap, arrays)
    if (len(arrays) > 1 and not any(k == "bool0" for k, _ in entries)
            and _outer_too_large(axes, arrays)):
        return _read_points(array, entries, dims, axes, arrays)
    data, positions, _ = array._read_outer(axes)
    for at, d, inverse in arrays:
        remap[at] = positions[d][inverse]
    return _scalar(data[tuple(remap)])


def _scalar(result):
    """numpy's scalar for a 0-d result, as numpy and h5py give one element."""
    return result[()] if isinstance(result, np.ndarray) and result.ndim == 0 else result


def _outer_too_large(axes, arrays):
    """Whether the outer box of paired coordinates dwarfs the result."""
    outer = 1
    for a in axes:
        outer *= a[1] if isinstance(a, tuple) else len(a)
    result = int(np.prod(np.broadcast_shapes(*(inv.shape for _, _, inv in arrays)), dtype=np.int64))
    for a in axes:
        if isinstance(a, tuple):
            result *= a[1]
    return outer > max(_POINT_FACTOR * result, _SMALL)


def _read_box(array, axes, remap, arrays):
    """Object (variable-length) arrays: the bounding box read by basic indexing, then picked."""
    box = []
    for a in axes:
        if isinstance(a, tuple):
            start, count, step = a
            stop = start + count * step
            box.append(slice(start, stop if stop >= 0 else None, step))
        else:
            box.append(slice(a[0], a[-1] + 1) if a else slice(0, 0))
    data = np.asarray(array[tuple(box)])
    for at, d, inverse in arrays:
        low = axes[d][0] if axes[d] else 0
        remap[at] = np.asarray(axes[d], dtype=np.int64)[inverse] - low
    return _scalar(data[tuple(remap)])


def _read_points(array, entries, dims, axes, arrays):
    """Indexes whose arrays pair coordinates up (points): the distinct points are read group
    by group (one outer read per distinct first coordinate) into G, one row per point, and
    numpy indexes G with the points' numbers where the arrays stood, which places them as
    numpy places advanced indexes (in place when they are adjacent, else first)."""
    advanced = [i for i, (k, _) in enumerate(entries) if k in ("int", "array")]
    adv_dims = [dims[i] for i in advanced]
    columns = np.broadcast_arrays(*(np.asarray(entries[i][1], dtype=np.int64) for i in advanced))
    wanted = columns[0].shape
    points = np.stack([c.ravel() for c in columns], axis=1)
    distinct, number = np.unique(points, axis=0, return_inverse=True)
    firsts = np.flatnonzero(np.r_[True, distinct[1:, 0] != distinct[:-1, 0]])
    rows = []
    for g, begin in enumerate(firsts):
        end = firsts[g + 1] if g + 1 < len(firsts) else len(distinct)
        group = distinct[begin:end]
        outer = list(axes)
        picks = []
        for j, d in enumerate(adv_dims):
            coords, inverse = np.unique(group[:, j], return_inverse=True)
            outer[d] = coords.tolist()
            picks.append(inverse)
        data, positions, _ = array._read_outer(outer)
        data = np.moveaxis(data, adv_dims, range(len(adv_dims)))
        pick = tuple(positions[d][p] for d, p in zip(adv_dims, picks))
        rows.append(data[pick])
    g = np.concatenate(rows) if rows else np.empty((0,), dtype=array.dtype)
    number = np.asarray(number).reshape(wanted)
    adjacent = advanced == list(range(advanced[0], advanced[-1] + 1))
    if not adjacent:
        return _scalar(g[(number,) + tuple(_kept(entries))])
    g = np.moveaxis(g, 0, sum(1 for x in _kept(entries[:advanced[0]]) if x is not None))
    index = _kept(entries[:advanced[0]]) + [number] + _kept(entries[advanced[-1] + 1:])
    return _scalar(g[tuple(index)])


def _kept(entries):
    """The index G takes for the entries that keep or add dimensions: slice(None) per kept
    dimension, None per new axis."""
    out = []
    for k, v in entries:
        if k == "slice":
            out.append(slice(None))
        elif k == "new":
            out.append(None)
        elif k in ("ellipsis", "implicit"):
            out += [slice(None)] * v
    return out
