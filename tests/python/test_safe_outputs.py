"""dudley.save writes only what it may (issue 62): what is at the destination is replaced only
when it is an output of the same format or an empty folder; a folder of the user's, a file of
another format or a layout without its data raise dudley.UsageError naming it and are left as
they were; overwrite=True writes a Zarr store among the folder's files, which are kept, and a
later store there removes only the keys of the one before. Stores are read back, the user's
files compared byte for byte."""
import os

import numpy as np
import pytest
import dudley


def files_under(root):
    """{relative path: bytes} of every file below `root`, and its empty folders as None."""
    out = {}
    for d, dirs, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            out[os.path.relpath(p, root)] = open(p, "rb").read()
        if not dirs and not files:
            out[os.path.relpath(d, root) + "/"] = None
    return out


@pytest.fixture
def mydocs(tmp_path):
    d = tmp_path / "mydocs"
    (d / "sub").mkdir(parents=True)
    (d / "empty").mkdir()
    (d / "thesis.txt").write_bytes(b"chapter 1\n")
    (d / "sub" / "photo.jpg").write_bytes(bytes(range(256)))
    return d


def test_a_folder_of_the_users_is_refused_and_kept(mydocs):
    before = files_under(mydocs)
    with pytest.raises(dudley.UsageError, match="holds 3 entries that are no part of a Zarr store"):
        dudley.save({"x": np.arange(4.0)}, str(mydocs), format="zarr")
    assert files_under(mydocs) == before


def test_overwrite_writes_among_the_users_files(mydocs):
    before = files_under(mydocs)
    dudley.save({"x": np.arange(4.0), "g": {"y": np.ones((2, 3), "i2")}}, str(mydocs),
                format="zarr", overwrite=True)
    after = files_under(mydocs)
    assert {k: v for k, v in after.items() if k in before} == before
    g = dudley.open(str(mydocs))
    assert np.array_equal(g["x"][...], np.arange(4.0))
    assert np.array_equal(g["g/y"][...], np.ones((2, 3), "i2"))
    # A second store there: the first one's keys go (g/ and its chunks), the user's stay.
    dudley.save({"z": np.arange(3, dtype="u1")}, str(mydocs), format="zarr", overwrite=True)
    again = files_under(mydocs)
    assert {k: v for k, v in again.items() if k in before} == before
    assert not any(k.startswith(("x/", "g/")) for k in again)
    assert np.array_equal(dudley.open(str(mydocs))["z"][...], np.arange(3))
    assert set(dudley.open(str(mydocs)).keys()) == {"z"}


def test_a_file_of_another_format_is_refused(tmp_path):
    mine = tmp_path / "mine.h5"
    mine.write_bytes(b"not HDF5 at all")
    with pytest.raises(dudley.UsageError, match="exists and is not a file of format 'hdf5'"):
        dudley.save({"x": np.arange(3)}, str(mine))
    assert mine.read_bytes() == b"not HDF5 at all"
    dudley.save({"x": np.arange(3)}, str(mine), overwrite=True)
    assert np.array_equal(dudley.open(str(mine))["x"][...], np.arange(3))


def test_an_output_of_the_same_format_is_replaced(tmp_path):
    out = tmp_path / "out.zarr"
    dudley.save({"x": np.arange(10.0)}, str(out))
    dudley.save({"y": np.arange(2.0)}, str(out))
    assert list(dudley.open(str(out)).keys()) == ["y"]
