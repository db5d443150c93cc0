"""Zarr stores zarr-python 3 wrote, for other projects' own tests (zarrs, zarrita.js:
tests/data/realworld/SOURCES.md), in tests/data/realworld/zarr_python3/: every array's values,
through the module and through `dudley dump --json`, are zarr 3's, and `dudley ls --json`
lists every array. numcodecs' checksums, bz2 and zlib under their zarr-python 3 names, blosc
with bitshuffle, numpy.datetime64 and numpy.timedelta64 of every unit (scale factors 10,
picoseconds), fixed_length_utf32, null_terminated_bytes, variable_length_bytes, vlen-utf8,
sharding, consolidated metadata (filled, and null), and zarr v2 as zarr-python 3 writes it
("fill_value": null, a big-endian <U4, adler32 and fletcher32 as compressors).

zarr 3 is imported when this interpreter has it (the PyPI stack); otherwise its values come
from a subprocess of the interpreter ZARR3_PYTHON names, or of .venv-stack/bin/python when
scripts/install-deps.sh made one (Debian's python3 has zarr 2); with neither, the comparisons
are skipped. Arrays zarr 3 cannot read here (zfpy and pcodec are not installed) are compared
with the values the source repository's own test asserts."""
import inspect
import json
import os
import pickle
import subprocess

import numpy as np
import pytest

import dudley
from cli_runner import ENV, run

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "data", "realworld", "zarr_python3")
STACK_PYTHON = os.path.join(HERE, "..", "..", ".venv-stack", "bin", "python")


def arrays_on_disk(store):
    """The store's arrays, found from its files alone: '/' for a store that is an array."""
    found = []
    for dirpath, _, filenames in os.walk(os.path.join(CORPUS, store)):
        rel = os.path.relpath(dirpath, os.path.join(CORPUS, store))
        item = "/" if rel == "." else "/" + rel.replace(os.sep, "/")
        if "zarr.json" in filenames:
            with open(os.path.join(dirpath, "zarr.json"), encoding="utf-8") as f:
                if json.load(f).get("node_type") == "array":
                    found.append(item)
        elif ".zarray" in filenames:
            found.append(item)
    return sorted(found)


STORES = sorted(n for n in os.listdir(CORPUS) if n.endswith(".zarr"))

# Fails today for a codec or data type being added; strict, so the mark goes when it lands.
MISSING = {}  # store or store:item -> the codec or data type it waits for (none now)

# What the source repository's own test asserts, for arrays zarr 3 cannot read without a
# package not installed here: zarrs' `array_v3_numcodecs` (zarrs/src/array.rs) reads 0..99 as
# float32, 10 x 10, from each of its v3_zarr_python stores (zfpy's tolerance 0.01 keeps these
# integers exact). REFUSABLE: a codec nobody is adding; a refusal naming it passes (the store's
# listing too, when the array is the store), wrong data never.
DOCUMENTED = {
    ("zarrs_array_zfpy.zarr", "/"): np.arange(100, dtype="<f4").reshape(10, 10),
    ("zarrs_array_pcodec.zarr", "/"): np.arange(100, dtype="<f4").reshape(10, 10),
}
REFUSABLE = {("zarrs_array_pcodec.zarr", "/"): "numcodecs.pcodec"}


def zarr3_values(stores):
    """Every array of each store as zarr 3 reads it, in builtins only (the values may cross
    from numpy 2 to numpy 1 in a pickle): {store: {item: entry}}, entry {"error"} when zarr 3
    cannot read it (item "*": not the store at all), else its dtype ("str"/"bytes" for
    variable length), shape and its bytes ("raw") or nested list ("list")."""
    import warnings
    import numpy
    import zarr
    warnings.simplefilter("ignore")
    if int(zarr.__version__.split(".")[0]) < 3:
        raise RuntimeError(f"zarr {zarr.__version__} is not zarr 3")

    def walk(node, prefix=""):
        if isinstance(node, zarr.Array):
            yield prefix or "/", node
            return
        for name, a in node.arrays():
            yield f"{prefix}/{name}", a
        for name, g in node.groups():
            yield from walk(g, f"{prefix}/{name}")

    result = {}
    for store in stores:
        entries = result.setdefault(store, {})
        try:
            root = zarr.open(store, mode="r")
        except Exception as e:  # the whole store: "*"
            entries["*"] = {"error": f"{type(e).__name__}: {e}"}
            continue
        for item, a in walk(root):
            try:
                v = a[...]
            except Exception as e:  # a codec zarr 3 has no package for here
                entries[item] = {"error": f"{type(e).__name__}: {e}"}
                continue
            if v.dtype.kind in "OT":
                flat = v.ravel().tolist()
                kind = "bytes" if flat and isinstance(flat[0], bytes) else "str"
                entries[item] = {"dtype": kind, "shape": list(v.shape), "list": v.tolist()}
            else:
                entries[item] = {"dtype": v.dtype.str, "shape": list(v.shape),
                                 "raw": numpy.ascontiguousarray(v).tobytes()}
    return result


@pytest.fixture(scope="module")
def reference():
    paths = [os.path.join(CORPUS, s) for s in STORES]
    try:
        import zarr
        in_process = int(zarr.__version__.split(".")[0]) >= 3
    except ImportError:
        in_process = False
    if in_process:
        values = zarr3_values(paths)
    else:
        python = os.environ.get("ZARR3_PYTHON") or (
            STACK_PYTHON if os.path.exists(STACK_PYTHON) else None)
        if python is None:
            pytest.skip("no zarr 3: neither here nor in ZARR3_PYTHON or .venv-stack")
        code = (inspect.getsource(zarr3_values) + "\nimport pickle, sys\n"
                "sys.stdout.buffer.write(pickle.dumps(zarr3_values(sys.argv[1:]), 4))\n")
        env = {k: v for k, v in ENV.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        try:
            p = subprocess.run([python, "-c", code, *paths], capture_output=True, env=env)
        except OSError as e:
            pytest.skip(f"no zarr 3: {python}: {e}")
        if p.returncode != 0:
            pytest.skip(f"zarr 3 in {python} did not run: {p.stderr.decode()[-500:]}")
        values = pickle.loads(p.stdout)
    return {os.path.basename(k): v for k, v in values.items()}


def wanted(entry):
    """zarr 3's values of an entry: an ndarray of its dtype, or (kind, nested list)."""
    if "raw" in entry:
        return np.frombuffer(entry["raw"], np.dtype(entry["dtype"])).reshape(entry["shape"])
    return entry["dtype"], entry["list"]


def native(dtype):
    return np.dtype(dtype).newbyteorder("=")


def as_text(values):
    """Nested bytes as text (the CLI's JSON has no bytes); other values unchanged."""
    if isinstance(values, list):
        return [as_text(v) for v in values]
    return values.decode("latin-1") if isinstance(values, bytes) else values


def check_module(got, want, where):
    if isinstance(want, tuple):  # variable-length: compared as Python str / bytes
        assert got.tolist() == want[1], (where, got.tolist(), want[1])
        return
    assert got.shape == want.shape, (where, got.shape, want.shape)
    assert native(got.dtype) == native(want.dtype), (where, got.dtype, want.dtype)
    if want.dtype.kind in "mM":  # NaT is never equal to itself: compare the counts
        assert np.array_equal(got.astype("i8"), want.astype("i8")), (where, got, want)
    else:
        assert np.array_equal(got, want, equal_nan=want.dtype.kind in "fc"), (where, got, want)


def byte_lists(values):
    """Nested bytes objects as lists of their byte values: how JSON carries bytes."""
    if isinstance(values, list):
        return [byte_lists(v) for v in values]
    return list(values)


def check_json(data, want, where):
    if isinstance(want, tuple) and want[0] == "bytes":  # JSON has no bytes: lists of them
        assert data == byte_lists(want[1]), (where, data, want[1])
        return
    if isinstance(want, tuple):
        assert as_text(data) == as_text(want[1]), (where, data, want[1])
        return
    if want.dtype.kind in "SU":
        assert as_text(data) == as_text(want.tolist()), (where, data, want.tolist())
        return
    if want.dtype.kind in "iub" and want.size:  # not floats cast silently to integers
        kind = np.array(data).dtype.kind
        assert kind in ("b" if want.dtype.kind == "b" else "iu"), (where, data)
    if want.dtype.kind == "M":  # dates as numpy writes them, "NaT" included
        assert data == np.datetime_as_string(want).tolist(), (where, data, want)
    if want.dtype.kind == "m":  # durations as counts of the unit, NaT as "NaT"
        counts = want.astype("i8").tolist()
        flat = np.array(data, dtype=object).ravel().tolist()
        expected = ["NaT" if c == np.iinfo("i8").min else c for c in np.ravel(counts)]
        assert flat == expected, (where, data, counts)
    got = np.array(data, dtype=native(want.dtype))
    assert got.shape == want.shape, (where, got.shape, want.shape)
    if want.dtype.kind in "mM":
        assert np.array_equal(got.astype("i8"), want.astype("i8")), (where, data, want)
    else:
        assert np.array_equal(got, want, equal_nan=want.dtype.kind in "fc"), (where, data, want)


def read_module(path, item):
    f = dudley.open(path)
    return (f if item == "/" else f[item])[...]


def dumped(path, item):
    """`dudley dump --json STORE ITEM`: (exit status, the item's node or None, stderr)."""
    p = run("dump", "--json", path, item)
    if p.returncode != 0:
        return p.returncode, None, p.stderr
    node = json.loads(p.stdout)["root"]
    for part in item.strip("/").split("/") if item != "/" else []:
        node = node["members"][part]
    return 0, node, p.stderr


def cases():
    for store in STORES:
        for item in arrays_on_disk(store):
            reason = MISSING.get(f"{store}:{item}") or MISSING.get(store)
            # Only the refusal is expected: wrong values once it reads are failures.
            marks = [pytest.mark.xfail(strict=True, reason=reason,
                                       raises=dudley.DataTypeError)] if reason else []
            yield pytest.param(store, item, id=f"{store}:{item}", marks=marks)


@pytest.mark.parametrize("store, item", list(cases()))
def test_values_as_zarr_3_reads_them(store, item, reference):
    path = os.path.join(CORPUS, store)
    entry = reference[store].get(item) or reference[store].get("*")
    assert entry is not None, f"zarr 3 does not find {item} in {store}"
    if "error" in entry:
        if (store, item) not in DOCUMENTED:
            pytest.skip(f"zarr 3 cannot read it here ({entry['error']}) and no source states it")
        want = DOCUMENTED[(store, item)]
        if (store, item) in REFUSABLE:  # refused, or read right; never wrong data
            codec = REFUSABLE[(store, item)]
            try:
                got = read_module(path, item)
            except Exception as e:
                got = e
                assert codec in str(e), e
            status, node, stderr = dumped(path, item)
            assert status == 0 or codec in stderr, stderr
            if isinstance(got, Exception) and status != 0:
                return
            if not isinstance(got, Exception):
                check_module(got, want, "module")
            if status == 0:
                check_json(node["data"], want, "dump --json")
            return
    else:
        want = wanted(entry)
    check_module(read_module(path, item), want, "module")
    status, node, stderr = dumped(path, item)
    assert status == 0, stderr
    check_json(node["data"], want, "dump --json")


def listed_arrays(node, prefix=""):
    if node.get("kind") == "array":
        yield prefix or "/"
    for name, member in node.get("members", {}).items():
        yield from listed_arrays(member, f"{prefix}/{name}")


class Refused(Exception):
    """`dudley ls` exited with an error."""


def ls_cases():
    """A store that is one array is not listed while that array's codec or type is unknown
    (a group lists such a member, with its error)."""
    for store in STORES:
        reason = MISSING.get(store) if arrays_on_disk(store) == ["/"] else None
        marks = [pytest.mark.xfail(strict=True, reason=reason, raises=Refused)] if reason else []
        yield pytest.param(store, id=store, marks=marks)


@pytest.mark.parametrize("store", list(ls_cases()))
def test_ls_lists_every_array(store, request):
    """`dudley ls --json` exits 0 and lists every array of the store (zarr 3's list, where
    zarr 3 is at hand; the store's files otherwise)."""
    p = run("ls", "--json", os.path.join(CORPUS, store))
    if p.returncode != 0 and (store, "/") in REFUSABLE:
        assert REFUSABLE[(store, "/")] in p.stderr, p.stderr
        return
    if p.returncode != 0:
        raise Refused(p.stderr)
    listed = sorted(listed_arrays(json.loads(p.stdout)["root"]))
    assert listed == arrays_on_disk(store)
    try:
        values = request.getfixturevalue("reference")
    except pytest.skip.Exception:
        return
    if "*" not in values[store]:
        assert listed == sorted(values[store])
