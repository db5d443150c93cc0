#!/usr/bin/python3
"""Zarr v3 both ways against peers, in `make test`.

1. zarrita (npm, under node) writes stores of every data type it has, with each codec set it
   writes (bytes little/big, zstd, blosc, transpose), some chunks never written; `dudley dump
   --json` must give the values zarrita was given (the same formula, computed here), the
   fill value where chunks are missing, the dtype, attributes and dimension names.
2. Stores we write (from an ASDF file python3-asdf writes, every data type, each compressor,
   checksums, edge chunks) read by zarrita, and converted back to ASDF for python3-asdf.
3. Zarr v2 stores both ways with python3-zarr 2: every numeric type, each compressor it
   and we share (zlib, gzip, bz2, zstd, blosc), order C and F, both separators, missing
   chunks, xarray's _ARRAY_DIMENSIONS; and stores we write with --zarr-format 2.
   numcodecs' Shuffle filter both ways (v2; v3 "numcodecs.shuffle" built here).
4. Features no installed peer writes (float16, complex, r<N>, gzip, crc32c, sharding with
   the index at either end, nested, missing inner chunks, 0-d arrays, v2 chunk keys) as
   stores built here byte by byte from the spec, with numpy, gzip, numcodecs and crc32c;
   also codecs around sharding_indexed (a transpose before, gzip and crc32c after).

Usage: zarr_peer_test.py DUDLEY
"""
import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile

import crc32c
import numpy as np

DUDLEY = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
failures = []
checked = 0

TYPES = {"bool": "?", "int8": "i1", "int16": "i2", "int32": "i4", "int64": "i8", "uint8": "u1",
         "uint16": "u2", "uint32": "u4", "uint64": "u8", "float32": "f4", "float64": "f8"}


def value(dtype, i, j):
    """The formula of zarrita_peer.mjs."""
    n = (i * 13 + j * 7) % 100
    if dtype == "bool":
        return n % 3 == 0
    if dtype.startswith("float"):
        return n / 8 - 3.5
    if dtype.startswith("uint"):
        return n * 10**12 if dtype == "uint64" else n
    return (n - 50) * 10**12 if dtype == "int64" else n - 50


def fill(dtype):
    if dtype == "bool":
        return True
    if dtype.startswith("float"):
        return float("nan")
    return -7 if dtype.startswith("int") else 9


def dump(store, path):
    """The array at `path` of `store` as dudley dump --json gives it, with its node."""
    proc = subprocess.run([DUDLEY, "dump", "--json", store, path], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"dudley dump {store} {path}: exit {proc.returncode}: {proc.stderr}")
    doc = json.loads(proc.stdout)
    node = doc["root"]
    for part in path.split("[")[0].strip("/").split("/"):
        if part:
            node = node["members"][part]
    if "selections" in node:  # a path with a selection
        return node, next(iter(node["selections"].values()))["data"]
    return node, node["data"]


def same(a, b):
    a = np.asarray(a, dtype=object).ravel()
    b = np.asarray(b, dtype=object).ravel()
    if a.shape != b.shape:
        return False
    for x, y in zip(a, b):
        if isinstance(y, float) and np.isnan(y):
            if not (x == "NaN" or (isinstance(x, float) and np.isnan(x))):
                return False
        elif x != y:
            return False
    return True


def check(name, ok, detail=""):
    global checked
    checked += 1
    if not ok:
        failures.append(f"{name}: {detail}")


def zarrita_stores(tmp):
    subprocess.run(["node", os.path.join(HERE, "zarrita_peer.mjs"), "write", tmp], check=True)
    for store in sorted(os.listdir(tmp)):
        codecs, dtype = store[:-len(".zarr")].split("_", 1)
        path = os.path.join(tmp, store)
        expected = [[fill(dtype) if 4 <= i < 8 and j >= 5 else value(dtype, i, j)
                     for j in range(7)] for i in range(10)]
        try:
            node, data = dump(path, "/x")
        except RuntimeError as e:
            check(store, False, str(e))
            continue
        check(f"{store} values", same(data, expected), f"{data} != {expected}")
        order = ">" if codecs in ("big", "transpose") else "<"
        want = np.dtype(order + TYPES[dtype]).str if dtype not in ("bool", "int8", "uint8") \
            else np.dtype(TYPES[dtype]).str
        check(f"{store} dtype", node["dtype"] == want, f"{node['dtype']} != {want}")
        check(f"{store} attributes", node["attributes"] == {"units": "m", "dimension_names": ["y", "x"]},
              str(node["attributes"]))
        # A strided, reversed selection against numpy's own indexing of the same array.
        _, part = dump(path, "/x[::-3, 1::2]")
        full = np.array(expected, dtype=object)
        check(f"{store} selection", same(part, full[::-3, 1::2].tolist()), f"{part}")


# --- stores built here, byte by byte as the spec lays them out -------------------------------

def write_json(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f)


def array_meta(shape, chunks, data_type, codecs, fill_value, keys=None):
    return {"zarr_format": 3, "node_type": "array", "shape": shape, "data_type": data_type,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
            "chunk_key_encoding": keys or {"name": "default"},
            "fill_value": fill_value, "codecs": codecs}


def put(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def with_crc(data):
    return data + struct.pack("<I", crc32c.crc32c(data))


def shard_bytes(inner_chunks, per_shard, index_at_end, encode):
    """A shard of inner chunks (C order of the inner grid; None = never written): their bytes
    one after the other, then (or before) the index of (offset, nbytes) uint64 pairs, little
    endian, with its CRC-32C."""
    n = int(np.prod(per_shard))
    index_size = 16 * n + 4
    body = b""
    entries = []
    base = 0 if index_at_end else index_size
    for chunk in inner_chunks:
        if chunk is None:
            entries += [2**64 - 1, 2**64 - 1]
            continue
        encoded = encode(chunk)
        entries += [base + len(body), len(encoded)]
        body += encoded
    index = with_crc(struct.pack(f"<{2 * n}Q", *entries))
    return body + index if index_at_end else index + body


def hand_built(tmp):
    stores = {}
    # float16, complex64 (big endian: each half swapped), complex128, r24; gzip and crc32c.
    cases = [
        ("float16", "<f2", np.arange(12, dtype="<f2").reshape(3, 4) / 3, "0x7e00",  # prints "NaN"
         [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}]),
        ("complex64", ">c8", (np.arange(12) + 1j * np.arange(12)[::-1]).astype(">c8").reshape(3, 4),
         ["-Infinity", "NaN"],
         [{"name": "bytes", "configuration": {"endian": "big"}}, {"name": "crc32c"}]),
        ("complex128", "<c16", (np.arange(12) * 0.5 - 1j).astype("<c16").reshape(3, 4), [0.5, -0.0],
         [{"name": "bytes", "configuration": {"endian": "little"}}]),
    ]
    for data_type, np_type, array, fill_value, codecs in cases:
        root = os.path.join(tmp, f"hand_{data_type}.zarr")
        write_json(f"{root}/zarr.json", array_meta([3, 4], [2, 3], data_type, codecs, fill_value))
        for ci in range(2):
            for cj in range(2):
                if (ci, cj) == (1, 1):
                    continue  # missing: the fill value
                chunk = np.zeros((2, 3), np_type)
                part = array[ci * 2:ci * 2 + 2, cj * 3:cj * 3 + 3]
                chunk[:part.shape[0], :part.shape[1]] = part
                raw = chunk.tobytes()
                if any(c["name"] == "gzip" for c in codecs):
                    raw = gzip.compress(raw)
                if any(c["name"] == "crc32c" for c in codecs):
                    raw = with_crc(raw)
                put(f"{root}/c/{ci}/{cj}", raw)
        expected = array.astype(object)
        stores[root] = (expected, fill_value, data_type)
    for root, (expected, fill_value, data_type) in stores.items():
        node, data = dump(root, "/")
        # Values where chunks exist; the missing chunk (rows 2.., columns 3..) is the fill.
        if data_type == "float16":
            # The printed values read back as float16 give the stored halves exactly.
            got = np.array([[float(v) for v in row] for row in data]).astype("<f2")
            want = expected.astype("<f2")
            want[2, 3] = np.nan
            check(f"{root} values", np.array_equal(got, want, equal_nan=True), f"{data}")
        else:
            for i in range(3):
                for j in range(4):
                    v = data[i][j]
                    if i >= 2 and j >= 3:
                        continue
                    c = complex(expected[i][j])
                    check(f"{root} [{i},{j}]", complex(*v) == c if isinstance(v, list) else False, f"{v} != {c}")
        printed = "NaN" if fill_value == "0x7e00" else fill_value  # the canonical NaN's name
        check(f"{root} fill", json.dumps(node["storage"]["fill_value"]) == json.dumps(printed),
              f"{node['storage']['fill_value']} != {printed}")

    # The transpose example of the notes: order [1, 0], a 2x3 chunk holding 0..5 is stored
    # as bytes 0,3,1,4,2,5.
    root = os.path.join(tmp, "hand_transpose.zarr")
    write_json(f"{root}/zarr.json", array_meta(
        [2, 3], [2, 3], "uint8",
        [{"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "bytes"}], 0))
    put(f"{root}/c/0/0", bytes([0, 3, 1, 4, 2, 5]))
    _, data = dump(root, "/")
    check("transpose example", data == [[0, 1, 2], [3, 4, 5]], str(data))

    # r24 raw bits: three bytes per element, passed through.
    root = os.path.join(tmp, "hand_r24.zarr")
    write_json(f"{root}/zarr.json", array_meta([4], [4], "r24", [{"name": "bytes"}], [1, 2, 3]))
    put(f"{root}/c/0", bytes(range(12)))
    proc = subprocess.run([DUDLEY, "dump", "--json", root], capture_output=True, text=True)
    check("r24 reads", proc.returncode == 0, proc.stderr)

    # 0-d arrays and v2 chunk keys: key "c" and "0".
    for keys, key in (({"name": "default"}, "c"), ({"name": "v2"}, "0")):
        root = os.path.join(tmp, f"hand_scalar_{key}.zarr")
        write_json(f"{root}/zarr.json", array_meta(
            [], [], "int32", [{"name": "bytes", "configuration": {"endian": "little"}}], 0, keys))
        put(f"{root}/{key}", struct.pack("<i", -42))
        _, data = dump(root, "/")
        check(f"0-d array, key {key}", data == -42, str(data))

    # Sharding: a 8x6 array in shards of 4x6, inner chunks 2x3, index at the end or start,
    # gzip inside, one inner chunk never written; and sharding nested in sharding.
    array = np.arange(48, dtype="<i2").reshape(8, 6)
    for at_end in (True, False):
        root = os.path.join(tmp, f"hand_shard_{'end' if at_end else 'start'}.zarr")
        inner_codecs = [{"name": "bytes", "configuration": {"endian": "little"}},
                        {"name": "gzip", "configuration": {"level": 5}}]
        write_json(f"{root}/zarr.json", array_meta([8, 6], [4, 6], "int16", [
            {"name": "sharding_indexed", "configuration": {
                "chunk_shape": [2, 3], "codecs": inner_codecs,
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
                "index_location": "end" if at_end else "start"}}], -1))
        for s in range(2):
            inner = []
            for a in range(2):
                for b in range(2):
                    block = array[s * 4 + a * 2:s * 4 + a * 2 + 2, b * 3:b * 3 + 3]
                    inner.append(None if (s, a, b) == (1, 1, 0) else block)
            put(f"{root}/c/{s}/0", shard_bytes(inner, [2, 2], at_end,
                                                lambda c: gzip.compress(np.ascontiguousarray(c).tobytes())))
        _, data = dump(root, "/")
        want = array.astype(int).tolist()
        for i in range(6, 8):
            for j in range(0, 3):
                want[i][j] = -1
        check(f"{root} values", data == want, f"{data} != {want}")
        _, one = dump(root, "/[5, 4]")
        check(f"{root} one element", one == 34, str(one))
        # A damaged index fails naming the shard.
        with open(f"{root}/c/0/0", "r+b") as f:
            f.seek(-1 if at_end else 0, 2 if at_end else 0)
            last = f.read(1)
            f.seek(-1 if at_end else 0, 2 if at_end else 0)
            f.write(bytes([last[0] ^ 0xFF]))
        proc = subprocess.run([DUDLEY, "dump", root], capture_output=True, text=True)
        check(f"{root} damaged index", proc.returncode != 0 and "c/0/0" in proc.stderr, proc.stderr)

    root = os.path.join(tmp, "hand_shard_nested.zarr")
    inner_pipeline = [{"name": "bytes", "configuration": {"endian": "little"}}]
    write_json(f"{root}/zarr.json", array_meta([8, 6], [8, 6], "int16", [
        {"name": "sharding_indexed", "configuration": {
            "chunk_shape": [4, 6],
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [2, 3], "codecs": inner_pipeline}}]}}], 0))

    def inner_shard(rows):
        blocks = [array[rows + a * 2:rows + a * 2 + 2, b * 3:b * 3 + 3] for a in range(2) for b in range(2)]
        return shard_bytes(blocks, [2, 2], True, lambda c: np.ascontiguousarray(c).tobytes())
    put(f"{root}/c/0/0", shard_bytes([0, 4], [2, 1], True, inner_shard))
    _, data = dump(root, "/")
    check("nested sharding values", data == array.astype(int).tolist(), str(data))

    # Codecs around sharding_indexed: a transpose before it, gzip and crc32c after it (the
    # index is inside the compressed shard), big-endian inner chunks, one never written.
    root = os.path.join(tmp, "hand_shard_around.zarr")
    x = (np.arange(48, dtype=">i2").reshape(6, 8) - 20) * 3
    write_json(f"{root}/zarr.json", array_meta([6, 8], [6, 8], "int16", [
        {"name": "transpose", "configuration": {"order": [1, 0]}},
        {"name": "sharding_indexed", "configuration": {
            "chunk_shape": [4, 3],  # of the transposed 8 x 6 chunk
            "codecs": [{"name": "bytes", "configuration": {"endian": "big"}},
                       {"name": "gzip", "configuration": {"level": 1}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}},
        {"name": "gzip", "configuration": {"level": 1}}, {"name": "crc32c"}], -5))
    t = x.T
    blocks = [None if (a, b) == (1, 0) else t[a * 4:a * 4 + 4, b * 3:b * 3 + 3] for a in range(2) for b in range(2)]
    shard = shard_bytes(blocks, [2, 2], True, lambda c: gzip.compress(np.ascontiguousarray(c).astype(">i2").tobytes()))
    put(f"{root}/c/0/0", with_crc(gzip.compress(shard)))
    want = x.astype(int)
    want[0:3, 4:8] = -5  # transposed rows 4..7, columns 0..2: the inner chunk never written
    _, data = dump(root, "/")
    check("codecs around sharding: values", data == want.tolist(), f"{data} != {want.tolist()}")
    _, part = dump(root, "/[1:5, ::3]")
    check("codecs around sharding: a selection", part == want[1:5, ::3].tolist(), str(part))
    listing = subprocess.run([DUDLEY, "ls", root], capture_output=True, text=True).stdout
    check("codecs around sharding: ls names them", ">i2 [6, 8] sharded [6, 8] (transpose+gzip+crc32c) of "
          "[4, 3] bytes+gzip" in listing, listing)
    with open(f"{root}/c/0/0", "r+b") as f:
        f.seek(10)
        f.write(b"\xff")
    proc = subprocess.run([DUDLEY, "dump", root], capture_output=True, text=True)
    check("codecs around sharding: a damaged shard fails naming it",
          proc.returncode == 1 and "c/0/0" in proc.stderr and "crc32c" in proc.stderr.lower(), proc.stderr)

    # Nested: the outer index read apart, each inner shard with a CRC-32C around it.
    root = os.path.join(tmp, "hand_shard_nested_around.zarr")
    write_json(f"{root}/zarr.json", array_meta([8, 6], [8, 6], "int16", [
        {"name": "sharding_indexed", "configuration": {
            "chunk_shape": [4, 6],
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [2, 3], "codecs": inner_pipeline}}, {"name": "crc32c"}]}}], 0))
    put(f"{root}/c/0/0", shard_bytes([0, 4], [2, 1], True, lambda rows: with_crc(inner_shard(rows))))
    _, data = dump(root, "/")
    check("nested sharding, crc32c around the inner: values", data == array.astype(int).tolist(), str(data))
    _, one = dump(root, "/[5, 4]")
    check("nested sharding, crc32c around the inner: one element", one == 34, str(one))


def ours_read_by_peers(tmp):
    import asdf
    i, j = np.meshgrid(np.arange(10), np.arange(7), indexing="ij")
    n = (i * 13 + j * 7) % 100
    arrays = {dtype: np.array([[value(dtype, a, b) for b in range(7)] for a in range(10)],
                              dtype=TYPES[dtype]) for dtype in TYPES}
    arrays["big_f8"] = (n / 8 - 3.5).astype(">f8")  # a big-endian source: stored little
    extra = {"complex128": (n + 1j * n[::-1]).astype("<c16")}
    src = f"{tmp}/src.asdf"
    asdf.AsdfFile({**arrays, **extra, "meta": {"units": "m"}}).write_to(src)
    runs = [["--compressor", "zstd"], ["--compressor", "gzip", "--chunks", "3,4"],
            ["--compressor", "blosc", "--crc32c"], ["--compressor", "none", "--chunks", "10,7"],
            ["--shards", "6,4", "--chunks", "3,2"],
            ["--compressor", "blosc", "--crc32c", "--shards", "20,7", "--chunks", "5,7"]]
    for k, options in enumerate(runs):
        store = f"{tmp}/ours_{k}.zarr"
        proc = subprocess.run([DUDLEY, "convert", "-q", *options, src, store], capture_output=True, text=True)
        if proc.returncode != 0:
            check(f"convert {options}", False, proc.stderr)
            continue
        names = list(arrays)
        out = subprocess.run(["node", os.path.join(HERE, "zarrita_peer.mjs"), "read", store, *names],
                             capture_output=True, text=True)
        if out.returncode != 0:
            check(f"zarrita reads {store}", False, out.stderr)
            continue
        got = json.loads(out.stdout)["arrays"]
        for name in names:
            want = arrays[name]
            values = got[name]["values"]
            if want.dtype.kind in "iu" and want.dtype.itemsize == 8:
                values = [int(v) for v in values]
            ok = got[name]["shape"] == list(want.shape) and \
                np.array_equal(np.array(values, dtype=want.dtype.newbyteorder("=")).reshape(want.shape), want)
            check(f"zarrita reads {name} of {options}", ok, f"{values[:8]}")
        # And back to ASDF, for the reference library.
        back = f"{tmp}/back_{k}.asdf"
        proc = subprocess.run([DUDLEY, "convert", "-q", store, back], capture_output=True, text=True)
        if proc.returncode != 0:
            check(f"convert {store} to ASDF", False, proc.stderr)
            continue
        with asdf.open(back) as f:
            for name, want in {**arrays, **extra}.items():
                check(f"asdf reads {name} of {options}", np.array_equal(f[name][()], want), name)
            check(f"attributes of {options}", f["meta"]["units"] == "m", str(f.tree.get("meta")))


def v2_both_ways(tmp):
    import numcodecs
    import zarr
    compressors = {"zlib": numcodecs.Zlib(level=3), "gzip": numcodecs.GZip(level=5),
                   "bz2": numcodecs.BZ2(level=5), "zstd": numcodecs.Zstd(level=3),
                   "blosc": numcodecs.Blosc("lz4", 5, numcodecs.Blosc.SHUFFLE),
                   "lz4": numcodecs.LZ4(acceleration=2), "none": None}
    types = ["|b1", "|i1", "<i2", ">i4", "<i8", "|u1", ">u2", "<u4", "<u8", "<f2", ">f4",
             "<f8", "<c8", ">c16"]
    for k, (cname, comp) in enumerate(compressors.items()):
        for t, typestr in enumerate(types):
            order = "F" if (k + t) % 2 else "C"
            sep = "/" if t % 3 == 0 else "."
            root = f"{tmp}/v2_{cname}_{t}.zarr"
            g = zarr.open_group(zarr.storage.DirectoryStore(root, dimension_separator=sep), mode="w")
            g.attrs["title"] = "v2"
            dt = np.dtype(typestr)
            i, j = np.meshgrid(np.arange(9), np.arange(7), indexing="ij")
            n = (i * 13 + j * 7) % 100
            if dt.kind == "b":
                a = n % 3 == 0
            elif dt.kind == "c":
                a = (n + 1j * (n - 50)).astype(dt)
            elif dt.kind == "f":
                a = (n / 8 - 3.5).astype(dt)
            else:
                a = (n if dt.kind == "u" else n - 50).astype(dt)
            fill = True if dt.kind == "b" else (np.nan if dt.kind in "fc" else 3)
            z = g.create_dataset("x", shape=a.shape, chunks=(4, 3), dtype=dt, compressor=comp,
                                 order=order, fill_value=fill)
            z.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
            z[:4, :] = a[:4, :]
            z[4:, :3] = a[4:, :3]  # rows 4.. of columns 3.. never written: fill
            want = a.astype(object)
            want[4:, 3:] = fill
            try:
                node, data = dump(root, "/x")
            except RuntimeError as e:
                check(f"read v2 {cname} {typestr}", False, str(e))
                continue
            if dt.kind == "c":
                got = np.array([[complex(float(v[0]), float(v[1])) for v in row] for row in data])
                ok = np.array_equal(got, want.astype(complex), equal_nan=True)
            elif dt == np.dtype("<f2"):
                ok = np.array_equal(np.array([[float(v) for v in row] for row in data]).astype("<f2"),
                                    want.astype("<f2"), equal_nan=True)
            else:
                ok = same(data, want.tolist())
            check(f"read v2 {cname} {typestr} order {order} sep {sep}", ok, f"{data}")
            check(f"v2 dimension names {cname} {typestr}",
                  node["attributes"].get("dimension_names") == ["y", "x"], str(node["attributes"]))
    # Ours, read by python3-zarr.
    import asdf
    arrays = {"f8": np.linspace(-1, 1, 63).reshape(9, 7), "i2": np.arange(63, dtype="<i2").reshape(9, 7),
              "b": (np.arange(63) % 3 == 0).reshape(9, 7), "c": (np.arange(63) * 1j).astype("<c8").reshape(9, 7),
              "u8": (np.arange(63, dtype="<u8") * 2**40).reshape(9, 7)}
    src = f"{tmp}/v2src.asdf"
    asdf.AsdfFile(arrays).write_to(src)
    for cname in ("zstd", "gzip", "blosc", "lz4", "none"):
        store = f"{tmp}/ours_v2_{cname}.zarr"
        proc = subprocess.run([DUDLEY, "convert", "-q", "--zarr-format", "2", "--compressor", cname,
                               "--chunks", "4,3", src, store], capture_output=True, text=True)
        if proc.returncode != 0:
            check(f"write v2 {cname}", False, proc.stderr)
            continue
        g = zarr.open_group(store, mode="r")
        for name, want in arrays.items():
            check(f"python3-zarr reads our v2 {cname} /{name}", np.array_equal(g[name][:], want),
                  str(g[name][:]))
        # Our consolidated metadata, as python3-zarr reads it (the store's .zmetadata only).
        c = zarr.open_consolidated(store, mode="r")
        check(f"python3-zarr opens our v2 {cname} consolidated",
              sorted(c.array_keys()) == sorted(arrays) and
              all(np.array_equal(c[name][:], want) for name, want in arrays.items()),
              str(sorted(c.array_keys())))


def our_shards_match_the_spec(tmp):
    """Shards we write, byte for byte against shards built here from the spec (inner chunks
    in C order of the shard's grid, edge values padded with the fill value, chunks of nothing
    but fill left out of the shard and marked 2^64-1 in its index, a shard of nothing but fill
    not written at all)."""
    import asdf
    array = (np.arange(7 * 10, dtype="<i4").reshape(7, 10) % 23) - 5
    array[:, 4:6] = 0  # inner chunks of fill only
    array[4:, 6:] = 0  # the last shard column's lower shard: fill only
    src = f"{tmp}/shard_src.asdf"
    asdf.AsdfFile({"x": array}).write_to(src)
    store = f"{tmp}/sharded.zarr"
    proc = subprocess.run([DUDLEY, "convert", "-q", "--compressor", "none", "--shards", "4,6",
                           "--chunks", "2,2", src, store], capture_output=True, text=True)
    check("convert to a sharded store", proc.returncode == 0, proc.stderr)
    with open(f"{store}/x/zarr.json") as f:
        codecs = json.load(f)["codecs"]
    check("sharding_indexed metadata", codecs == [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [2, 2], "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
        "index_location": "end"}}], json.dumps(codecs))
    padded = np.zeros((8, 12), dtype="<i4")
    padded[:7, :10] = array
    for a in range(2):
        for b in range(2):
            shard = padded[a * 4:a * 4 + 4, b * 6:b * 6 + 6]
            blocks = [shard[i * 2:i * 2 + 2, j * 2:j * 2 + 2] for i in range(2) for j in range(3)]
            blocks = [None if not blk.any() else blk for blk in blocks]
            path = f"{store}/x/c/{a}/{b}"
            if all(blk is None for blk in blocks):
                check(f"shard {a},{b} of fill only is not written", not os.path.exists(path))
                continue
            want = shard_bytes(blocks, [2, 3], True, lambda c: np.ascontiguousarray(c).tobytes())
            with open(path, "rb") as f:
                got = f.read()
            check(f"shard {a},{b} bytes as the spec builds them", got == want, f"{len(got)} vs {len(want)}")


STRINGS = ["", "a", "héllo wörld", "日本語", "x" * 300, "tab\tand\nnewline", "🙂", "last"]
BYTES = [b"", b"\x00\x01\xff", b"zz", bytes(range(256)), b"end"]


def strings_both_ways(tmp):
    """Zarr's variable-length types: string (vlen-utf8) and bytes (vlen-bytes). v2 object
    arrays both ways with python3-zarr; v3 chunks framed by numcodecs (VLenUTF8, VLenBytes:
    the same framing) read by us, ours decoded by numcodecs and read by zarrita."""
    import numcodecs
    import zarr
    s = np.array(STRINGS * 2, dtype=object).reshape(4, 4)
    b = np.array(BYTES, dtype=object)
    # python3-zarr writes v2 object arrays (edge chunks, blosc and zstd, a missing chunk).
    store = f"{tmp}/v2_strings.zarr"
    g = zarr.open_group(store, mode="w")
    g.create_dataset("s", shape=s.shape, chunks=(3, 3), dtype=str,
                     compressor=numcodecs.Zstd(3))[:] = s
    g.create_dataset("b", shape=b.shape, chunks=(2,), dtype=bytes)[:] = b
    g.create_dataset("sparse", shape=(6,), chunks=(2,), dtype=str)[2:4] = ["p", "q"]
    _, got = dump(store, "/s")
    check("python3-zarr's v2 strings read by us", got == s.tolist(), str(got))
    _, got = dump(store, "/b")
    check("python3-zarr's v2 bytes read by us", got == [list(x) for x in b], str(got))
    _, got = dump(store, "/sparse")
    # python3-zarr writes "fill_value": 0 for strings (and reads the integer 0 there); zarr 3,
    # the peer for Zarr, fills with the number's text, "0": so do we.
    check("missing chunks of strings read as zarr 3 fills them",
          got == ["0", "0", "p", "q", "0", "0"], str(got))
    _, got = dump(store, "/s[::-2, 1:3]")
    check("a selection of strings matches numpy", got == s[::-2, 1:3].tolist(), str(got))
    # Ours, v2, read by python3-zarr; and v3, checked by numcodecs and zarrita.
    for fmt_ in ("2", "3"):
        ours = f"{tmp}/ours_strings_v{fmt_}.zarr"
        proc = subprocess.run([DUDLEY, "convert", "-q", "--zarr-format", fmt_, "--chunks", "3,3",
                               store, ours], capture_output=True, text=True)
        check(f"convert strings to v{fmt_}", proc.returncode == 0, proc.stderr)
        if proc.returncode != 0:
            continue
        if fmt_ == "2":
            h = zarr.open_group(ours, mode="r")
            check("python3-zarr reads our v2 strings", h["s"][:].tolist() == s.tolist(),
                  str(h["s"][:]))
            check("python3-zarr reads our v2 bytes", h["b"][:].tolist() == b.tolist(),
                  str(h["b"][:]))
            continue
        meta = json.load(open(f"{ours}/s/zarr.json"))
        check("v3 string metadata", meta["data_type"] == "string" and
              meta["codecs"][0] == {"name": "vlen-utf8"} and meta["fill_value"] == "0", str(meta))
        raw = numcodecs.Zstd().decode(open(f"{ours}/s/c/1/0", "rb").read())
        items = numcodecs.VLenUTF8().decode(raw)
        want = list(s[3, 0:3]) + ["0"] * 6  # row 3 of columns 0..2, the rest fill
        check("our string chunk as numcodecs decodes it", list(items) == want, str(items))
        out = subprocess.run(["node", os.path.join(HERE, "zarrita_peer.mjs"), "read", ours, "s"],
                             capture_output=True, text=True)
        ok = out.returncode == 0 and json.loads(out.stdout)["arrays"]["s"]["values"] == s.ravel().tolist()
        check("zarrita reads our v3 strings", ok, out.stdout[:300] + out.stderr[-300:])
    # v3 chunks built by numcodecs, read by us.
    root = f"{tmp}/v3_strings.zarr"
    write_json(f"{root}/zarr.json", array_meta([8], [5], "string", [
        {"name": "vlen-utf8"}, {"name": "gzip", "configuration": {"level": 5}}], "fill"))
    put(f"{root}/c/0", numcodecs.GZip(5).encode(numcodecs.VLenUTF8().encode(
        np.array(STRINGS[:5], dtype=object))))
    _, got = dump(root, "/")
    check("numcodecs-framed v3 strings read by us (a missing chunk as the fill)",
          got == STRINGS[:5] + ["fill"] * 3, str(got))
    root = f"{tmp}/v3_bytes.zarr"
    write_json(f"{root}/zarr.json", array_meta([5], [5], "bytes", [{"name": "vlen-bytes"}], [1, 2]))
    put(f"{root}/c/0", numcodecs.VLenBytes().encode(np.array(BYTES, dtype=object)))
    _, got = dump(root, "/")
    check("numcodecs-framed v3 bytes read by us", got == [list(x) for x in BYTES], str(got))


def shuffle_filter(tmp):
    """numcodecs' Shuffle: python3-zarr's v2 filter both ways (chunk files byte for byte with
    no compressor), and as "numcodecs.shuffle" in a v3 store built here (numpy's shuffle of
    the little-endian bytes, then gzip)."""
    import numcodecs
    import zarr
    a = np.linspace(-3, 3, 63 * 5).reshape(21, 15)
    for typestr, comp in (("<f8", None), (">i4", numcodecs.Zstd(level=3)), ("<u2", numcodecs.GZip(5))):
        x = a.astype(typestr) if typestr[1] == "f" else (a * 1000).astype(typestr)
        theirs = f"{tmp}/shuffle_theirs_{typestr[1:]}.zarr"
        z = zarr.open_array(theirs, mode="w", shape=x.shape, chunks=(8, 6), dtype=typestr,
                            compressor=comp, filters=[numcodecs.Shuffle(elementsize=x.dtype.itemsize)])
        z[:] = x
        _, got = dump(theirs, "/")
        check(f"read python3-zarr's v2 shuffle filter {typestr} {comp}", same(got, x.tolist()), str(got))
        # Ours, from an ASDF file of the same array (ASDF keeps the byte order).
        import asdf
        src = f"{tmp}/shuffle_{typestr[1:]}.asdf"
        asdf.AsdfFile({"x": x}).write_to(src)
        ours = f"{tmp}/shuffle_ours_{typestr[1:]}.zarr"
        cname = "none" if comp is None else comp.codec_id
        proc = subprocess.run([DUDLEY, "convert", "-q", "--zarr-format", "2", "--shuffle",
                               "--compressor", cname, "--chunks", "8,6", src, ours],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            check(f"write v2 --shuffle {typestr}", False, proc.stderr)
            continue
        theirs_z = zarr.open_array(f"{ours}/x", mode="r")
        check(f"python3-zarr reads our v2 --shuffle {typestr} {cname}",
              np.array_equal(theirs_z[:], x) and theirs_z.filters == [numcodecs.Shuffle(elementsize=x.dtype.itemsize)],
              f"{theirs_z.filters} {theirs_z[:]}")
        if comp is None and x.dtype.byteorder in "<=|":
            # Byte for byte: every chunk key the same and the same bytes.
            keys = sorted(k for k in os.listdir(theirs) if not k.startswith("."))
            mine = sorted(k for k in os.listdir(f"{ours}/x") if not k.startswith("."))
            same_bytes = bool(keys) and keys == mine and all(
                open(f"{theirs}/{k}", "rb").read() == open(f"{ours}/x/{k}", "rb").read() for k in keys)
            check(f"our v2 shuffled chunks equal python3-zarr's {typestr}", same_bytes, f"{keys} {mine}")
    # v3, built here: [bytes little, numcodecs.shuffle, gzip], one edge chunk.
    x = np.arange(30, dtype="<i4").reshape(5, 6) * 1000 - 7
    root = f"{tmp}/shuffle_v3.zarr"
    write_json(f"{root}/zarr.json", array_meta([5, 6], [3, 6], "int32",
               [{"name": "bytes", "configuration": {"endian": "little"}},
                {"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}},
                {"name": "gzip", "configuration": {"level": 1}}], 0))
    for r in range(2):
        chunk = np.zeros((3, 6), "<i4")
        part = x[3 * r:3 * r + 3]
        chunk[:part.shape[0]] = part
        shuffled = chunk.view("u1").reshape(-1, 4).T.tobytes()  # byte j of element i at j*n+i
        put(f"{root}/c/{r}/0", gzip.compress(shuffled))
    _, got = dump(root, "/")
    check("v3 numcodecs.shuffle built from the spec read by us", same(got, x.tolist()), str(got))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(f"{tmp}/zarrita")
        zarrita_stores(f"{tmp}/zarrita")
        ours_read_by_peers(tmp)
        v2_both_ways(tmp)
        hand_built(tmp)
        our_shards_match_the_spec(tmp)
        strings_both_ways(tmp)
        shuffle_filter(tmp)
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        sys.exit(1)
    print(f"zarr peers: {checked} checks passed")


main()
