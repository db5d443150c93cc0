#!/usr/bin/env python3
"""Write-side options no other test ran, each checked by what it should change, read back
by the format's reference library: --deflate and --hdf5-shuffle (h5py), --compressor,
--level and --shuffle (python3-zarr), --block-bytes, --avro-codec and --avro-schema
(python3-avro, and the container's sync markers), --fsync (the fsync calls, by strace), --order (numpy's view of
the same bytes), `fmt -o`, `avro decode --to`.

Usage: write_options_test.py DUDLEY
"""
import json
import os
import subprocess
import sys
import tempfile

import avro.datafile
import avro.io
import h5py
import numpy as np
import zarr

from peer_checks import Checks

DUDLEY = sys.argv[1]
check = Checks()


def run(*args, ok=True):
    p = subprocess.run([DUDLEY, *args], capture_output=True, text=True)
    if ok and p.returncode != 0:
        check(False, f"dudley {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p


def main():
    tmp = tempfile.mkdtemp(prefix="write-options-")
    values = np.linspace(0, 1, 4096).reshape(64, 64)
    src = os.path.join(tmp, "src.h5")
    with h5py.File(src, "w") as h:
        h["v"] = values
        h["n"] = np.arange(1000, dtype="<i4")

    # HDF5: deflate at a level, shuffled, chunked; h5py reads the filters and the values.
    out = os.path.join(tmp, "d.h5")
    run("convert", "--deflate", "6", "--hdf5-shuffle", src, out)
    with h5py.File(out) as h:
        d = h["v"]
        check(d.compression == "gzip" and d.compression_opts == 6, f"--deflate 6: {d.compression} {d.compression_opts}")
        check(d.shuffle and d.chunks is not None, f"--hdf5-shuffle: shuffle {d.shuffle}, chunks {d.chunks}")
        check(np.array_equal(d[...], values), "deflated values as h5py reads them")
    plain = os.path.join(tmp, "p.h5")
    run("convert", "--deflate", "6", src, plain)
    with h5py.File(plain) as h:
        check(not h["v"].shuffle and h["v"].compression == "gzip", "--deflate alone: no shuffle")

    # Zarr v2: compressor, level and shuffle as .zarray says and python3-zarr reads.
    store = os.path.join(tmp, "z.zarr")
    run("convert", "--zarr-format", "2", "--compressor", "gzip", "--level", "9", "--shuffle",
        src, store)
    meta = json.load(open(os.path.join(store, "v", ".zarray")))
    check(meta["compressor"] == {"id": "gzip", "level": 9}, f"--compressor gzip --level 9: {meta['compressor']}")
    check([f["id"] for f in meta["filters"] or []] == ["shuffle"], f"--shuffle: {meta['filters']}")
    check(np.array_equal(zarr.open(store, mode="r")["v"][...], values), "zarr reads the values")

    # Avro: blocks of at most --block-bytes (many sync markers), a codec python3-avro reads.
    rec = os.path.join(tmp, "r.avro")
    run("convert", src, rec)
    small = os.path.join(tmp, "small.avro")
    run("convert", "--block-bytes", "1000", "--avro-codec", "deflate", rec, small)
    data = open(small, "rb").read()
    with open(small, "rb") as f:
        reader = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        sync, codec = reader.sync_marker, reader.codec
        records = list(reader)
    check(codec == "deflate", f"--avro-codec deflate: {codec}")
    # Each record (32 KiB, 4 KiB) is over 1000 bytes: one block each, after the header's marker.
    check(data.count(sync) - 1 == 2, f"--block-bytes 1000: {data.count(sync) - 1} blocks")
    check(len(records) == 2, f"python3-avro reads the records: {len(records)}")
    big = os.path.join(tmp, "big.avro")
    run("convert", rec, big)
    whole = open(big, "rb").read()
    check(whole.count(whole[-16:]) == 2, "by default one block holds them (header and one block)")

    # --avro-schema: the tree as one record of the user's schema; 0-d datasets and HDF5's
    # typed attributes are its plain fields, as python3-avro reads them.
    tree = os.path.join(tmp, "rec.h5")
    with h5py.File(tree, "w") as h:
        h["step"] = np.int64(7)
        h["temperature"] = 300.5
        h.attrs["name"] = "run-7"
        h.attrs["flags"] = np.array([1, 2, 3], dtype="<i2")
    schema = os.path.join(tmp, "run.avsc")
    json.dump({"type": "record", "name": "Run", "fields": [
        {"name": "step", "type": "long"}, {"name": "temperature", "type": "double"},
        {"name": "name", "type": "string"}, {"name": "flags", "type": {"type": "array", "items": "int"}},
        {"name": "note", "type": ["null", "string"]}]}, open(schema, "w"))
    out = os.path.join(tmp, "rec.avro")
    run("convert", "--avro-schema", schema, tree, out)
    with open(out, "rb") as f:
        got = list(avro.datafile.DataFileReader(f, avro.io.DatumReader()))
    check(got == [{"step": 7, "temperature": 300.5, "name": "run-7", "flags": [1, 2, 3], "note": None}],
          f"--avro-schema: the record as python3-avro reads it: {got}")
    json.dump({"type": "record", "name": "Run", "fields": [{"name": "step", "type": "string"}]},
              open(schema, "w"))
    p = run("convert", "--avro-schema", schema, tree, os.path.join(tmp, "bad.avro"), ok=False)
    check(p.returncode == 1 and "/step: an array does not fit the schema's string" in p.stderr
          and not os.path.exists(os.path.join(tmp, "bad.avro")),
          f"a field that does not fit: exit {p.returncode}: {p.stderr}")

    # --fsync: the data file is synced before it appears (strace sees fsync or fdatasync).
    synced = os.path.join(tmp, "s.npy")
    # LeakSanitizer cannot run under ptrace: off for these runs in the sanitizer build.
    traced = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    p = subprocess.run(["strace", "-f", "-e", "trace=fsync,fdatasync", DUDLEY, "convert",
                        "--fsync", src, synced, "/v"], capture_output=True, text=True,
                       env=traced)
    check(p.returncode == 0 and ("fsync(" in p.stderr or "fdatasync(" in p.stderr),
          f"--fsync syncs: {p.stderr[-300:]}")
    p = subprocess.run(["strace", "-f", "-e", "trace=fsync,fdatasync", DUDLEY, "convert",
                        src, os.path.join(tmp, "t.npy"), "/v"], capture_output=True, text=True,
                       env=traced)
    check("fsync(" not in p.stderr and "fdatasync(" not in p.stderr, "without --fsync, no sync")
    check(np.array_equal(np.load(synced), values), "the synced .npy as numpy reads it")

    # --order: a layout without a signature read either way, as numpy views the same bytes.
    raw = os.path.join(tmp, "o.bin")
    np.arange(4, dtype="<i4").tofile(raw)
    open(os.path.join(tmp, "o.dud"), "w").write("x = i4[4]\n")
    for order, dtype in (("little", "<i4"), ("big", ">i4")):
        p = run("dump", "--json", "--order", order, raw, "/x")
        got = json.loads(p.stdout)["root"]["members"]["x"]["data"] if p.returncode == 0 else None
        check(got == np.fromfile(raw, dtype=dtype).tolist(), f"--order {order}: {got}")

    # fmt -o writes the canonical text where stdout would have had it.
    messy = os.path.join(tmp, "m.dud")
    open(messy, "w").write("N:=i4   x=f8[N]\n")
    formatted = os.path.join(tmp, "f.dud")
    printed = run("fmt", messy).stdout
    run("fmt", messy, "-o", formatted)
    check(open(formatted).read() == printed and printed.strip(), "fmt -o writes what fmt prints")

    # avro decode --to: a raw datum written as .npy when the output has no extension.
    datum = os.path.join(tmp, "d.bin")
    run("avro", "encode", "--item", "/n", src, datum)
    if os.path.exists(datum):
        target = os.path.join(tmp, "decoded")
        run("avro", "decode", datum, target, "--to", "npy")
        check(np.array_equal(np.load(target), np.arange(1000, dtype="<i4")),
              "avro decode --to npy as numpy reads it")
    else:
        check(False, "avro encode wrote no datum to decode")

    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
