"""dudley's ``.attrs``: a read-only mapping of an item's attributes, as h5py's
AttributeManager reads. An attribute that could not be read (one the HDF5 library cannot
convert, or all of them when the file's list of them is damaged) keeps its name: ``keys()``
lists it and reading it raises the error that says why, never a silent gap."""
from collections.abc import Mapping


class Attributes(Mapping):
    """Names -> values (numpy arrays, strings, numbers, lists and dicts); read only."""

    def __init__(self, values, errors):
        self._values = values
        self._errors = errors  # name -> the dudley.Error reading it raised

    def __getitem__(self, name):
        if name in self._errors:
            raise self._errors[name]
        return self._values[name]

    def __iter__(self):
        yield from self._values
        yield from (name for name in self._errors if name not in self._values)

    def __len__(self):
        return len(self._values) + sum(1 for n in self._errors if n not in self._values)

    def __contains__(self, name):
        return name in self._values or name in self._errors

    @property
    def errors(self):
        """{name: the error reading it raised} of the attributes that could not be read
        ("" for all of an item's, when they could not even be listed)."""
        return dict(self._errors)

    def __repr__(self):
        shown = ", ".join(repr(k) for k in self)
        return f"<dudley attributes: {shown}>"
