"""numpy's advanced indexing (integer arrays and lists, boolean masks, mixed with integers,
slices, Ellipsis and np.newaxis) on every format, compared with numpy's own indexing of the
same array on random shapes, dtypes and index tuples; errors where numpy raises them."""
import random
import warnings

import h5py
import numpy as np
import pytest
from zarr_peer import write_v2

import dudley

DTYPES = ["<f8", "<i4", ">u2", "|i1", "<c8", "?", "S3", [("a", "<i4"), ("b", "<f8")]]


def random_values(rng, shape, dtype):
    n = int(np.prod(shape))
    if dtype == "S3":
        return np.array([b"%d" % (i % 997) for i in range(n)], dtype="S3").reshape(shape)
    if isinstance(dtype, list):
        out = np.zeros(n, dtype=dtype)
        out["a"] = np.arange(n)
        out["b"] = np.arange(n) / 4
        return out.reshape(shape)
    if dtype == "?":
        return (np.arange(n) % 3 == 0).reshape(shape)
    return (np.arange(n) * 7 % 251).astype(dtype).reshape(shape)


def random_fancy_index(rng, shape):
    """A random index with at least one advanced entry: integer arrays (negative, repeats, any
    order, any rank), lists, per-axis and multi-axis boolean masks, beside integers, slices,
    at most one Ellipsis and new axes; sometimes one numpy refuses (out of range)."""
    parts, dims = [], list(shape)
    advanced = False
    used_ellipsis = False
    while dims:
        r = rng.random()
        n = dims[0]
        if r < 0.08:
            parts.append(None)
            continue
        if r < 0.14 and not used_ellipsis:
            used_ellipsis = True
            parts.append(Ellipsis)
            skip = rng.randint(0, len(dims))
            dims = dims[skip:]
            continue
        if r < 0.40:
            size = rng.choice([0, 1, 2, 3, 5]) if rng.random() < 0.8 else (2, 2)
            count = int(np.prod(size))
            low = -n if n else 0
            values = [rng.randint(low, max(n - 1, 0)) for _ in range(count)] if n else []
            if values and rng.random() < 0.03:
                values[0] = n  # out of range: numpy's IndexError
            if not n and count:
                size = 0  # nothing to pick from
                values = []
            arr = np.array(values, dtype=rng.choice([np.int64, np.int32, np.uint8])
                           if values and min(values) >= 0 else np.int64).reshape(size)
            parts.append(arr.tolist() if rng.random() < 0.3 else arr)
            advanced = True
        elif r < 0.55:
            mask = np.array([rng.random() < 0.5 for _ in range(n)], dtype=bool)
            parts.append(mask if rng.random() < 0.7 else mask.tolist())
            advanced = True
        elif r < 0.62 and len(dims) >= 2:
            mask = np.array([[rng.random() < 0.4 for _ in range(dims[1])] for _ in range(n)],
                            dtype=bool).reshape(n, dims[1])
            parts.append(mask)
            advanced = True
            dims = dims[2:]
            continue
        elif r < 0.75 and n:
            parts.append(rng.randint(-n, n - 1))
        else:
            a = rng.choice([None, 0, 1, -1, n // 2])
            b = rng.choice([None, n, -1, n // 2 + 1])
            step = rng.choice([None, 1, 2, -1, -2, 3])
            parts.append(slice(a, b, step))
        dims = dims[1:]
    if not advanced:  # a 0-d boolean: advanced, taking no dimension
        parts.append(rng.choice([True, np.True_, np.array(False)]))
    return tuple(parts)


def write_all(tmp_path, values, stem):
    """The same values in .npy, HDF5 contiguous, HDF5 chunked with gzip, Zarr v2 chunked."""
    paths = {}
    p = tmp_path / f"{stem}.npy"
    np.save(p, values)
    paths["npy"] = (p, "/")
    p = tmp_path / f"{stem}.h5"
    chunks = tuple(max(1, min(3, n)) for n in values.shape) if values.ndim else None
    with h5py.File(p, "w") as h:
        h["contiguous"] = values
        if values.ndim and values.size:
            h.create_dataset("chunked", data=values, chunks=chunks, compression="gzip")
    paths["h5"] = (p, "/contiguous")
    if values.ndim and values.size:
        paths["h5chunked"] = (p, "/chunked")
        z = tmp_path / f"{stem}.zarr"
        write_v2(z, values, chunks)
        paths["zarr"] = (z, "/")
    return paths


def numpy_or_error(values, index):
    """numpy's result, or its error; an index out of bounds on an empty result is an error
    (numpy 1.24 only warns, numpy 2 raises it, as we do)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        try:
            return values[index], None
        except (IndexError, DeprecationWarning) as e:
            return None, e


@pytest.mark.parametrize("seed", range(20))
def test_advanced_indexes_match_numpy(tmp_path, seed):
    rng = random.Random(seed)
    checked = errors = 0
    for case in range(8):
        rank = rng.randint(1, 4)
        shape = tuple(rng.randint(0 if rng.random() < 0.1 else 1, 6) for _ in range(rank))
        dtype = rng.choice(DTYPES)
        values = random_values(rng, shape, dtype)
        paths = write_all(tmp_path, values, f"c{case}")
        for name, (path, item) in paths.items():
            with dudley.open(str(path)) as f:
                a = f[item]
                for _ in range(25):
                    index = random_fancy_index(rng, shape)
                    want, error = numpy_or_error(values, index)
                    if error is not None:
                        with pytest.raises(IndexError):
                            a[index]
                        errors += 1
                        continue
                    try:
                        got = a[index]
                    except IndexError as e:
                        # An index out of bounds is an error even where the result is empty
                        # (numpy 2 raises there too; numpy 1.24 returns the empty result).
                        assert want.size == 0 and "out of bounds" in str(e), (name, index, e)
                        errors += 1
                        continue
                    assert type(got) is type(want) or np.isscalar(got) == np.isscalar(want), \
                        (name, shape, index)
                    assert np.shape(got) == np.shape(want), (name, shape, index)
                    assert np.array_equal(got, want), (name, shape, index)
                    checked += 1
    assert checked > 300 and errors > 0


def test_reads_follow_runs_and_chunks(tmp_path):
    """A sorted pick of rows reads one run per group of consecutive rows (contiguous data),
    one per chunk touched (chunked data): not one per element."""
    values = np.arange(1000 * 4, dtype="<f8").reshape(1000, 4)
    np.save(tmp_path / "v.npy", values)
    write_v2(tmp_path / "v.zarr", values, (100, 4))
    rows = [0, 1, 2, 3, 500, 501, 999]
    a = dudley.open(str(tmp_path / "v.npy"))["/"]
    data, positions, reads = a._read_outer([rows, (0, 4, 1)])
    assert reads <= 3
    assert np.array_equal(data[positions[0]], values[rows])
    z = dudley.open(str(tmp_path / "v.zarr"))["/"]
    picks = [5, 50, 95, 150, 999]
    data, positions, reads = z._read_outer([picks, (0, 4, 1)])
    assert reads == 3  # chunks 0, 1 and 9
    assert np.array_equal(data[positions[0]], values[picks])
    assert np.array_equal(z[picks], values[picks])


def test_paired_coordinates_read_as_points(tmp_path):
    """a[rows, cols] with many points far apart reads the points, not their outer box."""
    values = np.arange(3000 * 3000, dtype="<u4").reshape(3000, 3000)
    np.save(tmp_path / "big.npy", values)
    rng = np.random.default_rng(1)
    rows = rng.integers(0, 3000, 2000)
    cols = rng.integers(0, 3000, 2000)
    a = dudley.open(str(tmp_path / "big.npy"))["/"]
    assert np.array_equal(a[rows, cols], values[rows, cols])
    assert np.array_equal(a[rows[:, None], None, cols[None, :5]], values[rows[:, None], None, cols[None, :5]])
    assert np.array_equal(a[:, [5, 1]][rows], values[:, [5, 1]][rows])


def test_scalars_and_strings(tmp_path):
    with h5py.File(tmp_path / "s.h5", "w") as h:
        h["s"] = np.array(["a", "bcd", "é", "x"], dtype=h5py.string_dtype())
        h["m"] = np.arange(12.0).reshape(3, 4)
    with dudley.open(str(tmp_path / "s.h5")) as f:
        assert list(f["s"][[3, 0, 0]]) == ["x", "a", "a"]
        assert list(f["s"][np.array([True, False, True, False])]) == ["a", "é"]
        v = f["m"][np.array([1]), 2]
        assert v.shape == (1,) and v[0] == 6.0
        assert f["m"][[True, True, False]].shape == (2, 4)


def test_bad_indexes_raise_as_numpy_does(tmp_path):
    np.save(tmp_path / "m.npy", np.zeros((3, 4)))
    a = dudley.open(str(tmp_path / "m.npy"))["/"]
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 3"):
        a[[0, 3]]
    with pytest.raises(IndexError, match="boolean index did not match"):
        a[np.array([True, False])]
    with pytest.raises(IndexError, match="integer \\(or boolean\\) type"):
        a[np.array([0.5])]
    with pytest.raises(IndexError, match="too many indices"):
        a[[0], 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        a[..., [0], ...]
