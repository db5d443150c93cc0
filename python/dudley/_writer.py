"""dudley.Writer and dudley.FamilyWriter: numpy arrays into Dudley data files through a
layout, committed atomically. The C++ writer does the work (dudley._native._Writer); this
adds the Python conveniences: w["/x"] = a, regions by numpy index, casting to the declared
type, context managers."""
import warnings

import numpy as np

from . import _native


class UnwrittenWarning(UserWarning):
    """An item of the layout was given no data before commit: it is written as zeros."""


class Writer:
    """Writes one data file described by a Dudley layout, as the C++ writer does.

        with dudley.Writer("N := i4  x = f8[N]  t = i4", "run.bin") as w:
            w["/x"] = np.linspace(0, 1, 5)      # N is taken from the shape
            w["/t"] = 7
        # run.bin and run.dud now exist, complete (or neither, if the block raised)

    layout: layout text, or the path of a .dud file. order: byte order of '|' types and of
    the file ("little", "big", "<", ">"; default native). embed_layout: also append the
    layout to the data file. fsync: make the files durable before they appear. An item
    given no data is written as zeros with a warning naming it (dudley.UnwrittenWarning);
    strict=True refuses to commit instead (dudley.UsageError, nothing written).

    Arrays are kept by reference until commit(), not copied: each array given is made
    read-only meanwhile (numpy raises if it is assigned to), and writable again after.
    Arrays are converted to the item's declared type when numpy's same_kind casting allows
    (int to float, f8 to f4); byte order, strides and Fortran order are handled as they are.
    """

    def __init__(self, layout, path, *, order=None, embed_layout=False, fsync=False,
                 strict=False, _native_writer=None):
        self._w = _native_writer or _native._make_writer(str(layout), str(path), order,
                                                         embed_layout, fsync)
        self._strict = strict
        self._held = []  # arrays made read-only until commit

    # -- giving data -------------------------------------------------------------------

    def __setitem__(self, key, data):
        """w["/x"] = a writes the whole item; w["/x", 2:4, ::-1] = a a region of it."""
        if isinstance(key, tuple):
            path, index = key[0], key[1:]
            self.write(path, data, index[0] if len(index) == 1 else index)
        else:
            self.write(key, data)

    def write(self, path, data, index=None):
        """Gives the data of the item at `path` (list items by index: "/L/0"), or with
        `index` (a numpy basic index: integers, slices of any step, ...) the data of that
        region, shaped as numpy's selection (scalars and broadcastable arrays are broadcast).
        Several regions of one item may be given; later ones win where they overlap."""
        dtype, shape = self._w.declared(path)
        data = self._cast(path, data, dtype, shape)
        if index is None:
            self._w.write(path, self._hold(data))
            return
        if shape is None:
            raise _native.UsageError(f"{path}: its shape is not known yet: set its parameters "
                                     "(set_param) before writing a region of it")
        text = self._is_text(dtype, shape)
        if text:
            # The index selects strings; each string selected is written whole.
            index = (index if isinstance(index, tuple) else (index,)) + (slice(None),)
        strings = shape[:-1] if text else shape
        # The selection's shape as numpy gives it, without allocating the item.
        target = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), strings,
                                                 (0,) * len(strings))[index[:-1] if text else index].shape
        if data.shape != target:
            data = np.ascontiguousarray(np.broadcast_to(data, target))
        if text:
            data = np.ascontiguousarray(data).view("S1").reshape(target + (shape[-1],))
        self._w.write_region(path, self._hold(data), index)

    def set_param(self, name, value):
        """Sets a parameter by path ("/N", "/g/M") or by a name unique in the layout."""
        self._w.set_param(name, int(value))

    def append(self, list_path, data):
        """Appends an item holding `data` to the list at `list_path`; returns its path
        ("/history/3"). The layout written gains the item at its end."""
        data = np.asarray(data)
        return self._w.append(list_path, self._hold(data))

    def write_instances(self, path, arrays):
        """Gives every instance of an item whose instances differ in size (a counted array
        such as `text = string`), in C order: one array (or str/bytes) each."""
        self._w.write_instances(path, [self._hold(np.asarray(a)) for a in arrays])

    def write_pointee(self, key, data):
        """Gives the data of the pointee declared with `key`."""
        self._w.write_pointee(int(key), self._hold(np.asarray(data)))

    def declared(self, path):
        """(dtype, shape) the layout declares at `path`, as known so far (None where not:
        a struct type, a shape with parameters not set yet). Text (`S1[3, 8]`) is strings,
        as it reads: (dtype('S8'), (3,))."""
        dtype, shape = self._w.declared(path)
        if self._is_text(dtype, shape):
            return np.dtype(f"S{shape[-1]}"), shape[:-1]
        return dtype, shape

    @staticmethod
    def _is_text(dtype, shape):
        return dtype is not None and dtype.kind == "S" and dtype.itemsize == 1 and bool(shape)

    # -- finishing ---------------------------------------------------------------------

    def commit(self):
        """Places every item and writes the data file and its layout, which appear
        together under their names or not at all. Returns the data file's size."""
        try:
            missing = self._w.unwritten()
            if missing and self._strict:
                raise _native.UsageError(
                    f"{len(missing)} item(s) of the layout were given no data (strict=True: "
                    f"nothing written): {', '.join(missing)}")
            size = self._w.commit()
            for path in missing:  # once written: a commit that failed wrote nothing
                warnings.warn(f"{path}: given no data; it is written as zeros",
                              UnwrittenWarning, stacklevel=3)
            return size
        finally:
            self._release()

    @property
    def committed(self):
        return self._w.committed

    @property
    def layout(self):
        """The layout written (the one given, plus appended items), canonical text."""
        return self._w.layout

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        # Commits when the block ended normally; otherwise nothing is written.
        if kind is None and not self.committed:
            self.commit()
        else:
            self._release()
        return False

    def __del__(self):
        self._release()

    # -- helpers -----------------------------------------------------------------------

    @staticmethod
    def _cast(path, data, dtype, shape):
        given, data = data, np.asarray(data)
        if dtype is None or data.dtype.fields is not None:
            return data
        if data.dtype.kind in "SU" and dtype.kind == "S":
            # Strings into text `S1[..., n]`: UTF-8 bytes, padded with NULs to n.
            if data.dtype.kind == "U":
                data = np.char.encode(data, "utf-8")
            if shape and data.dtype.itemsize != shape[-1]:
                longest = int(np.char.str_len(data).max()) if data.size else 0
                if longest > shape[-1]:
                    raise _native.UsageError(f"{path} holds strings of {shape[-1]} bytes, one "
                                             f"given has {longest}")
                data = data.astype(f"S{shape[-1]}")
            return data
        if data.dtype.kind == dtype.kind and data.dtype.itemsize == dtype.itemsize:
            return data  # any byte order: the writer converts it while writing
        if isinstance(given, (int, float, bool)) and dtype.kind in "biufc":
            # A Python number is converted by value (numpy 2 no longer casts 0-d arrays by
            # value): refused only when the type cannot hold it.
            converted = np.asarray(given).astype(dtype.newbyteorder("="))
            if converted != given:
                raise _native.DataTypeError(f"{path} is declared {dtype}, which cannot hold "
                                            f"{given!r}")
            return converted
        if dtype.kind in "biufc" and data.dtype.kind in "biufc":
            try:
                return data.astype(dtype.newbyteorder("="), casting="same_kind")
            except TypeError as e:
                raise _native.DataTypeError(f"{path} is declared {dtype}, the array given is "
                                            f"{data.dtype}: {e}") from None
        return data

    def _hold(self, data):
        if data.flags.writeable:
            data.flags.writeable = False
            self._held.append(data)
        return data

    def _release(self):
        held, self._held = getattr(self, "_held", []), []
        for a in held:
            try:
                a.flags.writeable = True
            except ValueError:
                pass  # its base was made read-only meanwhile: leave it so


class FamilyWriter:
    """Writes a family of data files of one !TEMPLATE layout, and its index (every member's
    parameters, so a reader finds any array of any member without opening it).

        with dudley.FamilyWriter(layout, "out/run") as family:
            for step in range(100):
                with family.add() as w:           # out/run_0000.bin, ...
                    w["/x"] = x[step]
        # out/run.dud and out/run.index.bin (+ .dud) written by finish()

    params_in_files: False keeps parameters only in the index. Other arguments (strict too)
    as Writer's.
    """

    def __init__(self, layout, stem, *, order=None, embed_layout=False, fsync=False,
                 params_in_files=True, strict=False):
        self._f = _native._make_family_writer(str(layout), str(stem), order, embed_layout,
                                              fsync, params_in_files)
        self._strict = strict
        self._index = None

    def add(self):
        """A Writer for the next member (STEM_NNNN.bin): give it arrays, then commit it (or
        use it as a context manager)."""
        return Writer(None, None, strict=self._strict, _native_writer=self._f.add())

    def finish(self):
        """Writes the family's layout and index; returns the index's path."""
        if self._index is None:
            self._index = self._f.finish()
        return self._index

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.finish()
        return False
