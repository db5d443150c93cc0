"""Hostile use of the Python module: every index form numpy knows either reads what numpy
reads or raises the exception numpy users catch (IndexError, ValueError, TypeError), naming
the form; never a crash. Objects of the module's classes cannot be made half-built."""
import subprocess
import sys

import h5py
import numpy as np
import pytest

import dudley

BIG = [2**63 - 1, 2**63, 2**64, 2**70, -(2**63), -(2**63) - 1, -(2**70)]


FORMATS = ["h5", "npy", "zarr", "bin", "asdf", "avro", "ndl"]


@pytest.fixture(scope="module", params=FORMATS)
def arrays(tmp_path_factory, request):
    """(dudley array, the same values in numpy) for a 2-D array in each format: every
    format's reader meets the same indexes (steps of -2^63 included)."""
    d = tmp_path_factory.mktemp("hostile")
    values = np.arange(12.0).reshape(3, 4)
    with h5py.File(d / "a.h5", "w") as f:
        f["x"] = values
    if request.param != "h5":
        notes = dudley.save(dudley.open(str(d / "a.h5")), str(d / f"a.{request.param}"))
        assert not [n for n in notes if n.startswith("left out")], notes
    f = dudley.open(str(d / f"a.{request.param}"))
    # .npy is one array (its root); Avro records are a list and keep no names.
    where = {"npy": "/", "avro": 0}.get(request.param, "x")
    return f[where], values


# Forms that numpy reads as advanced indexing: each reads as numpy reads it, on every format.
ADVANCED = {
    "integer array": lambda: np.array([0, 1]),
    "boolean mask": lambda: np.array([True, False, True]),
    "0-d boolean array": lambda: np.array(True),
    "array in a tuple": lambda: (np.array([1, 2]), 0),
    "list": lambda: [0, 1],
    "boolean": lambda: True,
    "numpy boolean": lambda: np.bool_(True),
    "tuple in a tuple": lambda: ((0, 1), 0),
    "2-d integer array": lambda: np.zeros((2, 2), dtype=np.int64),
    "huge integer array": lambda: np.array([2**62]),
    "negative beyond the size": lambda: [-4],
}


@pytest.mark.parametrize("name", sorted(ADVANCED))
def test_advanced_indexes_read_as_numpy_does(arrays, name):
    a, values = arrays
    index = ADVANCED[name]()
    try:
        want = values[index]
    except IndexError:
        with pytest.raises(IndexError, match="out of bounds"):
            a[index]
        return
    assert np.array_equal(a[index], want)


@pytest.mark.parametrize("index", [1.5, "0", b"0", object(), np.float64(1.0), 1j])
def test_indexes_of_other_types_raise(arrays, index):
    a, values = arrays
    with pytest.raises((IndexError, TypeError)):
        values[index]  # numpy refuses them too
    with pytest.raises((IndexError, TypeError)):
        a[index]


@pytest.mark.parametrize("big", BIG)
def test_integers_beyond_64_bits_are_out_of_bounds(arrays, big):
    a, values = arrays
    with pytest.raises((IndexError, OverflowError)):  # numpy says either, by size
        values[big]
    with pytest.raises(IndexError) as e:
        a[big]
    assert "out of bounds" in str(e.value)
    with pytest.raises(IndexError):
        a[0, big]


def slices_with_big_bounds():
    small = [None, 0, 1, -1, 3, -4]
    out = []
    for start in small[:3] + BIG:
        for stop in small[:3] + BIG:
            for step in [None, 1, -1, 2, -3] + BIG:
                out.append(slice(start, stop, step))
    return out


def test_slices_with_any_bounds_read_as_numpy(arrays):
    a, values = arrays
    checked = 0
    for s in slices_with_big_bounds():
        for index in (s, (Ellipsis, s), (s, None, slice(None)), (0, s)):
            expected = values[index]
            got = a[index]
            assert got.shape == expected.shape, index
            np.testing.assert_array_equal(got, expected)
            checked += 1
    assert checked > 1000


def test_zero_step_is_a_value_error(arrays):
    a, values = arrays
    with pytest.raises(ValueError):
        values[::0]
    with pytest.raises(ValueError, match="step cannot be zero"):
        a[::0]


def test_numpy_integers_and_0d_integer_arrays_index(arrays):
    a, values = arrays
    for index in (np.int64(1), np.uint8(2), np.array(1), np.array(-1, dtype=np.int8),
                  (np.int32(-1), np.array(2))):
        np.testing.assert_array_equal(a[index], values[index])


def test_too_many_indices(arrays):
    a, _ = arrays
    with pytest.raises(IndexError, match="too many indices"):
        a[0, 0, 0]
    with pytest.raises(IndexError, match="too many indices"):
        a[(0,) * 100000]
    with pytest.raises(IndexError):
        a[..., ...]


def test_an_index_whose_index_method_raises(arrays):
    a, _ = arrays

    class Bad:
        def __index__(self):
            raise RuntimeError("no")

    with pytest.raises(RuntimeError, match="no"):
        a[Bad()]
    with pytest.raises(RuntimeError, match="no"):
        a[Bad():2]


def run_python(code):
    return subprocess.run([sys.executable, "-c", "import dudley, numpy as np\n" + code],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("expression", [
    "repr(dudley.Array.__new__(dudley.Array))",
    "dudley.Array.__new__(dudley.Array)[0]",
    "repr(dudley.File.__new__(dudley.File))",
    "dudley.File.__new__(dudley.File)['x']",
    "dudley.Group.__new__(dudley.Group).keys()",
    "dudley.Family.__new__(dudley.Family)[0]",
    "dudley._native.Diagnostic.__new__(dudley._native.Diagnostic).message",
    "dudley._native._Writer.__new__(dudley._native._Writer).commit()",
    "dudley._native._FamilyWriter.__new__(dudley._native._FamilyWriter).add()",
    "dudley.Array()",
    "dudley.File()",
])
def test_objects_cannot_be_made_half_built(expression):
    # In a subprocess: what this guards against is a crash of the interpreter.
    r = run_python(f"try:\n    {expression}\nexcept TypeError as e:\n    print('TypeError', e)\n")
    assert r.returncode == 0, r.stderr
    assert "TypeError" in r.stdout
    assert "cannot be created directly" in r.stdout or "No constructor" in r.stdout, r.stdout


def test_writers_still_work_after_new_is_refused(tmp_path):
    path = tmp_path / "w.bin"
    with dudley.Writer("x = <f8[3]\n", path) as w:
        w["/x"] = np.arange(3.0)
    np.testing.assert_array_equal(dudley.open(str(path))["x"][...], np.arange(3.0))
