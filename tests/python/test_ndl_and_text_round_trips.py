"""Round trips of issue 37 that once lost or garbled something: NDL's byte orders, empty
arrays, region references and string lengths; big-endian UCS4 text and joined text units
through Dudley; checked with h5py, numpy and PyYAML (NDL is YAML)."""
import json

import h5py
import numpy as np
import yaml

from cli_runner import run


def make_h5(path):
    with h5py.File(path, "w") as f:
        d = f.create_dataset("d", data=np.arange(12.0).reshape(3, 4))
        d.attrs.create("be", np.array([1, 2], ">i4"))
        f["e"] = np.zeros((3, 0))
        f["s"] = np.array([b"abc", b"de"], "S5")
        points = f.create_dataset("points", (2,), dtype=h5py.regionref_dtype)
        space = d.id.get_space()
        space.select_elements(np.array([[0, 1], [2, 3]]))
        points[0] = h5py.h5r.create(d.id, b".", h5py.h5r.DATASET_REGION, space)
        points[1] = h5py.h5r.create(d.id, b".", h5py.h5r.DATASET_REGION, space)


def test_ndl_states_what_hdf5_holds(tmp_path):
    src = str(tmp_path / "n.h5")
    make_h5(src)
    r = run("describe", "--values", src, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    doc = yaml.safe_load(out["ndl"])["/"]["ndarrays"]
    # A big-endian attribute says so; an array of shape [3, 0] is three empty rows.
    assert doc["d"]["attributes"]["be"]["storage"] == {"endian": "big"}
    assert doc["e"]["value"] == [[], [], []]
    # Region references by element are element selections, with their elements.
    assert doc["points"]["type"] == {"regref": {"selection": "element"}}
    assert doc["points"]["value"][0] == {"target": "/d", "elements": [[0, 1], [2, 3]]}
    # A fixed-length string has no length in NDL: a note says so.
    assert any(n.startswith("/s: fixed-length strings (|S5)") for n in out["notes"])
    text = run("describe", src)
    assert "note: /s: fixed-length strings (|S5)" in text.stderr


def test_ndl_to_hdf5_keeps_them(tmp_path):
    src = str(tmp_path / "n.h5")
    make_h5(src)
    ndl = str(tmp_path / "n.ndl")
    r = run("convert", src, ndl, "--json")
    assert r.returncode == 0, r.stderr
    assert any("fixed-length strings" in n for n in json.loads(r.stdout)["notes"])
    # An x.dud an earlier conversion left beside x.ndl does not make it Dudley data.
    (tmp_path / "n.dud").write_text("x = f8[1]\n")
    back = str(tmp_path / "back.h5")
    r = run("convert", ndl, back)
    assert r.returncode == 0, r.stderr
    with h5py.File(back) as f:
        assert f["d"].attrs["be"].dtype == np.dtype(">i4")
        assert f["d"].attrs["be"].tolist() == [1, 2]
        assert f["e"].shape == (3, 0)
        assert f["s"][()].tolist() == [b"abc", b"de"]


def test_mixed_region_references_are_named_not_misdescribed(tmp_path):
    src = str(tmp_path / "m.h5")
    with h5py.File(src, "w") as f:
        d = f.create_dataset("d", data=np.arange(12.0).reshape(3, 4))
        r = f.create_dataset("r", (2,), dtype=h5py.regionref_dtype)
        r[0] = d.regionref[0:2, 1:3]
        space = d.id.get_space()
        space.select_elements(np.array([[0, 1]]))
        r[1] = h5py.h5r.create(d.id, b".", h5py.h5r.DATASET_REGION, space)
    r = run("convert", src, str(tmp_path / "m.ndl"), "--json")
    assert r.returncode == 1
    assert any(x.startswith("/r: region references of both kinds")
               for x in json.loads(r.stdout)["error"]["lost"])


def test_big_endian_ucs4_through_dudley(tmp_path):
    src = str(tmp_path / "u.npy")
    np.save(src, np.array([["ab", "c"], ["d", "éf"]], ">U2"))
    for target in ("u.bin", "u.h5"):
        r = run("convert", src, str(tmp_path / target))
        assert r.returncode == 0, r.stderr
    back = str(tmp_path / "back.npy")
    r = run("convert", str(tmp_path / "u.bin"), back)
    assert r.returncode == 0, r.stderr
    got = np.load(back)
    assert got.dtype == np.dtype("<U2") and got.tolist() == [["ab", "c"], ["d", "éf"]]
    with h5py.File(tmp_path / "u.h5") as f:  # UTF-32 as UTF-8 strings, one per element
        assert [[x.decode() for x in row] for row in f["data"][()]] == [["ab", "c"], ["d", "éf"]]


def test_fortran_ordered_npy_gets_no_empty_layout(tmp_path):
    src = str(tmp_path / "f.npy")
    np.save(src, np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    r = run("layout", src, "-o", str(tmp_path / "f.dud"), "--json")
    assert r.returncode == 1 and not (tmp_path / "f.dud").exists()
    assert "/data: not stored as one C-ordered run" in json.loads(r.stdout)["error"]["message"]
