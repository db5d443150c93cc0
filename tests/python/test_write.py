"""The Python module writing: dudley.Writer and FamilyWriter checked byte for byte with
numpy (np.fromfile at the addresses the layout gives, numpy's own assignment for regions),
dudley.save checked with h5py and numpy, for arrays of every memory layout numpy makes."""
import gc
import os
import random
import warnings

import h5py
import numpy as np
import pytest

import dudley

SIGNATURE = "!DUDLEY := S1[8]\n"


def layouts_of_memory(rng):
    """The same values as numpy holds them in different memory: C order, Fortran order,
    strided views, reversed views, the other byte order."""
    base = rng.standard_normal((6, 5))
    big = np.zeros((12, 10))
    big[::2, ::2] = base
    return {
        "c": base.copy(),
        "fortran": np.asfortranarray(base),
        "strided": big[::2, ::2],
        "reversed": base[::-1, ::-1][::-1, ::-1],
        "negative": np.ascontiguousarray(base[::-1])[::-1],
        "swapped": base.astype(">f8"),
        "swapped_fortran": np.asfortranarray(base.astype(">f8")),
    }


def test_writer_writes_every_memory_layout_at_the_layouts_addresses(tmp_path):
    rng = np.random.default_rng(1)
    for name, a in layouts_of_memory(rng).items():
        for order, code in (("little", "<"), ("big", ">")):
            path = tmp_path / f"{name}_{order}.bin"
            with dudley.Writer(SIGNATURE + "N := i4  M := i4  x = f8[N, M]", path,
                               order=order) as w:
                w["/x"] = a
            f = dudley.open(str(path))
            offset = f["x"].storage["offset"]
            # numpy reads the bytes where the layout says they are, in the order written.
            raw = np.fromfile(path, dtype=f"{code}f8", count=a.size, offset=offset)
            assert np.array_equal(raw.reshape(a.shape), a), (name, order)
            assert np.array_equal(f["x"][...], a)
            assert f["x"].dtype == np.dtype(f"{code}f8")
            assert path.with_suffix(".dud").exists()


def test_region_writes_equal_numpys_assignment(tmp_path):
    rng = random.Random(7)
    nrng = np.random.default_rng(7)
    for case in range(40):
        shape = tuple(rng.randint(1, 6) for _ in range(rng.randint(1, 3)))
        expected = np.zeros(shape, dtype="<i8")
        path = tmp_path / f"r{case}.bin"
        w = dudley.Writer(SIGNATURE + "x = <i8[" + ", ".join(map(str, shape)) + "]", path)
        for _ in range(rng.randint(1, 4)):
            index = tuple(slice(rng.choice([None, rng.randint(-d, d)]),
                                rng.choice([None, rng.randint(-d, d)]),
                                rng.choice([None, 1, 2, -1, -2]))
                          if rng.random() < 0.7 else rng.randint(-d, d - 1) for d in shape)
            target = expected[index]
            values = nrng.integers(-1000, 1000, target.shape)
            expected[index] = values
            w.write("/x", values, index)
        w.commit()
        assert np.array_equal(dudley.open(str(path))["x"][...], expected), (shape, case)


def test_regions_broadcast_and_setitem_with_an_index(tmp_path):
    path = tmp_path / "b.bin"
    with dudley.Writer(SIGNATURE + "N := >i4  x = >f8[N, 3]", path) as w:
        w.set_param("N", 4)
        w["/x", 1:3] = np.ones((2, 3))
        w["/x", 0] = np.arange(3)
        w["/x", ::-1, 2] = 9
    expected = np.zeros((4, 3))
    expected[1:3] = 1
    expected[0] = np.arange(3)
    expected[::-1, 2] = 9
    assert np.array_equal(dudley.open(str(path))["x"][...], expected)


def test_arrays_are_cast_to_the_declared_type_when_numpy_would(tmp_path):
    path = tmp_path / "c.bin"
    with dudley.Writer(SIGNATURE + "x = f4[3]  n = i8  s = S1[2, 5]", path) as w:
        w["/x"] = [1, 2, 3]
        w["/n"] = np.int16(-7)
        w["/s"] = ["ab", "hello"]
    f = dudley.open(str(path))
    assert f["x"].dtype.kind == "f" and np.array_equal(f["x"][...], [1, 2, 3])
    assert f["n"][()] == -7
    assert list(f["s"][...]) == [b"ab", b"hello"]
    with pytest.raises(dudley.DataTypeError, match="declared int32"):
        with dudley.Writer(SIGNATURE + "x = i4[2]", tmp_path / "bad.bin") as w:
            w["/x"] = np.array([1.5, 2.5])
    with pytest.raises(dudley.UsageError, match="strings of 3 bytes"):
        with dudley.Writer(SIGNATURE + "s = S1[3]", tmp_path / "bad.bin") as w:
            w["/s"] = "toolong"
    assert not (tmp_path / "bad.bin").exists()


def test_usage_errors(tmp_path):
    w = dudley.Writer(SIGNATURE + "N := i4  x = f8[N]", tmp_path / "u.bin")
    with pytest.raises(dudley.UsageError, match="not a data item"):
        w["/nope"] = np.zeros(2)
    with pytest.raises(dudley.UsageError, match="shape is not known yet"):
        w["/x", 0:2] = np.zeros(2)
    with pytest.raises(ValueError):  # UsageError is a ValueError
        w.set_param("nope", 3)
    with pytest.raises(dudley.ParseError) as e:
        dudley.Writer(SIGNATURE + "x = f8[", tmp_path / "p.bin")
    assert e.value.line == 2
    with pytest.raises(dudley.UsageError, match="byte order"):
        dudley.Writer(SIGNATURE + "x = f8", tmp_path / "o.bin", order="middle")
    with pytest.raises(dudley.UsageError, match="byte order"):
        dudley.open(str(tmp_path / "o.bin"), layout=SIGNATURE + "x = f8", order="middle")


def test_commit_is_atomic_and_never_replaces_on_failure(tmp_path):
    path = tmp_path / "keep.bin"
    path.write_bytes(b"old contents")
    with pytest.raises(RuntimeError):
        with dudley.Writer(SIGNATURE + "x = f8[2]", path) as w:
            w["/x"] = np.ones(2)
            raise RuntimeError("the block failed")
    assert path.read_bytes() == b"old contents"
    assert not path.with_suffix(".dud").exists()
    # A failure inside commit (an item whose parameter nothing set) leaves nothing either.
    with pytest.raises(dudley.Error):
        with dudley.Writer(SIGNATURE + "N := i4  x = f8[N]", tmp_path / "n.bin"):
            pass
    assert sorted(os.listdir(tmp_path)) == ["keep.bin"]


def test_arrays_are_held_read_only_until_commit(tmp_path):
    a = np.arange(4.0)
    w = dudley.Writer(SIGNATURE + "x = f8[4]", tmp_path / "h.bin")
    w["/x"] = a
    with pytest.raises(ValueError):
        a[0] = 99  # would change what commit writes
    w.commit()
    a[0] = 99  # writable again
    assert dudley.open(str(tmp_path / "h.bin"))["x"][0] == 0
    # A writer dropped without commit gives its arrays back too.
    b = np.arange(4.0)
    w = dudley.Writer(SIGNATURE + "x = f8[4]", tmp_path / "d.bin")
    w["/x"] = b
    del w
    gc.collect()
    b[0] = 1
    assert not (tmp_path / "d.bin").exists()


def test_lists_instances_and_pointees(tmp_path):
    path = tmp_path / "l.bin"
    layout = SIGNATURE + ("K := u1  string := { n := u4  = S1[n] }  names = string[K]\n"
                          "history = [ = i4[2] ]\n")
    with dudley.Writer(layout, path) as w:
        w.write_instances("/names", [b"ab", b"xyz", b""])
        w["/history/0"] = np.array([1, 2], dtype="i4")
        assert w.append("/history", np.eye(2)) == "/history/1"
        assert w.append("/history", np.array([5, 6, 7], dtype=">u2")) == "/history/2"
    f = dudley.open(str(path))
    assert [bytes(f[f"names/{i}"][()]).rstrip(b"\0") for i in range(3)] == [b"ab", b"xyz", b""]
    assert np.array_equal(f["history/0"][...], [1, 2])
    assert np.array_equal(f["history/1"][...], np.eye(2))
    assert np.array_equal(f["history/2"][...], [5, 6, 7])
    assert "history" in w.layout
    # A list: items by position (negative too) and iteration over the items, as a Python list.
    history = f["history"]
    assert history.is_list and not f["/"].is_list
    assert np.array_equal(history[-1][...], [5, 6, 7]) and np.array_equal(history[1][...], np.eye(2))
    assert [item.shape for item in history] == [(2,), (2, 2), (3,)]
    with pytest.raises(IndexError):
        history[3]
    with pytest.raises(TypeError):
        f["/"][0]


def test_family_writer_and_its_index(tmp_path):
    layout = SIGNATURE + "!TEMPLATE\nN := i4\nx = f8[N]\nt = i8\n"
    values = [np.arange(i + 1.0) * i for i in range(5)]
    with dudley.FamilyWriter(layout, tmp_path / "run") as family:
        for i, v in enumerate(values):
            with family.add() as w:
                w["/x"] = v
                w["/t"] = i
    index = str(tmp_path / "run.index.bin")
    assert family.finish() == index
    fam = dudley.open_family(index)
    assert len(fam) == 5
    for got, want in zip(fam.read("/x", stack=False), values):
        assert np.array_equal(got, want)
    assert np.array_equal(fam.read("/t"), np.arange(5))
    # Members alone, through the family's layout, with numpy at the addresses.
    member = fam.files[3]
    f = dudley.open(member, layout=str(tmp_path / "run.dud"))
    raw = np.fromfile(member, dtype=f["x"].dtype, count=4, offset=f["x"].storage["offset"])
    assert np.array_equal(raw, values[3])


def test_save_keeps_attributes_text_and_structured_arrays(tmp_path):
    rec = np.array([(1, 2.5, b"ab"), (3, 4.5, b"cd")],
                   dtype=[("a", ">i4"), ("b", "<f8"), ("c", "S2")])
    rho = np.arange(12.0).reshape(3, 4)[:, ::2]
    tree = {
        "rho": dudley.Item(rho, attrs={"units": "kg/m3", "scale": np.float32(2),
                                       "levels": [1, 2]}),
        "g": dudley.Item({"rec": rec, "title": "run 5", "label": "héllo"},
                         attrs={"step": np.int32(7)}),
        "be": np.arange(5, dtype=">i8"),
        "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    }
    dudley.save(tree, str(tmp_path / "t.h5"))
    with h5py.File(tmp_path / "t.h5") as h:  # the peer reads what we wrote
        assert np.array_equal(h["rho"][...], rho)
        assert h["rho"].attrs["units"] in ("kg/m3", b"kg/m3")
        assert h["rho"].attrs["scale"] == np.float32(2)
        assert h["rho"].attrs["scale"].dtype == np.float32
        assert list(h["rho"].attrs["levels"]) == [1, 2]
        assert h["g"].attrs["step"] == 7 and h["g"].attrs["step"].dtype == np.int32
        assert h["g/rec"][...].tolist() == rec.tolist()
        assert h["g/title"][()] == b"run 5"
        assert h["g/label"][()].decode() == "héllo"
        assert np.array_equal(h["be"][...], np.arange(5))
        assert np.array_equal(h["fortran"][...], tree["fortran"])
    for ext in ("h5", "bin", "asdf"):
        if ext == "asdf":
            del tree["g"].value["label"]  # ASDF has no UTF-8 text (ascii and ucs4 only)
        # ASDF keeps an array's attributes as JSON-like values: a typed one as its values.
        notes = dudley.save(tree, str(tmp_path / f"t2.{ext}"))
        assert [n for n in notes if n.startswith("left out")] == [], notes
        f = dudley.open(str(tmp_path / f"t2.{ext}"))
        assert np.array_equal(f["rho"][...], rho), ext
        assert f["g/rec"][...].tolist() == rec.tolist(), ext
        assert f["g/title"][()] == "run 5", ext  # a str is written as text
        assert np.array_equal(f["be"][...], np.arange(5)), ext
        assert np.array_equal(f["fortran"][...], tree["fortran"]), ext
        # A Dudley layout keeps attributes as `#@` lines, typed ones with their type.
        assert f["rho"].attrs["units"] == "kg/m3", ext
        assert np.asarray(f["rho"].attrs["scale"]).tolist() == \
            np.asarray(tree["rho"].attrs["scale"]).tolist(), ext
        assert list(f["rho"].attrs["levels"]) == [1, 2], ext
        assert f["g"].attrs["step"] == 7, ext
        if ext in ("h5", "bin"):
            assert np.asarray(f["rho"].attrs["scale"]).dtype == np.float32, ext
            assert np.asarray(f["g"].attrs["step"]).dtype == np.int32, ext
    layout = (tmp_path / "t2.dud").read_text()
    assert '#@ units: "kg/m3"' in layout and "#@ scale: <f4 2.0" in layout, layout
    assert "#@ step: <i4 7" in layout, layout


def test_save_refuses_what_it_cannot_keep(tmp_path):
    with pytest.raises(TypeError, match="attribute"):
        dudley.save({"x": dudley.Item(np.zeros(2), attrs={"f": object()})},
                    str(tmp_path / "x.h5"))
    with pytest.raises(dudley.DataTypeError, match="holds only str .* element 0 is object"):
        dudley.save({"x": np.array([object()])}, str(tmp_path / "x.h5"))
    assert not os.listdir(tmp_path)


def test_save_of_a_bare_array(tmp_path):
    # The file's one array: .npy holds it as it is, other formats name it "data".
    x = np.arange(6, dtype=">i2").reshape(2, 3)
    dudley.save(x, str(tmp_path / "a.npy"))
    assert np.load(tmp_path / "a.npy").tolist() == x.tolist()
    dudley.save(x, str(tmp_path / "a.h5"))
    with h5py.File(tmp_path / "a.h5") as f:
        assert f["data"][()].tolist() == x.tolist()


def test_dudley_text_reads_as_strings(tmp_path):
    path = tmp_path / "s.bin"
    with dudley.Writer(SIGNATURE + "names = S1[3, 4]  one = S1[6]  u = <U4[2, 3]", path) as w:
        w["/names"] = ["ab", "cdef", "g"]
        w["/one"] = "hello"
        w["/u"] = np.array(["ab", "xyz"], dtype="<U3")
    f = dudley.open(str(path))
    assert f["names"].shape == (3,) and f["names"].dtype == np.dtype("S4")
    assert list(f["names"][...]) == [b"ab", b"cdef", b"g"]
    assert list(f["names"][::-2]) == [b"g", b"ab"]
    assert f["names"][1] == b"cdef"
    assert f["one"][()] == b"hello"
    assert list(f["u"][...]) == ["ab", "xyz"]
    assert f["names"].view()[2] == b"g"
    # The tree and the array say so too.
    assert "names |S4 (3,)" in repr(f) and repr(f["names"]) == "<dudley.Array /names |S4 shape=(3,)>"


def test_family_reads_through_one_layout_equal_member_by_member(tmp_path):
    layout = SIGNATURE + "!TEMPLATE\nN := i4\nx = >f8[N, 3]\nk = u2\n"
    rng = np.random.default_rng(4)
    same = [rng.standard_normal((4, 3)) for _ in range(6)]
    with dudley.FamilyWriter(layout, tmp_path / "same") as family:
        for i, v in enumerate(same):
            with family.add() as w:
                w["/x"], w["/k"] = v, i
    fam = dudley.open_family(str(tmp_path / "same.index.bin"))
    stacked = np.stack(same)
    assert np.array_equal(fam.read("/x"), stacked)
    assert np.array_equal(fam.read("x", (slice(None, None, -2), 1)), stacked[:, ::-2, 1])
    assert np.array_equal(fam.read("/k"), np.arange(6))
    for got, want in zip(fam.read("/x", stack=False), same):
        assert np.array_equal(got, want)
    # The same members as a glob with the layout given.
    glob_fam = dudley.open_family(str(tmp_path / "same_*.bin"), layout=str(tmp_path / "same.dud"))
    assert np.array_equal(glob_fam.read("/x", np.s_[..., 0]), stacked[..., 0])
    # Members of different shapes come back as a list.
    with dudley.FamilyWriter(layout, tmp_path / "ragged") as family:
        for n in (2, 3):
            with family.add() as w:
                w["/x"], w["/k"] = np.full((n, 3), n), n
    parts = dudley.open_family(str(tmp_path / "ragged.index.bin")).read("/x")
    assert isinstance(parts, list) and [p.shape for p in parts] == [(2, 3), (3, 3)]
    # to_dask names the member that differs when it builds the graph, not at compute().
    with pytest.raises(dudley.DataError, match=r"member 1 \(.*ragged.*\) holds it as .* \(3, 3\)"):
        dudley.to_dask(dudley.open_family(str(tmp_path / "ragged.index.bin")), path="/x")
    # A damaged member is an error naming it.
    member = fam.files[2]
    with open(member, "r+b") as f:
        f.truncate(20)
    with pytest.raises(dudley.Error, match=os.path.basename(member)):
        fam.read("/x")


@pytest.mark.parametrize("io_uring", ["1", "0"])
def test_a_family_larger_than_a_batch_reads_as_numpy_stacks_it(tmp_path, monkeypatch, io_uring):
    # Members are opened and read 64 at a time on several threads (io_uring, or system calls
    # where the kernel has none): 200 members whose item moves with N, read whole and as a
    # selection, then one member truncated far into the family.
    monkeypatch.setenv("DUDLEY_IO_URING", io_uring)
    layout = SIGNATURE + "!TEMPLATE\nN := i4\npad = u1[N]\nx = <f4[2, 3]\n"
    rng = np.random.default_rng(41)
    xs = [rng.standard_normal((2, 3)).astype("<f4") for _ in range(200)]
    with dudley.FamilyWriter(layout, tmp_path / "many") as family:
        for i, x in enumerate(xs):
            with family.add() as w:
                w["/pad"], w["/x"] = np.zeros(1 + i % 9, "u1"), x
    fam = dudley.open_family(str(tmp_path / "many.index.bin"))
    stacked = np.stack(xs)
    assert np.array_equal(fam.read("/x"), stacked)
    assert np.array_equal(fam.read("/x", (1, slice(None, None, -1))), stacked[:, 1, ::-1])
    member = fam.files[170]
    with open(member, "r+b") as f:
        f.truncate(f.seek(0, 2) - 4)
    with pytest.raises(dudley.Error, match=os.path.basename(member)):
        fam.read("/x")


def test_family_with_parameters_only_in_its_index(tmp_path):
    layout = SIGNATURE + "!TEMPLATE\nN := i4\nx = f8[N]\n"
    with dudley.FamilyWriter(layout, tmp_path / "lean", params_in_files=False) as family:
        for n in (2, 3, 4):
            with family.add() as w:
                w["/x"] = np.arange(float(n))
    fam = dudley.open_family(str(tmp_path / "lean.index.bin"))
    assert [p.tolist() for p in fam.read("/x")] == [[0, 1], [0, 1, 2], [0, 1, 2, 3]]
    # A member holds its array's bytes only: 2 doubles after the signature, no N.
    assert os.path.getsize(fam.files[0]) - 8 < 3 * 8 + 64
    assert np.array_equal(fam[1]["x"][...], [0, 1, 2])


def test_save_refuses_trees_that_hold_themselves(tmp_path):
    loop = {"x": np.zeros(2)}
    loop["again"] = loop
    with pytest.raises(ValueError, match="256"):
        dudley.save(loop, str(tmp_path / "l.h5"))
    item = dudley.Item(None)
    item.value = item
    with pytest.raises(ValueError, match="256"):
        dudley.save({"i": item}, str(tmp_path / "l.h5"))
    assert not os.listdir(tmp_path)


def test_open_takes_layout_text_as_the_writer_does(tmp_path):
    layout = "N := >i4  x = >f8[N, 3]"
    with dudley.Writer(layout, tmp_path / "t.bin") as w:
        w["/x"] = np.arange(12.0).reshape(4, 3)
    (tmp_path / "t.dud").unlink()  # only the text is left
    f = dudley.open(str(tmp_path / "t.bin"), layout=layout)
    assert f.format == "dudley" and np.array_equal(f["x"][1:3], [[3, 4, 5], [6, 7, 8]])
    import pickle
    assert np.array_equal(pickle.loads(pickle.dumps(f["x"]))[...], np.arange(12.0).reshape(4, 3))
    fam = dudley.open_family(str(tmp_path / "t.bin"), layout=layout)
    assert fam.read("/x").shape == (1, 4, 3)
    with pytest.raises(dudley.FileError, match="nope.dud"):
        dudley.open(str(tmp_path / "t.bin"), layout="nope.dud")  # a path, not text
    with pytest.raises(dudley.ParseError) as e:
        dudley.open(str(tmp_path / "t.bin"), layout="x = f8[")
    assert (e.value.line, e.value.column) == (1, 8)


MEMORY_CHECK = """
import resource, sys
import numpy as np
import dudley
kind, path = sys.argv[1], sys.argv[2]
shape = (2048, 8192)  # 128 MiB of float64
a = {"fortran": lambda: np.ones(shape, order="F"),
     "swapped": lambda: np.ones(shape, dtype=">f8"),
     "strided": lambda: np.ones((shape[0], 2 * shape[1]))[:, ::2],
     "c": lambda: np.ones(shape)}[kind]()
a[-1, -3] = 7
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with dudley.Writer("!DUDLEY := S1[8]  N := i4  M := i4  x = <f8[N, M]", path) as w:
    w["/x"] = a
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


@pytest.mark.parametrize("kind", ["c", "fortran", "swapped", "strided"])
def test_large_arrays_of_any_memory_layout_are_written_without_a_copy_of_them(tmp_path, kind):
    import subprocess
    import sys
    path = tmp_path / "big.bin"
    r = subprocess.run([sys.executable, "-c", MEMORY_CHECK, kind, str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    x = np.fromfile(path, dtype="<f8", count=2048 * 8192,
                    offset=dudley.open(str(path))["x"].storage["offset"])
    assert x.size == 2048 * 8192 and x[-3] == 7 and x[:-3].sum() == x.size - 3
    # Peak memory grows by a block (4 MiB), not by the array (128 MiB); sanitizers keep
    # memory of their own, so the bound is checked in the release build.
    if "asan" not in os.environ.get("LD_PRELOAD", ""):
        assert int(r.stdout) < 32, f"{kind}: peak grew by {r.stdout.strip()} MiB"


def test_regions_of_text_select_strings(tmp_path):
    path = tmp_path / "t.bin"
    with dudley.Writer(SIGNATURE + "names = S1[4, 5]", path) as w:
        assert w.declared("/names") == (np.dtype("S5"), (4,))
        w["/names"] = ["a", "b", "c", "d"]
        w["/names", 1] = "hello"
        w["/names", ::-2] = ["x", "yy"]  # items 3 and 1... then 1 is "yy"
        w["/names", ..., 0] = "first"
    expected = np.array(["a", "b", "c", "d"], dtype="S5")
    expected[1] = b"hello"
    expected[::-2] = [b"x", b"yy"]
    expected[..., 0] = b"first"
    assert list(dudley.open(str(path))["names"][...]) == list(expected)


def test_commit_warns_of_items_never_written(tmp_path):
    """An item given no data is written as zeros with a warning naming it; strict=True
    refuses to commit and writes nothing."""
    layout = SIGNATURE + "N := i4  x = f8[N]  t = i4  y = f4[2]"
    with pytest.warns(dudley.UnwrittenWarning) as caught:
        with dudley.Writer(layout, tmp_path / "w.bin") as w:
            w["/x"] = np.arange(3.0)
    assert sorted(str(c.message) for c in caught) == [
        "/t: given no data; it is written as zeros",
        "/y: given no data; it is written as zeros"]
    assert dudley.open(str(tmp_path / "w.bin"))["y"][...].tolist() == [0.0, 0.0]
    with pytest.raises(dudley.UsageError, match=r"2 item\(s\) .* /t, /y"):
        with dudley.Writer(layout, tmp_path / "s.bin", strict=True) as w:
            w["/x"] = np.arange(3.0)
    assert not (tmp_path / "s.bin").exists() and not (tmp_path / "s.dud").exists()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with dudley.Writer(layout, tmp_path / "full.bin", strict=True) as w:
            w["/x"] = np.arange(3.0)
            w["/t"] = 1
            w["/y", 0] = 5  # a region counts as given
