"""One Zarr operation by one peer, timed inside its own fresh process (the input already in
memory for a write), for bench/zarr_vs_fastest.py. Prints "SECONDS CHECKSUM".

  zarr_peer_ops.py TOOL OP STORE CODEC SHARDED THREADS [RAW ROWS COLS CHUNK_ROWS SHARD_ROWS]
                   [R0 R1 C0 C1]

TOOL: tensorstore, zarrs (zarr-python 3 with zarrs' codec pipeline), zarr3 (zarr-python 3),
zarr2 (python3-zarr 2.13, Debian's; v2 stores, no shards). OP: write (from RAW), read (the
whole array), region (rows [R0, R1), columns [C0, C1)). CODEC: zstd (level 3) or blosc
(lz4, level 5, byte shuffle). THREADS: the codec threads each tool may use.
"""
import sys
import time

import numpy as np

tool, op, store, codec, sharded, threads = sys.argv[1:7]
sharded = sharded == "1"
threads = int(threads)
rest = sys.argv[7:]


def checksum(a):
    """The sum of every value, as bench/read_once prints it."""
    return float(a.sum())


def timed_read(open_array):
    """Opens the array and reads what OP asks, timed; prints "SECONDS CHECKSUM"."""
    t0 = time.perf_counter()
    z = open_array()
    if op == "region":
        r0, r1, c0, c1 = map(int, rest[-4:])
        a = z[r0:r1, c0:c1]
    else:
        a = z[:]
    print(time.perf_counter() - t0, checksum(a))


if tool == "tensorstore":
    import tensorstore as ts

    ctx = ts.Context({"data_copy_concurrency": {"limit": threads},
                      "file_io_concurrency": {"limit": max(threads, 1)}})

    def codecs():
        inner = [{"name": "bytes", "configuration": {"endian": "little"}}]
        if codec == "zstd":
            inner.append({"name": "zstd", "configuration": {"level": 3, "checksum": False}})
        else:
            inner.append({"name": "blosc", "configuration": {
                "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 8,
                "blocksize": 0}})
        return inner

    def open_store(create=False, shape=None, chunk=None, shard=None):
        spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": store}}
        if create:
            meta = {"shape": shape, "data_type": "float64"}
            if sharded:
                meta["chunk_grid"] = {"name": "regular", "configuration": {"chunk_shape": shard}}
                meta["codecs"] = [{"name": "sharding_indexed", "configuration": {
                    "chunk_shape": chunk, "codecs": codecs(),
                    "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                     {"name": "crc32c"}]}}]
            else:
                meta["chunk_grid"] = {"name": "regular", "configuration": {"chunk_shape": chunk}}
                meta["codecs"] = codecs()
            spec["metadata"] = meta
            return ts.open(spec, create=True, delete_existing=True, context=ctx).result()
        return ts.open(spec, context=ctx).result()

    if op == "write":
        raw, rows, cols, crows, srows = rest[:5]
        rows, cols, crows, srows = int(rows), int(cols), int(crows), int(srows)
        a = np.fromfile(raw, "<f8").reshape(rows, cols)
        t0 = time.perf_counter()
        z = open_store(True, [rows, cols], [crows, cols], [srows, cols])
        z.write(a).result()
        print(time.perf_counter() - t0, checksum(a))
    else:
        t0 = time.perf_counter()
        z = open_store()
        if op == "region":
            r0, r1, c0, c1 = map(int, rest[-4:])
            a = z[r0:r1, c0:c1].read().result()
        else:
            a = z.read().result()
        print(time.perf_counter() - t0, checksum(a))
    sys.exit(0)

if tool == "zarr2":
    import numcodecs
    import zarr
    numcodecs.blosc.set_nthreads(threads)
    numcodecs.blosc.use_threads = threads > 1
    if op == "write":
        raw, rows, cols, crows = rest[:4]
        a = np.fromfile(raw, "<f8").reshape(int(rows), int(cols))
        comp = (numcodecs.Zstd(level=3) if codec == "zstd"
                else numcodecs.Blosc("lz4", 5, numcodecs.Blosc.SHUFFLE))
        t0 = time.perf_counter()
        z = zarr.open(store, mode="w", shape=a.shape, chunks=(int(crows), int(cols)),
                      dtype="<f8", compressor=comp)
        z[:] = a
        print(time.perf_counter() - t0, checksum(a))
    else:
        timed_read(lambda: zarr.open(store, mode="r"))
    sys.exit(0)

# zarr-python 3, with its own codec pipeline or zarrs'.
import zarr  # noqa: E402
import zarr.codecs  # noqa: E402

config = {"threading.max_workers": threads}
if tool == "zarrs":
    import zarrs  # noqa: F401
    config["codec_pipeline.path"] = "zarrs.ZarrsCodecPipeline"
zarr.config.set(config)
if op == "write":
    raw, rows, cols, crows, srows = rest[:5]
    rows, cols, crows, srows = int(rows), int(cols), int(crows), int(srows)
    a = np.fromfile(raw, "<f8").reshape(rows, cols)
    compressor = (zarr.codecs.ZstdCodec(level=3) if codec == "zstd" else zarr.codecs.BloscCodec(
        cname="lz4", clevel=5, shuffle="shuffle", typesize=8))
    t0 = time.perf_counter()
    z = zarr.create_array(store, shape=a.shape, dtype="<f8", chunks=(crows, cols),
                          shards=(srows, cols) if sharded else None, compressors=[compressor],
                          overwrite=True, zarr_format=3)
    z[:] = a
    print(time.perf_counter() - t0, checksum(a))
else:
    timed_read(lambda: zarr.open_array(store, mode="r"))
