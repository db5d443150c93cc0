"""Sparse selections of uncompressed chunks (issue 42: a picture reads only what it shows).

A heatmap of a big array reads every k-th row and column. Where chunks are stored without
compression, dudley reads those rows from the file (core/chunk_rows.hpp) instead of each chunk
whole: HDF5 (h5py's files; libhdf5 itself reads such a selection one element at a time) and
Zarr v2 and v3, sharded too. Checked here against numpy's indexing of the same values
(edges, chunks never written, big-endian elements, reversed steps, a user block, an external
link), and by the bytes the process reads (/proc/self/io), which must follow the selection
rather than the array.
"""
import os
import subprocess

import h5py
import numpy as np
import pytest

import dudley
from cli_runner import DUDLEY, ENV

SELECTIONS = [
    np.s_[::28, ::18],
    np.s_[5::-7, 3::40],
    np.s_[::-300, ::-1],
    np.s_[100, ::9],
    np.s_[::101, 7],
    np.s_[::13, ::-101],
    np.s_[1:2000:97, 2:1500:333],
]


def rows_and_values():
    """A 2000 x 1500 array (chunks cut at both edges) whose values say where they are."""
    return np.arange(2000 * 1500, dtype="<i8").reshape(2000, 1500)


@pytest.fixture(scope="module")
def hdf5_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sparse") / "plain.h5"
    values = rows_and_values()
    with h5py.File(path, "w") as f:
        f.create_dataset("little", data=values, chunks=(300, 400))
        f.create_dataset("big", data=values.astype(">f8"), chunks=(256, 1500))
        f.create_dataset("float32", data=values.astype("<f4"), chunks=(1000, 1000))
        # Chunks never written read as the fill value.
        s = f.create_dataset("sparse", shape=values.shape, dtype="<i4", chunks=(300, 400),
                             fillvalue=-9)
        s[0:600, 0:800] = values[0:600, 0:800]
        s[1800:, 1200:] = values[1800:, 1200:]
        three = np.arange(40 * 300 * 200, dtype="<u2").reshape(40, 300, 200)
        f.create_dataset("three", data=three, chunks=(10, 100, 200))
    return path


def expected_hdf5(path, name):
    with h5py.File(path) as f:
        return f[name][...]


@pytest.mark.parametrize("name", ["little", "big", "float32", "sparse"])
@pytest.mark.parametrize("sel", SELECTIONS, ids=str)
def test_hdf5_selections_read_as_numpy_indexes_them(hdf5_file, name, sel):
    want = expected_hdf5(hdf5_file, name)[sel]
    got = np.asarray(dudley.open(str(hdf5_file))["/" + name][sel])
    assert got.dtype == want.dtype.newbyteorder("=")
    assert np.array_equal(got, want)


@pytest.mark.parametrize("sel", [np.s_[::7, ::29, ::31], np.s_[3, ::-17, 1::50],
                                 np.s_[::-13, 5, ::9]], ids=str)
def test_three_dimensions(hdf5_file, sel):
    want = expected_hdf5(hdf5_file, "three")[sel]
    assert np.array_equal(np.asarray(dudley.open(str(hdf5_file))["/three"][sel]), want)


def test_a_file_with_a_user_block_reads_right(tmp_path):
    """Chunk addresses of a file with a user block are not offsets in the file: its chunks
    are read whole (through the library), and the values stay right."""
    path = tmp_path / "userblock.h5"
    values = rows_and_values()
    with h5py.File(path, "w", userblock_size=1024) as f:
        f.create_dataset("x", data=values, chunks=(300, 400))
    for sel in SELECTIONS:
        assert np.array_equal(np.asarray(dudley.open(str(path))["/x"][sel]), values[sel])


def test_a_dataset_behind_an_external_link_reads_right(tmp_path):
    values = rows_and_values()
    with h5py.File(tmp_path / "target.h5", "w") as f:
        f.create_dataset("x", data=values, chunks=(300, 400))
    with h5py.File(tmp_path / "link.h5", "w") as f:
        f["x"] = h5py.ExternalLink("target.h5", "/x")
    for sel in SELECTIONS:
        got = np.asarray(dudley.open(str(tmp_path / "link.h5"))["/x"][sel])
        assert np.array_equal(got, values[sel])


@pytest.fixture(scope="module")
def zarr_stores(tmp_path_factory):
    """Uncompressed Zarr: v2 by zarr-python (chunks never written among them), and v3 plain
    and sharded, converted by dudley from the HDF5 file's values."""
    base = tmp_path_factory.mktemp("sparse-zarr")
    values = rows_and_values()
    import zarr
    more = {"zarr_format": 2} if int(zarr.__version__.split(".")[0]) >= 3 else {}
    big = zarr.open_array(str(base / "v2-big.zarr"), mode="w", shape=values.shape,
                          chunks=(256, 1500), dtype=">f8", compressor=None, **more)
    big[...] = values.astype(">f8")
    plain = zarr.open_array(str(base / "v2-plain.zarr"), mode="w", shape=values.shape,
                            chunks=(300, 400), dtype="<i8", compressor=None, fill_value=-9,
                            **more)
    plain[0:600, 0:800] = values[0:600, 0:800]
    plain[1800:, 1200:] = values[1800:, 1200:]
    with h5py.File(base / "source.h5", "w") as f:
        f.create_dataset("x", data=values)
    for name, extra in [("v3.zarr", []), ("v3-sharded.zarr", ["--shards", "1000,1500"])]:
        subprocess.run([DUDLEY, "convert", str(base / "source.h5"), str(base / name),
                        "--compressor", "none", "--chunks", "250,300", *extra],
                       check=True, env=ENV, capture_output=True)
    written = values.copy()
    written[:] = -9
    written[0:600, 0:800] = values[0:600, 0:800]
    written[1800:, 1200:] = values[1800:, 1200:]
    return {"v2-plain.zarr": (written, "/"), "v2-big.zarr": (values.astype(">f8"), "/"),
            "v3.zarr": (values, "/x"),
            "v3-sharded.zarr": (values, "/x")}, base


@pytest.mark.parametrize("store", ["v2-plain.zarr", "v2-big.zarr", "v3.zarr", "v3-sharded.zarr"])
@pytest.mark.parametrize("sel", SELECTIONS, ids=str)
def test_zarr_selections_read_as_numpy_indexes_them(zarr_stores, store, sel):
    stores, base = zarr_stores
    values, path = stores[store]
    got = np.asarray(dudley.open(str(base / store))[path][sel])
    assert np.array_equal(got, values[sel])


def bytes_read():
    with open("/proc/self/io") as f:
        return int(next(line for line in f if line.startswith("rchar:")).split()[1])


@pytest.fixture(scope="module")
def big_arrays(tmp_path_factory):
    """64 MiB of float32 in chunks of 1024 x 1024 (4 MiB), HDF5 and Zarr v2 alike."""
    base = tmp_path_factory.mktemp("sparse-big")
    values = np.random.default_rng(3).random((4096, 4096), dtype="f4")
    with h5py.File(base / "big.h5", "w") as f:
        f.create_dataset("x", data=values, chunks=(1024, 1024))
    import zarr
    more = {"zarr_format": 2} if int(zarr.__version__.split(".")[0]) >= 3 else {}
    z = zarr.open_array(str(base / "big.zarr"), mode="w", shape=values.shape,
                        chunks=(1024, 1024), dtype="f4", compressor=None, **more)
    z[...] = values
    return base, values


@pytest.mark.parametrize("name, path", [("big.h5", "/x"), ("big.zarr", "/")])
def test_a_picture_reads_its_rows_not_the_chunks(big_arrays, name, path):
    """Every 16th row and column, as a 256-row picture of the array reads them: about 256
    rows of 16 KiB (4 MiB), not the 64 MiB of chunks holding them."""
    base, values = big_arrays
    array = dudley.open(str(base / name))[path]
    before = bytes_read()
    got = np.asarray(array[::16, ::16])
    read = bytes_read() - before
    assert np.array_equal(got, values[::16, ::16])
    assert read < 8 << 20, f"{read} bytes read for a selection of 256 KiB"
    # A selection that takes most of each chunk still reads chunks whole.
    before = bytes_read()
    assert np.array_equal(np.asarray(array[::2, :]), values[::2, :])
    assert bytes_read() - before >= 64 << 20


def process_bytes_read(command):
    """Runs `command`; its exit code and the bytes it read (rchar: every read call, page
    cache or not), taken from /proc/PID/io after it ended and before it is reaped."""
    p = subprocess.Popen(command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    with open(f"/proc/{p.pid}/io") as f:
        read = int(next(line for line in f if line.startswith("rchar:")).split()[1])
    p.wait()
    return p.returncode, read


@pytest.mark.parametrize("name, path", [("big.h5", "/x"), ("big.zarr", "/")])
def test_plot_of_a_big_array_reads_a_fraction(big_arrays, name, path, tmp_path):
    """`dudley plot` (the viewer's heatmaps read the same way) of the 64 MiB array reads every
    4th row: 16 MiB of rows, not 64 MiB of chunks."""
    base, _ = big_arrays
    out = tmp_path / "big.png"
    code, read = process_bytes_read([DUDLEY, "plot", str(base / name), path, "-o", str(out)])
    assert code == 0
    assert os.path.getsize(out) > 0
    assert read < 32 << 20, f"plot read {read} bytes of a 64 MiB array"
