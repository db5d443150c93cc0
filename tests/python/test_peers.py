"""The Python module reading files the formats' reference libraries wrote (python3-asdf,
python3-avro, python3-zarr), every array compared with numpy's own values and indexing."""
import json
import random
import warnings

import numpy as np
import pytest

import dudley


def check_indexes(a, want, rng, n=60):
    """a[index] == want[index] for random basic indexes (and the whole)."""
    assert np.array_equal(a[...], want)
    assert a.shape == want.shape
    for _ in range(n):
        index = tuple(rng.choice([rng.randint(-d, d - 1), slice(None, None, rng.choice([1, -1, 2])),
                                  slice(rng.randint(0, d), None)]) if d else slice(None)
                      for d in want.shape)
        assert np.array_equal(a[index], want[index]), index


def test_asdf_written_by_python_asdf(tmp_path):
    import asdf
    rng = np.random.default_rng(1)
    tree = {
        "plain": rng.standard_normal((7, 5)),
        "big": np.arange(24, dtype=">i4").reshape(2, 3, 4),
        "z": rng.standard_normal((30, 4)).astype("<f4"),
        "meta": {"units": "m", "step": 3},
    }
    af = asdf.AsdfFile(tree)
    af.set_array_compression(tree["z"], "zlib")
    af.write_to(tmp_path / "p.asdf")
    f = dudley.open(str(tmp_path / "p.asdf"))
    r = random.Random(1)
    for name in ("plain", "big", "z"):
        check_indexes(f[name], tree[name], r)
    assert f["big"].dtype == np.dtype(">i4")
    assert f["z"].storage["codecs"]  # compressed by the peer, decoded by us


def test_avro_written_by_python_avro(tmp_path):
    import avro.datafile
    import avro.io
    import avro.schema
    warnings.simplefilter("ignore")  # python3-avro does not know logicalType ndarray
    schema = {"name": "ndarray", "type": "record", "logicalType": "ndarray",
              "fields": [{"name": "shape", "type": {"type": "array", "items": "int"}},
                         {"name": "typestr", "type": "string"},
                         {"name": "data", "type": "bytes"}, {"name": "version", "type": "int"}]}
    arrays = [np.arange(12.0).reshape(3, 4), np.arange(10, dtype=">i2"), np.ones((2, 2, 2), "<u1")]
    path = tmp_path / "p.avro"
    with avro.datafile.DataFileWriter(open(path, "wb"), avro.io.DatumWriter(),
                                      avro.schema.parse(json.dumps(schema)), codec="deflate") as w:
        for a in arrays:
            w.append({"shape": list(a.shape), "typestr": a.dtype.str, "data": a.tobytes(),
                      "version": 3})
    f = dudley.open(str(path))
    assert f["/"].is_list  # the file's records, in order
    items = list(f["/"])
    assert len(items) == 3 and f["/"][-1].dtype == np.dtype("u1")
    r = random.Random(2)
    for got, want in zip(items, arrays):
        check_indexes(got, want, r, n=20)


def test_zarr_v2_written_by_python_zarr(tmp_path):
    import zarr
    rng = np.random.default_rng(3)
    x = rng.standard_normal((40, 30)).astype(">f8")
    g = zarr.open_group(str(tmp_path / "p.zarr"), mode="w")
    g.create_dataset("x", data=x, chunks=(7, 11))
    g.create_dataset("sub/i", data=np.arange(50, dtype="<i2"), chunks=(8,), fill_value=-1)
    g["x"].attrs["units"] = "K"
    f = dudley.open(str(tmp_path / "p.zarr"))
    r = random.Random(3)
    check_indexes(f["x"], x, r)
    check_indexes(f["sub/i"], np.arange(50, dtype="<i2"), r)
    assert f["x"].read_unit == (7, 11) and dict(f["x"].attrs)["units"] == "K"
