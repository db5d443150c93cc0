"""Reference counting and lifetimes: what the module hands out stays valid after the objects
it came from are gone (run under ASan and UBSan in the sanitizer build, where a use after
free is an error, not luck)."""
import gc
import pickle

import h5py
import numpy as np

import dudley

SIGNATURE = "!DUDLEY := S1[8]\n"


def write(tmp_path):
    path = tmp_path / "l.bin"
    with dudley.Writer(SIGNATURE + "x = <f8[4, 5]  s = S1[3, 4]\ng /\n  y = <i4[6]\n", path) as w:
        w["/x"] = np.arange(20.0).reshape(4, 5)
        w["/s"] = ["a", "bb", "ccc"]
        w["/g/y"] = np.arange(6, dtype="<i4")
    return str(path)


def test_arrays_views_and_nodes_outlive_their_file(tmp_path):
    path = write(tmp_path)
    f = dudley.open(path)
    read, view, strings = f["x"][1:, ::-2], f["x"].view(), f["s"][...]
    node, group = f["g/y"], f["g"]
    attrs = f["x"].attrs
    del f
    gc.collect()
    # Arrays read own their memory; the memmap keeps the file mapped; nodes keep the tree.
    assert np.array_equal(read, np.arange(20.0).reshape(4, 5)[1:, ::-2])
    assert view[3, 4] == 19.0
    assert list(strings) == [b"a", b"bb", b"ccc"]
    assert np.array_equal(node[...], np.arange(6))
    assert list(group) == ["y"] and dict(attrs) == {}
    del node
    gc.collect()
    assert np.array_equal(group["y"][::-1], np.arange(6)[::-1])


def test_a_read_array_outlives_everything_and_views_of_it_too(tmp_path):
    path = write(tmp_path)
    piece = dudley.open(path)["x"][...][2]  # a view of an array read, of a dropped file
    gc.collect()
    assert np.array_equal(piece, np.arange(10.0, 15.0))
    base = piece.base
    del piece
    gc.collect()
    assert base is not None and base.shape == (4, 5)


def test_writers_release_what_they_hold(tmp_path):
    arrays = [np.arange(5.0) for _ in range(3)]
    w = dudley.Writer(SIGNATURE + "a = f8[5]  b = f8[5]  c = f8[5]", tmp_path / "w.bin")
    for name, a in zip("abc", arrays):
        w[f"/{name}"] = a
    del w  # never committed
    gc.collect()
    for a in arrays:
        a[:] = 1  # writable again, and its memory still its own
    # A member's writer outlives the FamilyWriter object that made it.
    family = dudley.FamilyWriter(SIGNATURE + "!TEMPLATE\nN := i4\nx = f8[N]\n", tmp_path / "run")
    member = family.add()
    del family
    gc.collect()
    member["/x"] = np.arange(3.0)
    member.commit()
    (tmp_path / "run.dud").write_text(SIGNATURE + "!TEMPLATE\nN := i4\nx = f8[N]\n")
    member_file = dudley.open(str(tmp_path / "run_0000.bin"), layout=str(tmp_path / "run.dud"))
    assert np.array_equal(member_file["x"][...], np.arange(3.0))


def test_saved_arrays_are_borrowed_safely(tmp_path):
    # Arrays given to save are read while the GIL is released: kept alive meanwhile, even
    # when the only reference is the dict's.
    dudley.save({"x": np.arange(1000.0)[::3], "g": {"y": np.ones((7, 3), order="F")}},
                str(tmp_path / "s.h5"))
    gc.collect()
    with h5py.File(tmp_path / "s.h5") as h:
        assert np.array_equal(h["x"][...], np.arange(1000.0)[::3])
        assert np.array_equal(h["g/y"][...], np.ones((7, 3)))


def test_pickled_nodes_and_families_reopen(tmp_path):
    path = write(tmp_path)
    a = pickle.loads(pickle.dumps(dudley.open(path)["g/y"]))
    gc.collect()
    assert np.array_equal(a[...], np.arange(6))
    fam = pickle.loads(pickle.dumps(dudley.open_family(path)))
    assert np.array_equal(fam.read("/x")[0], np.arange(20.0).reshape(4, 5))
