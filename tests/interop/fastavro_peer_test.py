#!/usr/bin/env python3
"""Avro containers both ways against fastavro (PyPI, pinned in tests/requirements-peers.txt;
run with .venv/bin/python), for every codec of the Avro specification, xz and zstandard
included, which python3-avro 1.11 lacks:

1. fastavro writes containers of ndarray records (little- and big-endian, 0-d and empty
   arrays) and of generic flat records with each codec: `dudley dump --json` gives its values.
2. We write containers with each codec (--avro-codec) from a container fastavro wrote:
   fastavro reads every record's values, types and shapes back.
3. A damaged xz block is an error naming the file, exit 1.

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

        # 3. A damaged xz block: an error naming the file, exit 1.
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
