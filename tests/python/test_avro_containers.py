"""Avro containers as Java, Spark and Python write them (issue 37), against python3-avro both
ways: snappy blocks (with the spec's CRC-32), records of type "error", generic records
(their fields as attributes) and records holding ndarrays, converted to every format with
attributes and back to Avro with the source's schema."""
import json

import asdf
import avro.datafile
import avro.io
import avro.schema
import h5py
import numpy as np

import dudley
import pytest

from cli_runner import run

RECORD = {"type": "record", "name": "R", "fields": [
    {"name": "x", "type": "int"}, {"name": "name", "type": "string"},
    {"name": "v", "type": {"type": "array", "items": "double"}}]}
ROWS = [{"x": i, "name": "n%d" % i, "v": [i * 1.0, 2.0]} for i in range(5)]


def write(path, schema, rows, codec="null"):
    with open(path, "wb") as f:
        w = avro.datafile.DataFileWriter(f, avro.io.DatumWriter(),
                                         avro.schema.parse(json.dumps(schema)), codec=codec)
        for r in rows:
            w.append(r)
        w.close()


def read(path):
    with open(path, "rb") as f:
        r = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        return r.meta["avro.codec"].decode(), list(r)


@pytest.mark.parametrize("codec", ["null", "deflate", "snappy"])
def test_generic_records_round_trip_with_each_codec(tmp_path, codec):
    src, out = str(tmp_path / "src.avro"), str(tmp_path / "out.avro")
    write(src, RECORD, ROWS, codec)
    r = run("ls", "--json", src)
    assert r.returncode == 0, r.stderr
    for to_codec in ["null", "snappy", "deflate"]:
        r = run("convert", "--avro-codec", to_codec, src, out)
        assert r.returncode == 0, r.stderr
        assert read(out) == (to_codec, ROWS)


def test_damaged_snappy_block_is_named(tmp_path):
    src = str(tmp_path / "src.avro")
    write(src, RECORD, ROWS, "snappy")
    data = bytearray(open(src, "rb").read())
    data[-20] ^= 0xFF  # inside the last block, before its 16-byte sync marker
    open(src, "wb").write(data)
    r = run("dump", src, "/4")
    assert r.returncode == 1
    assert "snappy" in r.stderr


def test_error_records_are_read_and_written_back(tmp_path):
    schema = {"type": "error", "name": "E", "fields": [{"name": "code", "type": "int"}]}
    src, out = str(tmp_path / "err.avro"), str(tmp_path / "out.avro")
    write(src, schema, [{"code": 1}, {"code": 2}])
    r = run("convert", src, out)
    assert r.returncode == 0, r.stderr
    assert read(out)[1] == [{"code": 1}, {"code": 2}]


def test_generic_records_to_hdf5_zarr_and_asdf(tmp_path):
    src = str(tmp_path / "src.avro")
    write(src, RECORD, ROWS, "snappy")
    h5 = str(tmp_path / "out.h5")
    r = run("convert", src, h5)
    assert r.returncode == 0, r.stderr
    with h5py.File(h5) as f:
        assert sorted(f, key=int) == [str(i) for i in range(5)]
        for i, row in enumerate(ROWS):
            attrs = f[str(i)].attrs
            assert attrs["x"] == row["x"] and attrs["v"].tolist() == row["v"]
            name = attrs["name"]
            assert (name.decode() if isinstance(name, bytes) else name) == row["name"]
    a = str(tmp_path / "out.asdf")
    r = run("convert", src, a, "--json")
    assert r.returncode == 0, r.stderr
    assert any("'items'" in n for n in json.loads(r.stdout)["notes"])
    with asdf.open(a) as f:
        assert f.tree["items"] == ROWS
        assert "avro.schema" not in f.tree


def test_records_holding_ndarrays_convert_to_dudley_and_hdf5(tmp_path):
    nd = {"type": "record", "name": "ndarray", "logicalType": "ndarray", "fields": [
        {"name": "shape", "type": {"type": "array", "items": "int"}},
        {"name": "typestr", "type": "string"}, {"name": "data", "type": "bytes"},
        {"name": "version", "type": "int"}]}
    schema = {"type": "record", "name": "Frame",
              "fields": [{"name": "t", "type": "double"}, {"name": "arr", "type": nd}]}
    arrays = [np.arange(4, dtype="<f4") + i for i in range(3)]
    rows = [{"t": i * 0.5, "arr": {"shape": [4], "typestr": "<f4", "data": a.tobytes(),
                                   "version": 1}} for i, a in enumerate(arrays)]
    src = str(tmp_path / "frames.avro")
    with pytest.warns(Warning):  # python3-avro does not know the logical type; still writes
        write(src, schema, rows)
    out = str(tmp_path / "frames.bin")
    r = run("convert", src, out, "--json")
    assert r.returncode == 0, r.stderr  # the record's `t` is its group's #@ attribute
    assert json.loads(r.stdout)["lost"] == []
    f = dudley.open(out)
    assert [f["items/%d" % i].attrs["t"] for i in range(3)] == [0.0, 0.5, 1.0]
    r = run("dump", out, "/items/1/arr")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "/items/1/arr = [1.0,2.0,3.0,4.0]"
    h5 = str(tmp_path / "frames.h5")
    assert run("convert", src, h5).returncode == 0
    with h5py.File(h5) as f:
        for i, a in enumerate(arrays):
            assert f["%d/arr" % i][:].tolist() == a.tolist()
            assert f[str(i)].attrs["t"] == i * 0.5
