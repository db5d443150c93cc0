"""Text that is not UTF-8 in a file's names and attributes (HDF5, netCDF and numpy's S type
hold any bytes: old files carry Latin-1 "\\xb5m" for micrometres and "Temp\\xe9rature").

JSON output is UTF-8 text: such bytes are printed as U+FFFD, as Python's own
bytes.decode("utf-8", "replace") does, and never stop a command (`dudley ls` of such a file
once failed with an internal error). Formats whose metadata is JSON or YAML (Zarr, ASDF) cannot
carry them: convert fails naming each item, or with --lossy leaves them out and lists them,
and what it writes opens in the peers. HDF5 carries the bytes as they are.
"""
import json
import os
import pickle
import subprocess
import sys

import asdf
import h5py
import numpy as np
import pytest
import zarr

from cli_runner import DUDLEY, ENV, run

sys.path.insert(0, os.path.dirname(__file__))
from test_view import get, viewer  # noqa: E402

TITLE = b"Temp\xe9rature"
UNITS = b"\xb5m"
NOTE = b"\xff\xfe"
VNOTE = b"\xe9t\xe9"
NAME = b"caf\xe9"
# The items convert cannot carry to a JSON or YAML format, as it names them.
NOT_CARRIED = ["/@title", "/caf", "/x@note", "/x@units", "/x@vnote"]


ZARR3_PYTHON = os.path.join(os.path.dirname(__file__), "..", "..", ".venv-stack", "bin", "python")
ZARR3_READ = """
import json, sys, zarr
g = zarr.open_group(sys.argv[1], mode="r")
print(json.dumps({"members": sorted(g), "v": [bytes(s).hex() for s in g["v"][:]],
                  "x": g["x"][:].tolist()}))
"""


@pytest.fixture(scope="module")
def latin1_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("latin1") / "latin1.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset(NAME, data=np.arange(3))
        x = f.create_dataset("x", data=np.arange(3.0))
        x.attrs["units"] = np.bytes_(UNITS)
        x.attrs.create("note", NOTE, dtype=h5py.string_dtype("ascii", 3))
        x.attrs["vnote"] = VNOTE
        f.create_dataset("v", data=[NOTE, b"ok"], dtype=h5py.string_dtype("ascii"))
        f.attrs["title"] = np.bytes_(TITLE)
    return path


def as_bytes(v):
    return v.encode("utf-8", "surrogateescape") if isinstance(v, str) else bytes(v)


def replaced(b):
    return b.decode("utf-8", "replace")


def strict_json(stdout_bytes):
    """The document, decoded as strict UTF-8 first: JSON text must be UTF-8."""
    return json.loads(stdout_bytes.decode("utf-8"))


def run_bytes(*args):
    return subprocess.run([DUDLEY, *args], capture_output=True, env=ENV)


def test_text_commands_print_the_bytes(latin1_file):
    for command in (["ls"], ["dump"]):
        r = run_bytes(*command, str(latin1_file))
        assert r.returncode == 0, (command, r.stderr)
        assert NAME in r.stdout, command  # text output keeps the bytes, as h5dump does


def test_describe_warns_of_what_ndl_cannot_state(latin1_file):
    # NDL is YAML: what it cannot state is a warning (exit 0), each item named.
    r = run("describe", str(latin1_file), errors="replace")
    assert r.returncode == 0, r.stderr
    for item in ["/: attribute 'title'", "/caf", "/x: attribute 'note'", "/x: attribute 'units'",
                 "/x: attribute 'vnote'"]:
        assert item in r.stderr, (item, r.stderr)
    assert "x:" in r.stdout and "v:" in r.stdout


def test_json_outputs_are_utf8_with_replacement_characters(latin1_file):
    r = run_bytes("ls", "--json", str(latin1_file))
    assert r.returncode == 0, r.stderr
    tree = strict_json(r.stdout)["root"]
    assert tree["attributes"]["title"] == replaced(TITLE)
    x = tree["members"]["x"]["attributes"]
    assert x["note"] == replaced(NOTE) and x["vnote"] == replaced(VNOTE)
    assert replaced(NAME) in tree["members"]

    r = run_bytes("dump", "--json", str(latin1_file), "/v")
    assert r.returncode == 0, r.stderr
    assert strict_json(r.stdout)["root"]["members"]["v"]["data"] == [replaced(NOTE), "ok"]

    for command in (["describe", "--json"], ["layout", "--json"], ["dump", "--json"]):
        r = run_bytes(*command, str(latin1_file))
        assert r.returncode == 0, (command, r.stderr)
        strict_json(r.stdout)


@pytest.mark.parametrize("suffix,options", [(".zarr", []), (".zarr", ["--zarr-format", "2"]),
                                            (".asdf", [])])
def test_convert_names_what_json_and_yaml_cannot_carry(latin1_file, tmp_path, suffix, options):
    out = tmp_path / ("out" + suffix)
    r = run("convert", str(latin1_file), str(out), *options, errors="replace")
    assert r.returncode == 1, r.stderr
    assert "5 items of the source cannot be carried" in r.stderr
    for item in NOT_CARRIED:
        assert item in r.stderr, (item, r.stderr)
    assert not out.exists()

    r = run("convert", "--lossy", "--json", str(latin1_file), str(out), *options,
            errors="replace")
    assert r.returncode == 0, r.stderr
    lost = json.loads(r.stdout)["lost"]
    assert len(lost) == 5 and all(any(i in line for line in lost) for i in NOT_CARRIED), lost
    with h5py.File(latin1_file) as f:
        v = [bytes(s) for s in f["v"][:]]
        x = f["x"][:]
    if suffix == ".asdf":
        with asdf.open(out) as af:
            assert sorted(k for k in af.tree if k != "asdf_library") == ["v", "x"]
            assert [bytes(s) for s in af.tree["v"][:]] == v
            np.testing.assert_array_equal(af.tree["x"][:], x)
    elif options:  # v2: Debian's zarr 2.13
        g = zarr.open(str(out), mode="r")
        assert sorted(g) == ["v", "x"]
        assert [bytes(s) for s in g["v"][:]] == v
        np.testing.assert_array_equal(g["x"][:], x)
    else:  # v3: zarr 3 from PyPI, in the environment scripts/install-deps.sh makes
        read = subprocess.run([ZARR3_PYTHON, "-c", ZARR3_READ, str(out)], capture_output=True,
                              text=True)
        assert read.returncode == 0, read.stderr
        got = json.loads(read.stdout)
        assert got["members"] == ["v", "x"]
        assert [bytes.fromhex(h) for h in got["v"]] == v and got["x"] == x.tolist()


def test_hdf5_carries_the_bytes(latin1_file, tmp_path):
    out = tmp_path / "out.h5"
    r = run("convert", str(latin1_file), str(out), errors="replace")
    assert r.returncode == 0, r.stderr
    with h5py.File(out) as f:
        assert NAME in list(f)  # h5py gives a name that is not UTF-8 as bytes
        # h5py gives text it cannot decode with surrogate escapes: the bytes, unchanged.
        assert as_bytes(f.attrs["title"]) == TITLE
        assert as_bytes(f["x"].attrs["units"]) == UNITS
        assert as_bytes(f["x"].attrs["vnote"]) == VNOTE
        assert [bytes(s) for s in f["v"][:]] == [NOTE, b"ok"]


def test_viewer_answers_json_for_such_text(latin1_file):
    with viewer(latin1_file) as (port, _):
        status, kind, body = get(port, "/api/item", {"path": "/x"})
        assert status == 200 and kind.startswith("application/json")
        attributes = strict_json(body)["item"]["attributes"]
        assert attributes["units"] == replaced(UNITS) and attributes["note"] == replaced(NOTE)
        # A query holding bytes that are not UTF-8 is refused with a JSON message, not 500.
        for path, query in [("/api/item", "path=%FF"), ("/api/values", "path=/x&sel=%FF"),
                            ("/api/slice", "path=/x&rows=%FF")]:
            status, kind, body = get(port, path + "?" + query)
            assert status in (400, 404), (path, query, status, body)
            assert "error" in strict_json(body), body
        status, _, body = get(port, "/api/tree")
        assert status == 200 and replaced(NAME) in strict_json(body)["root"]["members"]


def test_python_attributes_read(latin1_file):
    # Text that is not UTF-8 keeps its bytes as surrogate escapes, as h5py gives
    # variable-length text (it gives fixed-length text as bytes).
    import dudley
    f = dudley.open(str(latin1_file))
    assert as_bytes(dict(f.attrs)["title"]) == TITLE
    assert as_bytes(f["x"].attrs["units"]) == UNITS and as_bytes(f["x"].attrs["note"]) == NOTE
    with h5py.File(latin1_file) as h:
        assert f["x"].attrs["vnote"] == h["x"].attrs["vnote"]
        assert as_bytes(f["x"].attrs["vnote"]) == VNOTE
    np.testing.assert_array_equal(f["x"][...], np.arange(3.0))


def test_a_dimension_scale_named_so(tmp_path):
    # x's dimension is named after a scale whose own name is not UTF-8: Zarr's
    # dimension_names cannot hold it and NDL cannot name the coordinate (convert once stopped
    # with an internal error, describe with exit 1).
    path = tmp_path / "dims.h5"
    with h5py.File(path, "w") as f:
        t = f.create_dataset(b"ti\xe9", data=np.arange(3.0))
        t.make_scale(b"ti\xe9")
        f.create_dataset("x", data=np.arange(3.0)).dims[0].attach_scale(t)
    for options in ([], ["--zarr-format", "2"]):
        out = tmp_path / f"d{len(options)}.zarr"
        r = run("convert", str(path), str(out), *options, errors="replace")
        assert r.returncode == 1 and "/x@dimension_names: text that is not UTF-8" in r.stderr, r.stderr
        assert not out.exists()
        r = run("convert", "--lossy", str(path), str(out), *options, errors="replace")
        assert r.returncode == 0, r.stderr
        assert "/x@dimension_names" in r.stderr
        if options:
            np.testing.assert_array_equal(zarr.open(str(out), mode="r")["x"][:], np.arange(3.0))
    r = run("describe", str(path), errors="replace")
    assert r.returncode == 0 and "its name is not UTF-8" in r.stderr, r.stderr
    assert "x:" in r.stdout


def test_python_names_follow_h5py(latin1_file):
    # pybind11 converts text strictly: list(f) once raised UnicodeDecodeError. Names come as
    # h5py gives them, str when UTF-8 and bytes when not, and go back into f[...] unchanged.
    import dudley
    f = dudley.open(str(latin1_file))
    with h5py.File(latin1_file, "r") as h:
        assert list(f) == list(h) and NAME in list(f)
        assert list(f.keys()) == list(h.keys())
        assert [k for k, _ in f.items()] == [k for k, _ in h.items()]
        visited, h_visited = [], []
        f.visititems(lambda name, obj: visited.append(name))
        h.visititems(lambda name, obj: h_visited.append(name))
        assert visited == h_visited
        assert f[NAME].name == h[NAME].name == b"/" + NAME
    assert NAME in f and b"caf\xe8" not in f
    # The name as a str with surrogate escapes (os.fsdecode gives it, and h5py 4 will) finds
    # the same member; a surrogate that stands for no byte is refused as Python refuses it.
    escaped = NAME.decode("utf-8", "surrogateescape")
    assert escaped in f
    np.testing.assert_array_equal(f[escaped][...], np.arange(3))
    with pytest.raises(UnicodeEncodeError):
        f["caf\ud800"]
    np.testing.assert_array_equal(f[NAME][...], np.arange(3))
    np.testing.assert_array_equal(f["/" + "x"][...], np.arange(3.0))
    # Text for people shows U+FFFD where the bytes are not UTF-8, as the JSON outputs do.
    assert replaced(NAME) in repr(f) and replaced(NAME) in repr(f[NAME])
    assert replaced(NAME) in f._repr_html_() and replaced(NAME) in f[NAME]._repr_html_()
    with pytest.raises(KeyError, match="caf\ufffd"):
        f[b"caf\xe8"]
    with pytest.raises(IndexError, match="caf\ufffd has no fields"):
        f[NAME]["field"]
    # Pickled (what Dask sends its workers), the array reopens by the same bytes.
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(f[NAME]))[...], np.arange(3))


def test_python_attribute_names_follow_h5py(tmp_path):
    import dudley
    path = tmp_path / "attrs.h5"
    with h5py.File(path, "w") as h:
        h.attrs[b"\xb5m"] = 1.5
        h.attrs["ok"] = 2
    with h5py.File(path, "r") as h:
        expected = sorted(h.attrs.keys(), key=repr)
    f = dudley.open(str(path))
    assert sorted(f.attrs.keys(), key=repr) == expected and UNITS in f.attrs
    assert f.attrs[UNITS] == 1.5


def test_python_save_takes_bytes_names(tmp_path):
    # h5py creates members from bytes names; dudley.save takes them too: HDF5 carries them,
    # Zarr refuses them naming each (a LossError whose text and `lost` are str).
    import dudley
    tree = {NAME: np.arange(4), "x": dudley.Item(np.arange(2.0), attrs={b"\xb5": 1})}
    out = tmp_path / "saved.h5"
    dudley.save(tree, str(out))
    with h5py.File(out, "r") as h:
        assert NAME in list(h)
        np.testing.assert_array_equal(h[NAME][...], np.arange(4))
        assert h["x"].attrs[b"\xb5"] == 1
    with pytest.raises(dudley.LossError) as caught:
        dudley.save(tree, str(tmp_path / "saved.zarr"))
    assert any("/caf\ufffd" in item for item in caught.value.lost), caught.value.lost
    assert "/caf\ufffd" in str(caught.value)
    notes = dudley.save(tree, str(tmp_path / "lossy.zarr"), lossy=True)
    assert any(n.startswith("left out: /caf\ufffd") for n in notes), notes
    with pytest.raises(TypeError, match="a member name must be str or bytes, not int"):
        dudley.save({1: np.arange(2)}, str(tmp_path / "bad.h5"))


def test_python_paths_that_are_not_utf8(latin1_file, tmp_path):
    # A file name with bytes that are not UTF-8 comes from os.listdir and glob with
    # surrogate escapes (PEP 383): open takes it (and bytes), filename gives it back, and
    # errors name it the same way.
    import dudley
    name = os.fsdecode(b"r\xe9sultat.h5")
    path = tmp_path / name
    path.write_bytes(latin1_file.read_bytes())
    for given in (str(path), path, os.fsencode(str(path))):
        f = dudley.open(given)
        assert f.filename == str(path)
        np.testing.assert_array_equal(f["x"][...], np.arange(3.0))
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(f["x"]))[...], np.arange(3.0))
    family = dudley.open_family(str(tmp_path / "*.h5"))
    assert family.files == [str(path)]
    missing = tmp_path / os.fsdecode(b"abs\xe9nt.h5")
    with pytest.raises(dudley.FileError) as caught:
        dudley.open(str(missing))
    assert caught.value.path == str(missing)


def test_xarray_reads_such_a_file(latin1_file):
    import xarray as xr
    ds = xr.open_dataset(str(latin1_file), engine="dudley")
    assert NAME in ds.variables
    np.testing.assert_array_equal(ds[NAME].values, np.arange(3))
