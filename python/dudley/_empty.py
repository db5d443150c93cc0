"""dudley.Empty: what an empty array or attribute reads as (HDF5's null dataspace)."""
import numpy


class Empty:
    """A type and no value, not even one element: what h5py calls ``h5py.Empty``. An array
    holding it has ``shape`` None; reading it, whatever the index, gives this object."""

    shape = None

    def __init__(self, dtype):
        self.dtype = numpy.dtype(dtype)

    def __eq__(self, other):
        return isinstance(other, Empty) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("Empty", self.dtype))

    def __repr__(self):
        return f"Empty(dtype={self.dtype!r})"
