#!/usr/bin/env python3
"""Avro containers both ways against fastavro (PyPI, pinned in tests/requirements-peers.txt;
run with .venv/bin/python), for every codec of the Avro specification, xz and zstandard
included, which python3-avro 1.11 lacks:

1. fastavro writes containers of ndarray records (little- and big-endian, 0-d and empty
   arrays) and of generic flat records with each codec: `dudley dump --json` gives its values.
2. We write containers with each codec (--avro-codec) from a container fastavro wrote:
   fastavro reads every record's values, types and shapes back.
3. Flat records (numbers, booleans, enums) read as a table of structures, converted to
   HDF5, Zarr v2, .npy and ASDF (read by h5py, python3-zarr, numpy, python-asdf) and back to
   Avro (read by fastavro, record for record).
4. A damaged xz block is an error naming the file, exit 1.

Usage: fastavro_peer_test.py DUDLEY
"""
import json
import os
import subprocess
import sys
import tempfile

import fastavro
import numpy as np

DUDLEY = os.path.abspath(sys.argv[1])
CODECS = ["null", "deflate", "bzip2", "snappy", "zstandard", "xz"]
NDARRAY = {"type": "record", "name": "ndarray", "logicalType": "ndarray", "fields": [
    {"name": "shape", "type": {"type": "array", "items": "int"}},
    {"name": "typestr", "type": "string"}, {"name": "data", "type": "bytes"},
    {"name": "version", "type": "int"}]}
FLAT = {"type": "record", "name": "reading", "fields": [
    {"name": "station", "type": "string"}, {"name": "t", "type": "double"},
    {"name": "n", "type": "long"}, {"name": "ok", "type": "boolean"}]}
failures = []
checked = 0


def check(name, ok, detail=""):
    global checked
    checked += 1
    if not ok:
        failures.append(f"{name}: {detail}"[:2000])


def run(*args):
    return subprocess.run([DUDLEY, *args], capture_output=True, text=True)


def arrays():
    return [np.linspace(-1, 1, 6).reshape(2, 3), np.arange(5, dtype=">i4"), np.array(2.5, "<f4"),
            np.zeros((0, 3), "<u2"), (np.arange(4) % 2 == 0)]


def records(values):
    return [{"shape": list(a.shape), "typestr": a.dtype.str, "data": a.tobytes(), "version": 3}
            for a in values]


def readings():
    return [{"station": s, "t": t, "n": n, "ok": n % 2 == 0}
            for s, t, n in [("a", 1.5, 1), ("bé", -2.0, 2), ("", 1e300, 3)]]


TABLE = {"type": "record", "name": "reading", "fields": [
    {"name": "t", "type": "double"}, {"name": "n", "type": "long"},
    {"name": "ok", "type": "boolean"}, {"name": "f", "type": "float"},
    {"name": "i", "type": "int"},
    {"name": "k", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C"]}}]}


def table(tmp):
    import asdf
    import h5py
    import zarr
    rows = [{"t": r * 0.5, "n": r * 10**10 - 7, "ok": r % 2 == 0, "f": r / 4, "i": -r,
             "k": "ABC"[r % 3]} for r in range(50000)]
    want = np.array([(r["t"], r["n"], r["ok"], r["f"], r["i"], "ABC".index(r["k"]))
                     for r in rows], dtype=[("t", "<f8"), ("n", "<i8"), ("ok", "?"),
                                            ("f", "<f4"), ("i", "<i4"), ("k", "<i4")])
    src = f"{tmp}/flat.avro"
    with open(src, "wb") as f:
        fastavro.writer(f, TABLE, rows, codec="deflate", sync_interval=4096)
    p = run("ls", src, "--json")
    node = json.loads(p.stdout)["root"]["members"]["records"] if p.returncode == 0 else {}
    check("flat records are the table /records", node.get("shape") == [len(rows)], p.stdout[:300])
    p = run("dump", src, "/records[49999:2:-16666]", "--json")
    got = json.loads(p.stdout)["root"]["members"]["records"]["selections"] \
        if p.returncode == 0 else {}
    sel = next(iter(got.values()))["data"] if got else []
    expected = [(t, n, k) for t, n, _, _, _, k in want[49999:2:-16666].tolist()]
    check("a selection of the table as numpy's",
          len(sel) == 3 and [(g["t"], g["n"], g["k"]) for g in sel] == expected, str(sel))
    for out, options in [("flat.h5", []), ("flat.zarr", ["--zarr-format", "2"]),
                         ("flat.npy", []), ("flat.asdf", []), ("flat2.avro", [])]:
        p = run("convert", "-q", *options, src, f"{tmp}/{out}")
        check(f"flat records -> {out}: exit 0", p.returncode == 0, p.stderr)
    with h5py.File(f"{tmp}/flat.h5") as f:
        d = f["records"]
        check("h5py reads the table", all((d[n] == want[n]).all() for n in want.dtype.names))
        check("... its enum field an HDF5 enum",
              h5py.check_enum_dtype(d.dtype["k"]) == {"A": 0, "B": 1, "C": 2})
    z = zarr.open(f"{tmp}/flat.zarr", "r")["records"][:]
    check("python3-zarr reads the table", all((z[n] == want[n]).all() for n in want.dtype.names))
    a = np.load(f"{tmp}/flat.npy")
    check("numpy reads the table", all((a[n] == want[n]).all() for n in want.dtype.names))
    with asdf.open(f"{tmp}/flat.asdf") as f:
        x = f["records"][()]
        check("python-asdf reads the table",
              all((x[n] == want[n]).all() for n in want.dtype.names))
    with open(f"{tmp}/flat2.avro", "rb") as f:
        back = list(fastavro.reader(f))
    check("fastavro reads the records back", back == rows, str(back[:2]))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for codec in CODECS:
            # 1. fastavro's containers, read by us.
            path = f"{tmp}/fa_{codec}.avro"
            with open(path, "wb") as f:
                fastavro.writer(f, NDARRAY, records(arrays()), codec=codec, sync_interval=64)
            p = run("dump", path, "--json")
            check(f"dump fastavro's {codec} ndarray records: exit 0", p.returncode == 0, p.stderr)
            if p.returncode == 0:
                items = json.loads(p.stdout)["root"]["items"]
                for k, want in enumerate(arrays()):
                    got = items[k]["data"]
                    check(f"fastavro {codec} record {k}",
                          np.array_equal(np.array(got, dtype=want.dtype).reshape(want.shape), want),
                          f"{got} != {want.tolist()}")
            flat = f"{tmp}/fa_flat_{codec}.avro"
            with open(flat, "wb") as f:
                fastavro.writer(f, FLAT, readings(), codec=codec)
            p = run("dump", flat, "--json")
            check(f"dump fastavro's {codec} generic records: exit 0", p.returncode == 0, p.stderr)
            if p.returncode == 0:
                items = json.loads(p.stdout)["root"]["items"]
                got = [it.get("attributes", {}) for it in items]
                check(f"fastavro {codec} generic records' fields",
                      [{k: g.get(k) for k in ("station", "t", "n", "ok")} for g in got]
                      == readings(), str(got))

            # 2. Ours with each codec, read by fastavro.
            out = f"{tmp}/ours_{codec}.avro"
            p = run("convert", "-q", "--avro-codec", codec, path, out)
            check(f"write {codec}", p.returncode == 0, p.stderr)
            if p.returncode == 0:
                with open(out, "rb") as f:
                    r = fastavro.reader(f)
                    check(f"our {codec} container's codec", r.codec == codec, r.codec)
                    got = list(r)
                # Values and types as written; the byte order is ours (native), as the
                # typestr says.
                decoded = [np.frombuffer(g["data"], np.dtype(g["typestr"])).reshape(g["shape"])
                           for g in got]
                check(f"fastavro reads our {codec} records",
                      len(decoded) == len(arrays()) and all(
                          d.dtype.kind == w.dtype.kind and d.dtype.itemsize == w.dtype.itemsize
                          and d.shape == w.shape and np.array_equal(d, w)
                          for d, w in zip(decoded, arrays())), str(got)[:300])

        # 3. Flat records (numbers, booleans, an enum) are a table: one array of structures,
        # a row per record, read by a selection, converted to HDF5 (a compound dataset with
        # an HDF5 enum), Zarr v2, .npy and ASDF, and back to Avro record for record.
        table(tmp)

        # 4. A damaged xz block: an error naming the file, exit 1.
        with open(f"{tmp}/fa_xz.avro", "rb") as f:
            data = bytearray(f.read())
        middle = len(data) // 2
        data[middle:middle + 8] = b"\xff" * 8
        bad = f"{tmp}/bad_xz.avro"
        with open(bad, "wb") as f:
            f.write(data)
        p = run("dump", bad)
        check("a damaged xz block: exit 1", p.returncode == 1, f"{p.returncode} {p.stderr}")
        check("... naming the file", "bad_xz.avro" in p.stderr and "error" in p.stderr, p.stderr)

    for f in failures:
        print("FAIL:", f)
    print(f"fastavro peer: {checked - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
