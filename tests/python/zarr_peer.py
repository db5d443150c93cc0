"""Writing Zarr v2 arrays with whichever zarr-python is installed: Debian's 2.13 (v2 only)
or zarr 3 from PyPI (v3 by default, v2 when asked), so the tests run on both stacks."""
import zarr

ZARR3 = int(zarr.__version__.split(".")[0]) >= 3


def write_v2(path, values, chunks):
    """`values` as a Zarr v2 array at `path`, chunked by `chunks`."""
    more = {"zarr_format": 2} if ZARR3 else {}
    if values.dtype.fields is not None:
        more["fill_value"] = None  # zarr 2.13 compares a structured dtype with 0 otherwise
    z = zarr.open_array(str(path), mode="w", shape=values.shape, chunks=chunks,
                        dtype=values.dtype, **more)
    z[...] = values
    return z
