#!/usr/bin/python3
"""Convert and dump stream: peak memory stays under 64 MiB (plus one compressed block where
the input has one) whatever the array's size, counted as /usr/bin/time -v counts it (the
child's maximum resident set, pages of mapped inputs included).

A 320 MiB float64 array, five times the bound, goes through every pair of formats this build
writes, in files written by the peers (numpy's tofile, python3-asdf); each output is checked
against the array with the peers. Fixed and variable-length strings and structures stream
the same way (strings_and_structs). Usage: streaming_memory_test.py DUDLEY
"""
import os
import re
import subprocess
import sys
import tempfile

import asdf
import numpy as np

DUDLEY = os.path.abspath(sys.argv[1])
BOUND_KB = 64 * 1024
ROWS, COLS = 20480, 2048  # 320 MiB of float64
failures = []


def run(args, allowance_kb=0, stdout=subprocess.DEVNULL):
    """Runs DUDLEY ARGS under GNU time (forked from a small process, so the count is the
    command's own, not this interpreter's); returns its peak resident set in KiB."""
    what = " ".join(args)
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", "rss.txt", DUDLEY] + args,
                          stdout=stdout, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        failures.append(f"{what}: exit {proc.returncode}: {proc.stderr}")
        return 0
    rss = int(open("rss.txt").read().split()[-1])
    bound = BOUND_KB + allowance_kb
    verdict = "ok" if rss <= bound else "OVER"
    print(f"{verdict}: {what}: {rss / 1024:.0f} MiB (bound {bound // 1024} MiB)")
    if rss > bound:
        failures.append(f"{what}: {rss} KiB > {bound} KiB")
    return rss


def dudley_values(data, layout):
    """The array of a Dudley file we wrote, read by numpy at the address its layout gives."""
    text = open(layout).read()
    # The signature makes the file little-endian on this (little-endian) machine; a copied
    # array may be placed by a `!@ ADDRESS` line (at its source's offset within a page).
    assert "!DUDLEY := S1[8]" in text and f"x = f8[{ROWS}, {COLS}]" in text, text
    cursor = re.search(r"^!@ (\d+)$", text, re.M)
    offset = int(cursor.group(1)) if cursor else 8
    return np.fromfile(data, "<f8", count=ROWS * COLS, offset=offset).reshape(ROWS, COLS)


def check(name, got, expected):
    if not np.array_equal(got, expected):
        failures.append(f"{name}: values differ")
    else:
        print(f"ok: {name} holds the array")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        x = np.random.default_rng(1).standard_normal((ROWS, COLS))
        x.tofile("in.bin")
        open("in.dud", "w").write(f"x = <f8[{ROWS}, {COLS}]\n")
        asdf.AsdfFile({"x": x}).write_to("in.asdf")
        lz4_block = x.nbytes
        af = asdf.AsdfFile({"x": x})
        af.set_array_compression(x, "lz4")
        af.write_to("in_lz4.asdf")
        lz4_stored = os.path.getsize("in_lz4.asdf")
        # Eight zlib blocks of 16 MiB: each is decoded whole (the next one ahead, while the
        # one before is hashed and written), and its stored bytes are let go once decoded.
        parts = np.split(np.sin(np.linspace(0, 300, 8 << 21)), 8)
        parts = [part.copy() for part in parts]  # blocks of their own, not views of one
        af = asdf.AsdfFile({f"z{i}": part for i, part in enumerate(parts)})
        for part in parts:
            af.set_array_compression(part, "zlib")
        af.write_to("in_zlib.asdf")
        zlib_block = parts[0].nbytes
        zlib_stored = os.path.getsize("in_zlib.asdf") // 8

        run(["convert", "-q", "in.bin", "a.asdf"])
        with asdf.open("a.asdf") as f:
            check("dudley -> asdf", f["x"][()], x)
        run(["convert", "-q", "--compression", "lz4", "in.bin", "b.asdf"])
        with asdf.open("b.asdf") as f:
            check("dudley -> asdf (lz4)", f["x"][()], x)
        # zlib and bzip2 blocks of more than 32 MiB are encoded as they stream (one stream fed
        # piece by piece; zlib's pieces on every core).
        run(["convert", "-q", "--compression", "zlib", "in.bin", "bz.asdf"])
        with asdf.open("bz.asdf") as f:
            check("dudley -> asdf (zlib)", f["x"][()], x)
        y = x[:2560]  # 40 MiB: bzip2 is slow, and this is above the whole-block size
        y.tofile("small.bin")
        open("small.dud", "w").write(f"x = <f8[{y.shape[0]}, {COLS}]\n")
        run(["convert", "-q", "--compression", "bzp2", "small.bin", "b2.asdf"])
        with asdf.open("b2.asdf") as f:
            check("dudley -> asdf (bzp2)", f["x"][()], y)
        run(["convert", "-q", "in.asdf", "c.bin"])
        check("asdf -> dudley", dudley_values("c.bin", "c.dud"), x)
        run(["convert", "-q", "in.asdf", "d.asdf"])
        with asdf.open("d.asdf") as f:
            check("asdf -> asdf", f["x"][()], x)
        run(["convert", "-q", "--write-order", "big", "in.bin", "e.bin"])
        got = np.fromfile("e.bin", ">f8", count=ROWS * COLS, offset=8).reshape(ROWS, COLS)
        check("dudley -> dudley (swapped)", got, x)
        # The same bytes in the output: copied file to file by the kernel.
        run(["convert", "-q", "in.bin", "g.bin"])
        check("dudley -> dudley (copied)", dudley_values("g.bin", "g.dud"), x)
        run(["convert", "-q", "--without-checksums", "in.asdf", "h.asdf"])
        with asdf.open("h.asdf") as f:
            check("asdf -> asdf (copied, no checksums)", f["x"][()], x)
        # A compressed block is decoded whole: one block's memory besides the bound.
        run(["convert", "-q", "in_lz4.asdf", "f.bin"], allowance_kb=(lz4_block + lz4_stored) // 1024)
        check("asdf (lz4) -> dudley", dudley_values("f.bin", "f.dud"), x)
        run(["convert", "-q", "in_zlib.asdf", "z.bin"], allowance_kb=(zlib_block + zlib_stored) // 1024)
        got = np.fromfile("z.bin", "<f8", count=8 << 21, offset=8)
        check("asdf (8 zlib blocks) -> dudley", got, np.concatenate(parts))
        run(["convert", "-q", "in_zlib.asdf", "z.asdf"], allowance_kb=(zlib_block + zlib_stored) // 1024)
        with asdf.open("z.asdf") as f:
            check("asdf (8 zlib blocks) -> asdf", np.concatenate([f[f"z{i}"][()] for i in range(8)]),
                  np.concatenate(parts))

        # Zarr both ways: chunks read, encoded and written a batch at a time; read back chunk
        # by chunk into the output's pieces.
        run(["convert", "-q", "in.bin", "s.zarr"])
        run(["convert", "-q", "s.zarr", "s.bin"])
        check("dudley -> zarr -> dudley", dudley_values("s.bin", "s.dud"), x)
        run(["convert", "-q", "--shards", f"{ROWS // 4},{COLS}", "in.asdf", "sh.zarr"],
            allowance_kb=4 * ROWS // 4 * COLS * 8 // 1024)  # a shard is encoded whole
        run(["convert", "-q", "sh.zarr", "sh.asdf"])
        with asdf.open("sh.asdf") as f:
            check("asdf -> sharded zarr -> asdf", f["x"][()], x)

        # dump prints as it reads: a selection of 80 MiB, printed, in both formats.
        for name in ("in.asdf", "in.bin"):
            with open("dump.txt", "w") as out:
                run(["dump", name, "/x[::4]"], stdout=out)
            text = open("dump.txt").read()
            values = text.split("=", 1)[1].replace("[", " ").replace("]", " ").replace(",", " ").split()
            check(f"dump {name} /x[::4]", np.array(values, dtype=float).reshape(ROWS // 4, COLS), x[::4])
        avro_records()
        strings_and_structs()
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        sys.exit(1)
    print("streaming memory: all within the bound")


def strings_and_structs():
    """Fixed strings, variable-length strings and structures stream too: 160 MiB of |S8
    (20,971,520 strings, which as variable-length strings take 480 MiB in memory) and 320 MiB
    of structures, written by numpy, through every format that holds them; the outputs are
    checked with h5py, python3-zarr, numpy and python3-asdf at every 65,536th element."""
    import h5py
    import zarr
    n = 20 << 20
    s = np.empty(n, "S8")
    s[:] = b"abcdefgh"
    s[::3] = b"xy"
    s[::7] = b""
    s.tofile("s.bin")
    open("s.dud", "w").write(f"s = S1[{n}, 8]\n")
    every = slice(None, None, 65536)
    for out, options in [("s.h5", []), ("s2.zarr", ["--zarr-format", "2"]), ("s3.zarr", []),
                         ("s.npy", []), ("s.asdf", [])]:
        run(["convert", "-q", *options, "s.bin", out])
    with h5py.File("s.h5") as f:
        check("|S8 -> hdf5 (fixed strings)", f["s"][every], s[every])
    check("|S8 -> zarr v2 (|S8)", zarr.open("s2.zarr", "r")["s"][every], s[every])
    check("|S8 -> npy", np.load("s.npy", mmap_mode="r")[every], s[every])
    with asdf.open("s.asdf") as f:
        check("|S8 -> asdf (ascii)", f["s"][every], s[every])
    # Variable-length strings (the v3 store's) to HDF5 and Zarr v2: converted a piece at a
    # time, the strings included.
    run(["convert", "-q", "s3.zarr", "v.h5"])
    run(["convert", "-q", "--zarr-format", "2", "s3.zarr", "v2.zarr"])
    with h5py.File("v.h5") as f:
        check("strings (zarr v3) -> hdf5 (variable-length)",
              np.array(f["s"][every], dtype="S8"), s[every])
    check("strings (zarr v3) -> zarr v2 (vlen-utf8)",
          np.array(zarr.open("v2.zarr", "r")["s"][every], dtype="S8"), s[every])
    run(["convert", "-q", "--zarr-format", "2", "v.h5", "hv2.zarr"])  # HDF5's strings, read
    check("strings (hdf5) -> zarr v2 (vlen-utf8)",
          np.array(zarr.open("hv2.zarr", "r")["s"][every], dtype="S8"), s[every])

    st = np.zeros(ROWS * COLS // 2, [("a", "<i4"), ("b", "<f8"), ("s", "S4")])
    st["a"] = np.arange(len(st)) % 1000
    st["b"] = np.arange(len(st)) * 0.5
    st["s"][::5] = b"wxyz"
    st.tofile("t.bin")
    open("t.dud", "w").write("T := {\n  a = <i4 @ 0\n  b = <f8 @ 4\n  s = S1[4] @ 12\n}\n"
                             f"t = T[{len(st)}]\n")
    for out, options in [("t.h5", []), ("t2.zarr", ["--zarr-format", "2"]), ("t.npy", []),
                         ("t.asdf", [])]:
        run(["convert", "-q", *options, "t.bin", out])
    with h5py.File("t.h5") as f:
        check("structs -> hdf5", f["t"][every], st[every])
    check("structs -> zarr v2", zarr.open("t2.zarr", "r")["t"][every], st[every])
    check("structs -> npy", np.load("t.npy", mmap_mode="r")[every], st[every])
    with asdf.open("t.asdf") as f:
        check("structs -> asdf", f["t"][every], st[every])


def zigzag(v):
    z = (v << 1) ^ (v >> 63)
    out = bytearray()
    while z >= 0x80:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def avro_records():
    """A container of 1,000,000 ndarray records (shape [3] float64, blocks of 10,000), built
    here byte by byte: listed, one record dumped, converted Avro -> Avro; memory follows a
    block, not the 37 MB file."""
    n, per_block = 1000000, 10000
    schema = ('{"type": "record", "name": "ndarray", "fields": [{"name": "shape", "type": {"type": '
              '"array", "items": "int"}}, {"name": "typestr", "type": "string"}, {"name": "data", '
              '"type": "bytes"}, {"name": "version", "type": "int"}]}').encode()
    sync = bytes(range(16))
    head = b"Obj\x01" + zigzag(2)
    for key, value in ((b"avro.schema", schema), (b"avro.codec", b"null")):
        head += zigzag(len(key)) + key + zigzag(len(value)) + value
    head += zigzag(0) + sync
    prefix = zigzag(1) + zigzag(3) + zigzag(0) + zigzag(3) + b"<f8" + zigzag(24)
    with open("many.avro", "wb") as f:
        f.write(head)
        for b in range(n // per_block):
            block = b"".join(prefix + np.array([r, r + 0.5, -r], "<f8").tobytes() + zigzag(3)
                             for r in range(b * per_block, (b + 1) * per_block))
            f.write(zigzag(per_block) + zigzag(len(block)) + block + sync)
    run(["ls", "many.avro"])
    with open("dump.txt", "w") as out:
        run(["dump", "many.avro", "/999999"], stdout=out)
    text = open("dump.txt").read().strip()
    if text != "/999999 = [999999.0,999999.5,-999999.0]":
        failures.append(f"dump many.avro /999999: {text[:200]}")
    else:
        print("ok: dump many.avro /999999 reads the last record")
    run(["convert", "-q", "--avro-codec", "deflate", "many.avro", "many2.avro"])
    with open("dump.txt", "w") as out:
        run(["dump", "many2.avro", "/123456"], stdout=out)
    if open("dump.txt").read().strip() != "/123456 = [123456.0,123456.5,-123456.0]":
        failures.append("many.avro -> many2.avro: record 123456 differs")
    else:
        print("ok: avro -> avro (1,000,000 records) holds the records")


main()
