"""Strings as Python users hold them: object arrays of str and bytes and single str values
written to every format that has strings, read back by each format's reference library and
by us; variable-length strings read as object arrays (str for UTF-8, bytes for ASCII, as
h5py reads them)."""
import json

import asdf
import h5py
import numpy as np
import pytest
import zarr

import dudley
from cli_runner import run

WORDS = np.array(["a", "bcd", "три", ""], dtype=object)
BLOBS = np.array([b"x", b"", b"yz\x00q"], dtype=object)


def test_object_strings_to_hdf5_as_h5py_writes_them(tmp_path):
    dudley.save({"words": WORDS, "blobs": BLOBS, "title": "héllo"}, str(tmp_path / "s.h5"))
    with h5py.File(tmp_path / "s.h5") as h:
        assert h5py.check_string_dtype(h["words"].dtype).encoding == "utf-8"
        assert h["words"].asstr()[...].tolist() == WORDS.tolist()
        assert h5py.check_string_dtype(h["blobs"].dtype).encoding == "ascii"
        assert h["blobs"][...].tolist() == [b"x", b"", b"yz"]  # HDF5 strings end at a NUL
        assert h["title"].asstr()[()] == "héllo"
    f = dudley.open(str(tmp_path / "s.h5"))
    assert f["words"].dtype == object and f["words"][...].tolist() == WORDS.tolist()
    assert f["words"][[2, 0]].tolist() == ["три", "a"]
    assert f["blobs"][1:].tolist() == [b"", b"yz"]
    assert f["title"][()] == "héllo"


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_object_strings_to_zarr(tmp_path, zarr_format):
    out = tmp_path / f"s{zarr_format}.zarr"
    src = tmp_path / "src.h5"
    dudley.save({"words": WORDS, "blobs": BLOBS}, str(src))
    done = run("convert", "--zarr-format", str(zarr_format), str(src), str(out))
    assert done.returncode == 0, done.stderr
    f = dudley.open(str(out))
    assert f["words"][...].tolist() == WORDS.tolist()
    if zarr_format == 2:  # python3-zarr 2.13 reads v2 only
        z = zarr.open(str(out), mode="r")
        assert z["words"][...].tolist() == WORDS.tolist()
        assert z["blobs"][...].tolist() == [b"x", b"", b"yz"]
    else:
        meta = json.loads((out / "blobs" / "zarr.json").read_text())
        assert meta["data_type"] == "bytes" and meta["codecs"][0]["name"] == "vlen-bytes"


@pytest.mark.parametrize("ext", ["asdf", "npy"])
def test_object_strings_to_fixed_string_formats(tmp_path, ext):
    """ASDF and .npy have fixed-length strings only: as long as the longest, with a note."""
    out = tmp_path / f"s.{ext}"
    notes = dudley.save({"words": WORDS} if ext == "asdf" else WORDS, str(out))
    assert any("variable-length strings are written as" in n for n in notes), notes
    if ext == "asdf":
        with asdf.open(out) as af:
            got = np.array(af.tree["words"])  # a copy: the memory map closes with the file
    else:
        got = np.load(out)
    assert got.dtype == np.dtype("<U3") and got.tolist() == WORDS.tolist()


def test_bare_str_and_unusable_objects(tmp_path):
    dudley.save({"s": "plain"}, str(tmp_path / "s.asdf"))
    with asdf.open(tmp_path / "s.asdf") as af:
        assert str(np.asarray(af.tree["s"])) == "plain"
    with pytest.raises(dudley.DataTypeError, match="element 1 is int"):
        dudley.save({"x": np.array(["a", 1], dtype=object)}, str(tmp_path / "x.h5"))
    assert not (tmp_path / "x.h5").exists()


def test_strings_as_numpy2_stringdtype(tmp_path):
    """numpy 2's variable-width StringDType, as an option: a.astype(StringDType())."""
    if not hasattr(np, "dtypes") or not hasattr(np.dtypes, "StringDType"):
        pytest.skip(f"numpy {np.__version__} has no StringDType (the PyPI stack tests it)")
    dudley.save({"words": WORDS}, str(tmp_path / "s.h5"))
    a = dudley.open(str(tmp_path / "s.h5"))["words"]
    got = a.astype(np.dtypes.StringDType())[[2, 0]]
    assert got.dtype == np.dtypes.StringDType() and got.tolist() == ["три", "a"]
