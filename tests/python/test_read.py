"""The Python module reading files written by numpy and h5py, every basic index compared
with numpy's own indexing of the same array (random shapes and index tuples)."""
import json
import random

import h5py
import numpy as np
import pytest

import dudley

SIGNATURE = "!DUDLEY := S1[8]\n"


def write_steps(stem, fields, steps):
    """A family at `stem`: member i holds fields[i] as /v, its step as the parameter `step`."""
    shape = ", ".join(map(str, fields.shape[1:]))
    with dudley.FamilyWriter(f"{SIGNATURE}!TEMPLATE\nstep := i8\nv = f8[{shape}]\n",
                             stem) as family:
        for field, step in zip(fields, steps):
            with family.add() as w:
                w["/v"] = field
                w.set_param("step", step)


def random_index(rng, shape):
    """A random numpy basic index for an array of `shape`: integers (negative too), slices
    with any steps, at most one Ellipsis, new axes."""
    parts, dims, used_ellipsis = [], list(shape), False
    while dims or rng.random() < 0.2:
        r = rng.random()
        if r < 0.1:
            parts.append(None)
            continue
        if not dims:
            break
        if r < 0.18 and not used_ellipsis:
            used_ellipsis = True
            parts.append(Ellipsis)
            dims = dims[rng.randint(0, len(dims)):] if dims else dims
            continue
        n = dims.pop(0)
        if r < 0.45 and n > 0:
            parts.append(rng.randint(-n, n - 1))
        else:
            pick = lambda: rng.choice([None, rng.randint(-n - 2, n + 2)])
            parts.append(slice(pick(), pick(), rng.choice([None, 1, 2, 3, -1, -2])))
        if rng.random() < 0.15:
            break
    return tuple(parts) if len(parts) != 1 or rng.random() < 0.5 else parts[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("py")
    rng = np.random.default_rng(5)
    arrays = {
        "f8": rng.standard_normal((4, 5, 3)),
        "i2be": (rng.integers(-300, 300, (7, 2))).astype(">i2"),
        "u1": rng.integers(0, 255, (9,), dtype="u1"),
        "scalar": np.array(3.5),
        "empty": np.zeros((0, 4), dtype="<f4"),
    }
    with h5py.File(d / "a.h5", "w") as f:
        for k, v in arrays.items():
            f[f"g/{k}"] = v
        f["g/f8"].attrs["units"] = "m/s"
        f.attrs["title"] = "run 5"
    np.save(d / "a.npy", arrays["f8"])
    return d, arrays


def test_every_basic_index_is_numpys(files):
    d, arrays = files
    f = dudley.open(str(d / "a.h5"))
    rng = random.Random(11)
    checked = 0
    for name, want in arrays.items():
        a = f["g/" + name]
        assert a.shape == want.shape and a.ndim == want.ndim and a.size == want.size
        assert a.dtype == want.dtype and a.nbytes == want.nbytes
        for _ in range(300):
            index = random_index(rng, want.shape)
            try:
                expected = want[index]
            except IndexError:
                with pytest.raises(IndexError):
                    a[index]
                continue
            got = a[index]
            assert got.shape == np.shape(expected), (name, index)
            assert np.array_equal(got, expected), (name, index)
            checked += 1
    assert checked > 1000


def test_whole_arrays_and_asarray(files):
    d, arrays = files
    f = dudley.open(str(d / "a.h5"))
    for name, want in arrays.items():
        assert np.array_equal(f["g/" + name][...], want)
        assert np.array_equal(np.asarray(f["g/" + name]), want)
    assert f["g/scalar"][()] == 3.5
    npy = dudley.open(str(d / "a.npy"))
    assert npy.format == "npy"
    assert np.array_equal(npy["/"][1, ::-1], arrays["f8"][1, ::-1])


def test_groups_as_h5py(files):
    d, _ = files
    with dudley.open(str(d / "a.h5")) as f:
        assert f.format == "hdf5"
        assert sorted(f.keys()) == ["g"] and "g" in f and "g/f8" in f and "nope" not in f
        assert sorted(f["g"].keys()) == sorted(["f8", "i2be", "u1", "scalar", "empty"])
        assert len(f["g"]) == 5 and sorted(f["g"]) == sorted(f["g"].keys())
        assert dict(f.attrs) == {"title": "run 5"}
        assert dict(f["g/f8"].attrs) == {"units": "m/s"}
        assert f["/g/f8"].name == "/g/f8"
        seen = []
        f.visititems(lambda name, obj: seen.append(name))
        assert seen[0] == "g" and "g/f8" in seen and len(seen) == 6
        with pytest.raises(KeyError):
            f["g/nope"]
        with pytest.raises(TypeError):
            f["g/f8"].attrs["units"] = "x"  # read-only mapping


def test_errors_are_python_exceptions(tmp_path):
    with pytest.raises(dudley.Error) as e:
        dudley.open(str(tmp_path / "missing.h5"))
    assert e.value.category == "io" and e.value.path.endswith("missing.h5")
    bad = tmp_path / "bad.dud"
    bad.write_text("x = <f8[3, 2\ny = <f8[3]\n")  # the shape's bracket never closes
    (tmp_path / "bad.bin").write_bytes(b"\0" * 24)
    with pytest.raises(dudley.Error) as e:
        dudley.open(str(tmp_path / "bad.bin"), layout=str(bad))
    assert e.value.path.endswith("bad.dud") and e.value.line == 2 and e.value.column == 1


def test_dudley_data_with_parameters(tmp_path):
    (tmp_path / "d.dud").write_text("N := <i8\nx = <f8[N, 2]\n")
    (tmp_path / "d.bin").write_bytes(np.array([3], "<i8").tobytes() + np.arange(6.0).tobytes())
    f = dudley.open(str(tmp_path / "d.bin"), layout=str(tmp_path / "d.dud"))
    assert np.array_equal(f["x"][:, 1], [1.0, 3.0, 5.0])
    g = dudley.open(str(tmp_path / "d.bin"), layout=str(tmp_path / "d.dud"), params={"N": 2})
    assert g["x"].shape == (2, 2)
    # Text that is an integer is one; anything else is refused, naming the parameter.
    assert dudley.open(str(tmp_path / "d.bin"), params={"N": "1"})["x"].shape == (1, 2)
    for bad in ("2.5", 2.5, "two", None):
        with pytest.raises(dudley.UsageError, match=r"params\['N'\]: expected an integer"):
            dudley.open(str(tmp_path / "d.bin"), params={"N": bad})


def test_views_outlive_their_file(files):
    d, arrays = files
    a = dudley.open(str(d / "a.h5"))["g/f8"]  # the file object is gone; the array keeps it
    part = a[1]
    del a
    assert np.array_equal(part, arrays["f8"][1])


def test_view_maps_the_file_without_a_copy(tmp_path):
    with h5py.File(tmp_path / "v.h5", "w") as f:
        f["x"] = np.arange(12, dtype=">i4").reshape(3, 4)
        f.create_dataset("c", data=np.arange(10.0), chunks=(5,))
    f = dudley.open(str(tmp_path / "v.h5"))
    v = f["x"].view()
    assert isinstance(v, np.memmap) and not v.flags.writeable
    assert v.dtype == np.dtype(">i4") and np.array_equal(v, np.arange(12).reshape(3, 4))
    with pytest.raises(dudley.Error) as e:
        f["c"].view()  # chunked: no single run of bytes to map
    assert e.value.category == "usage"
    np.save(tmp_path / "n.npy", np.arange(6.0))
    assert np.array_equal(dudley.open(str(tmp_path / "n.npy"))["/"].view(), np.arange(6.0))


def test_a_file_that_is_one_array_selects_like_it(tmp_path):
    # .npy and Zarr array stores are one array: the file selects as its array does (as
    # zarr.open gives an array for an array store), and f["/"] is the array.
    a = np.arange(12.0).reshape(3, 4)
    np.save(tmp_path / "n.npy", a)
    f = dudley.open(str(tmp_path / "n.npy"))
    for sel in (Ellipsis, 0, -1, slice(1, 3), (slice(None), 2), (1, slice(None, None, 2))):
        assert np.array_equal(f[sel], a[sel]), sel
    assert np.array_equal(f["/"][1:3], a[1:3])
    with h5py.File(tmp_path / "g.h5", "w") as h:
        h["x"] = np.arange(3)
    g = dudley.open(str(tmp_path / "g.h5"))
    with pytest.raises(TypeError, match=r"is a group: take its members by name"):
        g[1:2]
    with pytest.raises(TypeError, match=r"members are named, not numbered"):
        g[0]


def test_paths_as_path_objects_open_files_and_fsspec_files(tmp_path):
    import pathlib
    a = np.arange(6.0)
    np.save(tmp_path / "n.npy", a)
    assert np.array_equal(dudley.open(pathlib.Path(tmp_path / "n.npy"))[...], a)
    with open(tmp_path / "n.npy", "rb") as f:  # an open local file: read by its name
        assert np.array_equal(dudley.open(f)[2:4], a[2:4])
    fsspec = pytest.importorskip("fsspec")
    with fsspec.open(f"file://{tmp_path}/n.npy", "rb") as f:
        assert np.array_equal(dudley.open(f)[...], a)
    with pytest.raises(TypeError, match="expected a path, a URL or an fsspec file object"):
        dudley.open(3)
    dudley.save({"x": a}, tmp_path / "out.h5")  # save takes path objects too
    assert np.array_equal(dudley.open(str(tmp_path / "out.h5"))["x"][...], a)


def test_field_names_index_compounds(tmp_path):
    rec = np.array([(1, 2.5), (3, 4.5)], dtype=[("a", "<i4"), ("b", "<f8")])
    with h5py.File(tmp_path / "r.h5", "w") as f:
        f["r"] = rec
        f["x"] = np.arange(3)
    f = dudley.open(str(tmp_path / "r.h5"))
    assert f["r"].dtype.names == ("a", "b")
    assert np.array_equal(f["r"]["b"], rec["b"]) and np.array_equal(f["r"][1:], rec[1:])
    with pytest.raises(IndexError):
        f["x"]["a"]


def test_check_and_fmt():
    problems = dudley.check("x = <f8[N]\n")
    assert [(p.line, p.column, p.code) for p in problems] == [(1, 9, "undefined-parameter")]
    assert dudley.check("N := 3\nx = <f8[N]\n") == []
    assert dudley.fmt("N:=3 # n\nx=<f8[N]@ 0x10\n") == "N := 3  # n\nx = <f8[N] @ 16\n"
    with pytest.raises(dudley.Error) as e:
        dudley.fmt("x = <f8[3\n")
    assert (e.value.line, e.value.column, e.value.category) == (2, 1, "syntax")


def test_families_by_glob_and_index(tmp_path):
    for i in range(4):
        with h5py.File(tmp_path / f"run_{i}.h5", "w") as f:
            f["v"] = np.arange(6.0).reshape(2, 3) + i
            f["t"] = np.arange(i + 1)  # a shape each
    fam = dudley.open_family(str(tmp_path / "run_*.h5"))
    assert len(fam) == 4 and [p.split("/")[-1] for p in fam.files] == [f"run_{i}.h5" for i in range(4)]
    stacked = fam.read("/v", (Ellipsis, 1))
    assert stacked.shape == (4, 2) and np.array_equal(stacked[:, 0], [1.0, 2.0, 3.0, 4.0])
    parts = fam.read("t")  # shapes differ: a list
    assert isinstance(parts, list) and [len(p) for p in parts] == [1, 2, 3, 4]
    assert np.array_equal(fam[-1]["v"][...], np.arange(6.0).reshape(2, 3) + 3)
    assert [f.format for f in fam] == ["hdf5"] * 4
    with pytest.raises(IndexError):
        fam[4]
    # Through a layout `dudley layout --family` made, as Dudley data.
    import subprocess, os
    dudley_bin = os.environ.get("DUDLEY_BIN")
    if dudley_bin:
        # The program carries its own sanitizer runtime when the module's is preloaded.
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        subprocess.run([dudley_bin, "layout", "--family", str(tmp_path / "run_*.h5"), "-o",
                        str(tmp_path / "run.dud")], check=True, capture_output=True, env=env)
        through = dudley.open_family(str(tmp_path / "run_*.h5"), layout=str(tmp_path / "run.dud"))
        assert [f.format for f in through] == ["dudley"] * 4
        assert np.array_equal(through.read("/t", stack=False)[2], [0, 1, 2])


def test_save_round_trips_through_every_format(tmp_path):
    tree = {"x": np.arange(12, dtype=">i4").reshape(3, 4), "g": {"y": np.linspace(0, 1, 5)}}
    for ext in ["h5", "asdf", "zarr", "bin"]:  # bin: Dudley data with its layout beside it
        out = tmp_path / f"t.{ext}"
        dudley.save(tree, str(out))
        f = dudley.open(str(out))
        assert np.array_equal(f["x"][...], tree["x"]), ext
        assert np.array_equal(f["g/y"][1:3], tree["g"]["y"][1:3]), ext
    with h5py.File(tmp_path / "t.h5") as h:  # the peer reads what we wrote
        assert np.array_equal(h["g/y"][...], tree["g"]["y"]) and h["x"].dtype == np.dtype(">i4")
    # A file opened from one format, saved as another; never over itself.
    f = dudley.open(str(tmp_path / "t.h5"))
    dudley.save(f, str(tmp_path / "again.asdf"))
    assert np.array_equal(dudley.open(str(tmp_path / "again.asdf"))["x"][...], tree["x"])
    with pytest.raises(dudley.Error):
        dudley.save(f, str(tmp_path / "t.h5"))
    # A bare list or array is the file's one array, as h5py users write it.
    dudley.save([1, 2], str(tmp_path / "list.h5"))
    assert dudley.open(str(tmp_path / "list.h5"))["data"][...].tolist() == [1, 2]
    with pytest.raises(dudley.DataTypeError):
        dudley.save(object(), str(tmp_path / "bad.h5"))


def test_error_subclasses_by_category(tmp_path):
    with pytest.raises(dudley.FileError) as e:
        dudley.open(str(tmp_path / "none.h5"))
    assert isinstance(e.value, OSError) and isinstance(e.value, dudley.Error)
    with pytest.raises(dudley.ParseError):
        dudley.fmt("x = <f8[3\n")
    (tmp_path / "d.dud").write_text("x = <f8[4]\n")
    (tmp_path / "d.bin").write_bytes(b"\0" * 8)  # 8 bytes of the 32 the layout says
    f = dudley.open(str(tmp_path / "d.bin"), layout=str(tmp_path / "d.dud"))
    with pytest.raises(dudley.DataError) as e:
        f["x"][...]
    assert e.value.path.endswith("d.bin") and e.value.category == "data"
    with pytest.raises(dudley.UsageError):
        dudley.open(str(tmp_path / "d.bin"), format="nosuchformat")


def test_storage_and_repr(tmp_path):
    with h5py.File(tmp_path / "s.h5", "w") as h:
        h["g/x"] = np.arange(12, dtype=">i4").reshape(3, 4)
        h.create_dataset("c", data=np.arange(10.0), chunks=(5,), compression="gzip", maxshape=(None,))
        for i in range(100):
            h[f"many/a{i:03d}"] = np.zeros(2)
    with h5py.File(tmp_path / "s.h5") as h:  # before dudley holds the file open
        offset = h["g/x"].id.get_offset()
    f = dudley.open(str(tmp_path / "s.h5"))
    assert f["g/x"].storage == {"layout": "contiguous", "offset": offset, "size": 48, "byteorder": "big"}
    c = f["c"].storage
    assert c["layout"] == "chunked" and c["chunk_shape"] == (5,) and c["max_shape"] == (None,)
    assert c["codecs"][0]["name"] == "zlib"
    text = repr(f["g"])
    assert text.splitlines()[1] == "  x >i4 (3, 4)"
    assert len(repr(f).splitlines()) <= 42 and repr(f).endswith("...")  # 100 members: cut
    assert f._repr_html_().startswith("<pre>&lt;dudley.Group")


def test_pickle_reopens_by_path(tmp_path):
    import pickle
    (tmp_path / "d.dud").write_text("N := <i8\nx = <f8[N, 2]\n")
    (tmp_path / "d.bin").write_bytes(np.array([3], "<i8").tobytes() + np.arange(6.0).tobytes())
    f = dudley.open(str(tmp_path / "d.bin"), layout=str(tmp_path / "d.dud"))
    a = pickle.loads(pickle.dumps(f["x"]))
    assert a.name == "/x" and np.array_equal(a[...], np.arange(6.0).reshape(3, 2))
    g = pickle.loads(pickle.dumps(f))
    assert isinstance(g, dudley.File) and g.format == "dudley" and "x" in g
    # Parameters and the byte order given travel with the pickle (a Dask worker reads alike).
    (tmp_path / "b.dud").write_text("N := <i8\nx = |f8[N, 2]\n")
    (tmp_path / "b.bin").write_bytes(np.array([3], "<i8").tobytes() +
                                     np.arange(6.0).astype(">f8").tobytes())
    h = dudley.open(str(tmp_path / "b.bin"), layout=str(tmp_path / "b.dud"), order=">",
                    params={"N": 2})
    back = pickle.loads(pickle.dumps(h["x"]))
    assert back.shape == (2, 2) and np.array_equal(back[...], np.arange(4.0).reshape(2, 2))


def test_dask_follows_the_read_unit(tmp_path):
    import dask
    import dask.array  # noqa: F401 (its configuration defaults, before they are changed)
    import zarr
    z = zarr.open(str(tmp_path / "z.zarr"), mode="w", shape=(100, 60), chunks=(30, 25), dtype=">f4")
    z[:] = np.arange(6000, dtype=">f4").reshape(100, 60)
    a = dudley.open(str(tmp_path / "z.zarr"))["/"]
    assert a.read_unit == (30, 25)
    # Dask chunks are whole read units, grouped up to Dask's chunk size: here the chunk
    # size is set to about four units, so chunks are 2 x 2 units (the edges cut).
    with dask.config.set({"array.chunk-size": "12KiB"}):
        d = dudley.to_dask(a)
    assert d.chunks[0] == (60, 40) and d.chunks[1] == (50, 10)
    assert dudley.to_dask(a).chunks == ((100,), (60,))  # Dask's 128 MiB: one chunk
    with dask.config.set(scheduler="threads"):
        assert float(d.sum().compute()) == float(np.arange(6000, dtype="f8").sum())
        assert np.array_equal(d[5:50:3, ::-2].compute(), z[...][5:50:3, ::-2])
    e = dudley.to_dask(a, chunks=(50, 60))
    assert e.chunks == ((50, 50), (60,))


def test_a_local_cluster_of_two_processes(tmp_path):
    """Arrays travel to worker processes by path: a chunked Zarr array and a family of .npy
    files reduced on a LocalCluster of 2 processes on 127.0.0.1, compared with numpy."""
    import dask.array as da
    import zarr
    from dask.distributed import Client, LocalCluster
    z = zarr.open(str(tmp_path / "z.zarr"), mode="w", shape=(400, 300), chunks=(100, 100), dtype="<f8")
    z[:] = np.arange(120000.0).reshape(400, 300)
    for i in range(50):
        np.save(tmp_path / f"m_{i:03d}.npy", np.arange(10.0) * i)
    # A family of 1,000 members, each a run's step and field.
    rng = np.random.default_rng(9)
    fields = rng.standard_normal((1000, 6, 4))
    write_steps(tmp_path / "run", fields, steps=range(1000))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster):
        d = dudley.to_dask(dudley.open(str(tmp_path / "z.zarr"))["/"])
        assert float(d.sum().compute()) == float(np.arange(120000.0).sum())
        assert np.array_equal(d[::7, 5].compute(), z[...][::7, 5])
        fam = dudley.open_family(str(tmp_path / "m_*.npy"))
        stacked = da.stack([dudley.to_dask(m["/"]) for m in fam])
        assert np.array_equal(stacked.sum(axis=0).compute(), np.arange(10.0) * sum(range(50)))
        runs = dudley.to_dask(dudley.open_family(str(tmp_path / "run.index.bin")), path="/v",
                              chunks=(100, 6, 4))
        assert runs.shape == (1000, 6, 4) and runs.numblocks[0] == 10
        assert np.allclose(runs.sum(axis=0).compute(), fields.sum(axis=0))
        assert np.array_equal(runs[::-97, 2].compute(), fields[::-97, 2])
    npy = dudley.open(str(tmp_path / "m_001.npy"))
    import pickle
    assert isinstance(pickle.loads(pickle.dumps(npy)), dudley.File)
    assert np.array_equal(pickle.loads(pickle.dumps(npy["/"]))[...], np.arange(10.0))


def test_xarray_backend(tmp_path):
    import xarray as xr
    with h5py.File(tmp_path / "x.h5", "w") as h:
        h["time"] = np.arange(5.0)
        h["time"].make_scale("time")
        h["v"] = np.arange(10.0).reshape(5, 2)
        h["v"].dims[0].attach_scale(h["time"])
        h["v"].attrs["units"] = "m"
        h.attrs["title"] = "run"
    ds = xr.open_dataset(str(tmp_path / "x.h5"), engine="dudley")
    assert ds["v"].dims == ("time", "v_dim_1") and ds["v"].attrs == {"units": "m"}
    assert ds.attrs == {"title": "run"}
    assert np.array_equal(ds["v"][1:4, ::-1].values, np.arange(10.0).reshape(5, 2)[1:4, ::-1])
    assert np.array_equal(ds["time"].values, np.arange(5.0))
    z = xr.open_dataset(str(tmp_path / "x.h5"), engine="dudley", drop_variables=["v"])
    assert list(z.data_vars) == [] and "time" in z.coords
    assert ds.indexes["time"].equals(__import__("pandas").Index(np.arange(5.0)))
    assert float(ds["v"].sel(time=3.0)[1]) == 7.0


def test_xarray_open_mfdataset_over_a_family(tmp_path):
    """A family's members as one dataset: each member's arrays along a new dimension, its
    parameters (here the step) as a coordinate along it; against numpy."""
    import xarray as xr
    rng = np.random.default_rng(2)
    fields = rng.standard_normal((12, 3, 4))
    write_steps(tmp_path / "run", fields, steps=range(0, 120, 10))
    files = dudley.open_family(str(tmp_path / "run.index.bin")).files
    ds = xr.open_mfdataset(files, engine="dudley", combine="nested", concat_dim="member",
                           layout=str(tmp_path / "run.dud"))
    assert ds["v"].shape == (12, 3, 4)
    assert np.array_equal(ds["v"].values, fields)
    assert np.array_equal(ds["step"].values, np.arange(12) * 10)
    assert np.allclose(ds["v"].mean("member").values, fields.mean(axis=0))


def test_h5py_and_dudley_open_one_file_at_once(tmp_path):
    """A Python user mixes both: libhdf5 refuses a second open of a file with another close
    degree, so dudley opens HDF5 files as h5py does."""
    with h5py.File(tmp_path / "m.h5", "w") as h:
        h["x"] = np.arange(5.0)
    f = dudley.open(str(tmp_path / "m.h5"))
    with h5py.File(tmp_path / "m.h5", "r") as h:
        assert np.array_equal(h["x"][...], f["x"][...])
        g = dudley.open(str(tmp_path / "m.h5"))
        assert g["x"][3] == h["x"][3] == 3.0


def test_h5py_habits(tmp_path):
    """What h5py users type: get, values, in, len, iteration, visit and visititems in
    h5py's order (each member, then what is below it), numpy scalars from integer indexes."""
    import h5py
    path = str(tmp_path / "h.h5")
    with h5py.File(path, "w") as h:
        h["b/y"] = np.arange(6.0).reshape(2, 3)
        h["a/z/w"] = np.float32(2.5)
        h["c"] = np.arange(3, dtype="<i2")
    f = dudley.open(path)
    with h5py.File(path) as h:
        theirs, ours = [], []
        h.visit(theirs.append)
        f.visit(ours.append)
        assert ours == theirs
        seen = []
        f.visititems(lambda name, obj: seen.append(name))
        assert seen == theirs
        assert f.get("nope") is None and f.get("nope", 7) == 7
        assert f.get("b/y").shape == (2, 3)
        assert "b/y" in f and "b/x" not in f and len(f) == 3 and list(f) == list(h)
        assert [v.name for v in f["b"].values()] == ["/b/y"]
        # Integer indexes give numpy scalars, as h5py; `...` keeps a 0-d array.
        for key in [(0, 0), (1, -1)]:
            got, want = f["b/y"][key], h["b/y"][key]
            assert type(got) is type(want) and got == want
        assert type(f["a/z/w"][()]) is type(h["a/z/w"][()]) is np.float32
        assert isinstance(f["a/z/w"][...], np.ndarray) and f["a/z/w"][...].ndim == 0
        assert type(f["c"][1]) is np.int16
        assert isinstance(f["b/y"][0], np.ndarray)


def test_unreadable_arrays_say_why_and_never_pose_as_arrays(tmp_path):
    """An array its reader cannot read (a Zarr codec this build lacks) lists with its
    reason, raises that reason when its type, shape or values are asked for, and the
    xarray engine leaves it out with a warning (or raises, on_unreadable="raise")."""
    import warnings

    import xarray as xr
    store = tmp_path / "u.zarr"
    (store / "x").mkdir(parents=True)
    (store / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group", "attributes": {}}')
    (store / "x" / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "attributes": {},
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                   {"name": "mystery"}]}))
    f = dudley.open(str(store))
    a = f["x"]
    assert 'unknown codec "mystery"' in a.error and "unreadable" in repr(a)
    assert "x" in repr(f)
    for ask in (lambda: a.dtype, lambda: a.shape, lambda: a.ndim, lambda: a[...],
                lambda: np.asarray(a)):
        with pytest.raises(dudley.DataTypeError, match="mystery"):
            ask()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = xr.open_dataset(str(store), engine="dudley")
    assert "x" not in ds.variables
    assert any("x: left out, it cannot be read" in str(w.message) and "mystery" in str(w.message)
               for w in caught)
    with pytest.raises(dudley.DataTypeError, match="mystery"):
        xr.open_dataset(str(store), engine="dudley", on_unreadable="raise")


def test_xarray_guess_can_open_looks_without_opening(tmp_path):
    """The engine claims a file by its first bytes, its name or the layout beside it, and
    opens nothing to decide (xarray asks every engine about every file)."""
    from dudley._xarray import XarrayBackend
    guess = XarrayBackend().guess_can_open
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "noext").write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(100))
    (tmp_path / "plain").write_bytes(b"nothing we read")
    (tmp_path / "run.bin").write_bytes(bytes(8))
    (tmp_path / "run.dud").write_text("x = f8\n")
    (tmp_path / "s.zarr").mkdir()
    (tmp_path / "s.zarr" / "zarr.json").write_text("{}")
    (tmp_path / "empty_dir").mkdir()
    assert guess(str(tmp_path / "noext")) and guess(tmp_path / "run.bin")
    assert guess(str(tmp_path / "s.zarr")) and guess("elsewhere.h5")
    assert not guess(str(tmp_path / "notes.txt")) and not guess(str(tmp_path / "plain"))
    assert not guess(str(tmp_path / "empty_dir")) and not guess(object())


def test_h5py_dataset_properties_match_h5py(tmp_path):
    """What h5py users read off a dataset: chunks, compression and its level, shuffle,
    fletcher32, maxshape, fillvalue (values and types), astype, read_direct, File.mode."""
    path = tmp_path / "p.h5"
    with h5py.File(path, "w") as h:
        h.create_dataset("c", data=np.arange(10.0), chunks=(5,), compression="gzip",
                         compression_opts=3, shuffle=True, fletcher32=True, maxshape=(None,),
                         fillvalue=-1)
        h["d"] = np.arange(4, dtype="i2")
        h.create_dataset("l", data=np.arange(10.0), chunks=(5,), compression="lzf")
    f = dudley.open(str(path))
    with h5py.File(path, "r") as h:
        assert f.mode == h.mode == "r"
        for name in h:
            a, d = f[name], h[name]
            for prop in ("chunks", "compression", "compression_opts", "shuffle", "fletcher32",
                         "maxshape", "fillvalue"):
                mine, theirs = getattr(a, prop), getattr(d, prop)
                assert mine == theirs and type(mine) is type(theirs), (name, prop, mine, theirs)
            assert np.array_equal(a.astype("f4")[1:3], d.astype("f4")[1:3])
            assert a.astype("f4")[1:3].dtype == np.float32
            mine, theirs = np.zeros(3, a.dtype), np.zeros(3, d.dtype)
            a.read_direct(mine, np.s_[1:4], np.s_[0:3])
            d.read_direct(theirs, np.s_[1:4], np.s_[0:3])
            assert np.array_equal(mine, theirs)
    with pytest.raises(TypeError, match="C-contiguous"):
        f["d"].read_direct(np.zeros((4, 2))[:, 0])
