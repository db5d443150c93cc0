"""dudley.to_dask: any array dudley reads as a dask.array (Dask imported only when used)."""


def to_dask(array, chunks=None):
    """A dask.array over `array` (a dudley.Array). Chunks follow its read unit: each Dask
    chunk is a whole number of the chunks or blocks the format decodes at once, grouped to
    Dask's configured chunk size (array.chunk-size, 128 MiB by default), so no stored chunk
    is decoded by two tasks; arrays stored as one run of bytes get Dask's own choice. Give
    `chunks` to choose. The graph pickles the array by path, so it runs on dask.distributed
    worker processes as well as on threads."""
    import dask.array as da
    import numpy as np

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
