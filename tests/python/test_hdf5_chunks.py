"""Chunked HDF5 datasets read and written by their chunks (issue 41, item 8): the chunks'
stored bytes decoded by dudley on every core (src/formats/hdf5/chunk_reader.hpp), and
written filtered by dudley (chunk_writer.hpp), checked against h5py and numpy's indexing:
edge chunks, chunks never written, big-endian elements, a chunk whose filter was skipped,
damaged chunks, the filters libhdf5 keeps decoding (fletcher32), and peers reading what
dudley wrote."""
import json
import subprocess
import threading

import h5py
import numpy as np
import pytest

import dudley
from cli_runner import DUDLEY, ENV, run

SELECTIONS = [
    np.s_[...],
    np.s_[3:30, 5:47, 1:60],
    np.s_[::-1, ::3, -5::-7],
    np.s_[10, :, 7],
    np.s_[36, 49, 63],
    np.s_[0:37:9, 15:17, ::16],
]


@pytest.fixture(scope="module")
def chunked(tmp_path_factory):
    """Datasets of every filter pipeline this reader decodes, with chunks cut at every edge."""
    path = tmp_path_factory.mktemp("h5chunks") / "chunked.h5"
    rng = np.random.default_rng(7)
    data = {
        "deflate": (rng.standard_normal((37, 50, 64)) * 100).astype("<f4"),
        "shuffle": rng.integers(-10**12, 10**12, (37, 50, 64), dtype="<i8"),
        "big_endian": rng.standard_normal((37, 50, 64)).astype(">f8"),
        "complex": (rng.standard_normal((37, 50, 64)) + 1j).astype("<c8"),
        "boolean": rng.integers(0, 2, (37, 50, 64)).astype(bool),
        "plain": rng.integers(0, 255, (37, 50, 64), dtype="u1"),
        "fletcher": rng.standard_normal((37, 50, 64)).astype("<f4"),
    }
    with h5py.File(path, "w") as f:
        f.create_dataset("deflate", data=data["deflate"], chunks=(8, 16, 20), compression=4)
        f.create_dataset("shuffle", data=data["shuffle"], chunks=(7, 9, 64), compression="gzip",
                         shuffle=True)
        f.create_dataset("big_endian", data=data["big_endian"], chunks=(5, 50, 11),
                         compression=1)
        f.create_dataset("complex", data=data["complex"], chunks=(8, 8, 8), compression=9)
        f.create_dataset("boolean", data=data["boolean"], chunks=(20, 20, 20), compression=2)
        f.create_dataset("plain", data=data["plain"], chunks=(3, 7, 64))
        f.create_dataset("fletcher", data=data["fletcher"], chunks=(8, 16, 20),
                         compression="gzip", fletcher32=True)
        # Two chunks written, the rest never: they read as the fill value.
        s = f.create_dataset("sparse", shape=(37, 50, 64), dtype="<f4", chunks=(8, 16, 20),
                             compression="gzip", fillvalue=-7.5)
        s[0:8, 0:16, 0:20] = 1.25
        s[32:37, 48:50, 60:64] = 3.5
        # A chunk stored with its deflate skipped (filter mask bit 0): raw bytes, as libhdf5
        # stores a chunk that an optional filter could not shrink.
        k = f.create_dataset("skipped", data=np.zeros((16, 16), "<i4"), chunks=(8, 8),
                             compression="gzip")
        raw = np.arange(64, dtype="<i4").reshape(8, 8)
        k.id.write_direct_chunk((8, 0), raw.tobytes(), filter_mask=1)
    want = dict(data)
    with h5py.File(path) as f:
        want["sparse"] = f["sparse"][...]
        want["skipped"] = f["skipped"][...]
    assert (want["sparse"] == -7.5).sum() > 0 and want["skipped"][8:, :8].sum() == raw.sum()
    return path, want


@pytest.mark.parametrize("name", ["deflate", "shuffle", "big_endian", "complex", "boolean",
                                  "plain", "fletcher", "sparse"])
def test_selections_read_as_numpy_indexes_them(chunked, name):
    path, want = chunked
    with dudley.open(str(path)) as f:
        a = f[name]
        for sel in SELECTIONS:
            got = np.asarray(a[sel])
            assert np.array_equal(got, want[name][sel]), (name, sel)
            assert got.dtype.newbyteorder("=") == want[name].dtype.newbyteorder("="), name


def test_a_chunk_with_a_skipped_filter_reads_as_stored(chunked):
    path, want = chunked
    with dudley.open(str(path)) as f:
        assert np.array_equal(f["skipped"][...], want["skipped"])
        assert np.array_equal(f["skipped"][7:10, ::-1], want["skipped"][7:10, ::-1])


def test_whole_arrays_through_the_command_line(chunked):
    path, want = chunked
    for name in ("deflate", "big_endian", "sparse"):
        p = run("dump", "--json", str(path), "/" + name + "[2:4, 40:, ::9]")
        assert p.returncode == 0, p.stderr
        node = json.loads(p.stdout)["root"]["members"][name]["selections"]["[2:4, 40:, ::9]"]
        assert np.array_equal(np.array(node["data"], dtype=want[name].dtype),
                              want[name][2:4, 40:, ::9])
        raw = subprocess.run([DUDLEY, "dump", "--binary", "raw", str(path), "/" + name],
                             capture_output=True, env=ENV)
        assert raw.returncode == 0, raw.stderr
        native = want[name].dtype.newbyteorder("=")
        assert np.array_equal(np.frombuffer(raw.stdout, native).reshape(want[name].shape),
                              want[name])


def test_reads_from_many_threads_agree(chunked):
    # One dataset's reads share its decoder's buffers: they take turns, never mix.
    path, want = chunked
    f = dudley.open(str(path))
    a = f["deflate"]
    bad = []

    def reader(i):
        for k in range(8):
            t = (i * 8 + k) % 37
            if not np.array_equal(a[t, ::2], want["deflate"][t, ::2]):
                bad.append(t)

    threads = [threading.Thread(target=reader, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad


def test_a_damaged_chunk_is_named(chunked, tmp_path):
    path, _ = chunked
    damaged = tmp_path / "damaged.h5"
    damaged.write_bytes(path.read_bytes())
    with h5py.File(damaged) as f:
        info = f["deflate"].id.get_chunk_info_by_coord((8, 16, 20))
    raw = bytearray(damaged.read_bytes())
    raw[info.byte_offset + 10:info.byte_offset + 60] = bytes(50)
    damaged.write_bytes(bytes(raw))
    p = run("dump", str(damaged), "/deflate")
    assert p.returncode == 1, p.stderr
    assert "chunk (1, 1, 1)" in p.stderr and "damaged.h5" in p.stderr, p.stderr
    assert f"damaged.h5:@{info.byte_offset}:" in p.stderr, p.stderr  # where the chunk lies
    p = run("dump", "--json", str(damaged), "/deflate[0]")  # chunk row 0 is intact
    assert p.returncode == 0, p.stderr
    with pytest.raises(dudley.DataError, match=r"chunk \(1, 1, 1\)"):
        dudley.open(str(damaged))["deflate"][8:16]


@pytest.fixture(scope="module")
def zarr_source(tmp_path_factory, chunked):
    """A Zarr v2 store (written by dudley from the HDF5 file) with chunks never written."""
    path, _ = chunked
    d = tmp_path_factory.mktemp("zsrc")
    store = d / "src.zarr"
    p = run("convert", "-q", "--zarr-format", "2", "--chunks", "8,16,20", str(path), str(store),
            "/deflate", "/sparse", "/shuffle")
    assert p.returncode == 0, p.stderr
    return store


@pytest.mark.parametrize("options", [[], ["--deflate", "3"], ["--deflate", "1", "--hdf5-shuffle"]])
def test_chunks_written_by_dudley_read_in_h5py(chunked, zarr_source, tmp_path, options):
    _, want = chunked
    out = tmp_path / "out.h5"
    p = run("convert", "-q", *options, str(zarr_source), str(out))
    assert p.returncode == 0, p.stderr
    with h5py.File(out) as f:
        for name in ("deflate", "sparse", "shuffle"):
            d = f[name]
            assert np.array_equal(d[...], want[name]), (name, options)
            assert d.dtype == want[name].dtype and d.chunks == (8, 16, 20), name
            if options:
                assert d.compression == "gzip" and d.compression_opts == int(options[1])
                assert d.shuffle == ("--hdf5-shuffle" in options)
        # Chunks of the source never written are not written here either.
        assert f["sparse"].id.get_num_chunks() < f["deflate"].id.get_num_chunks()
        assert f["sparse"].fillvalue == -7.5


def test_big_endian_chunks_written_big_endian(chunked, tmp_path):
    # HDF5 to HDF5 keeps the stored byte order: the chunks are swapped before filtering.
    path, want = chunked
    out = tmp_path / "be.h5"
    p = run("convert", "-q", "--deflate", "2", str(path), str(out), "/big_endian", "/complex")
    assert p.returncode == 0, p.stderr
    with h5py.File(out) as f:
        for name in ("big_endian", "complex"):
            assert f[name].dtype == want[name].dtype and f[name].compression == "gzip"
            assert np.array_equal(f[name][...], want[name])


def test_chunks_of_a_dataset_behind_an_external_link(tmp_path):
    # The chunk index's sizes are checked against the file holding the dataset, which is
    # larger here than the file holding the link.
    data = np.random.default_rng(3).standard_normal((64, 4096)).astype("<f8")
    with h5py.File(tmp_path / "other.h5", "w") as f:
        f.create_dataset("x", data=data, chunks=(16, 4096), compression=1)
    with h5py.File(tmp_path / "main.h5", "w") as f:
        f["x"] = h5py.ExternalLink("other.h5", "/x")
    assert (tmp_path / "main.h5").stat().st_size < 16 * 4096 * 8
    with dudley.open(str(tmp_path / "main.h5")) as f:
        assert np.array_equal(f["x"][...], data)
        assert np.array_equal(f["x"][40:50, ::7], data[40:50, ::7])
