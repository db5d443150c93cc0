#!/usr/bin/python3
"""Issue 22's sharding target: one element read from a 1 GiB sharded array touches at most
one inner chunk plus the shard's index. Counts the bytes `dudley dump STORE '/x[i, j]'`
reads, in a fresh process as a user runs it:
- from a directory store: every read/pread on the store's chunk files, traced by strace;
- over HTTP: the bytes nginx (on 127.0.0.1, started and stopped here) sends for chunk keys.
The bound is computed here from the shard's own index: its encoded size plus the one inner
chunk's. Times of the same read, and of the whole array's, are printed beside it.

Usage: zarr_shard_read.py BUILD_DIR [WORKDIR] [GIB]
"""
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "interop"))
from nginx_server import NginxServer  # noqa: E402

BUILD = os.path.abspath(sys.argv[1])
WORK = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="zarr-shard-bench-")
GIB = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
DUDLEY = os.path.join(BUILD, "dudley")
COLS = 8192
ROWS = int(GIB * (1 << 30)) // 8 // COLS
SHARD_ROWS, CHUNK_ROWS = 1024, 16  # 64 MiB shards of 1 MiB inner chunks
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)


def shard_index_bound(store, row, col):
    """The index's size plus the encoded size of the inner chunk holding (row, col)."""
    per_shard = SHARD_ROWS // CHUNK_ROWS
    index_bytes = 16 * per_shard + 4
    path = f"{store}/x/c/{row // SHARD_ROWS}/{col // COLS}"
    with open(path, "rb") as f:
        f.seek(-index_bytes, os.SEEK_END)
        entries = struct.unpack(f"<{2 * per_shard}Q", f.read(index_bytes)[:-4])
    inner = (row % SHARD_ROWS) // CHUNK_ROWS
    return index_bytes, entries[2 * inner + 1], os.path.getsize(path)


def traced_bytes(cmd, store):
    """Bytes read from the store's chunk files (read, pread64, readv, preadv) by cmd."""
    out = subprocess.run(["strace", "-f", "-y", "-e", "trace=read,pread64,readv,preadv,preadv2",
                          "-o", "trace.txt", *cmd], capture_output=True, text=True, check=True)
    total = 0
    chunk_dir = os.path.realpath(store) + "/x/c/"
    for line in open("trace.txt"):
        m = re.search(r"(?:read|pread64|readv|preadv2?)\(\d+<([^>]*)>.*=\s*(\d+)", line)
        if m and m.group(1).startswith(chunk_dir):
            total += int(m.group(2))
    return total, out.stdout


def timed(cmd):
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t0, out


def main():
    x = np.sin(np.linspace(0, 400, ROWS * COLS)).astype("<f8").reshape(ROWS, COLS)
    x.tofile("in.bin")
    open("in.dud", "w").write(f"x = <f8[{ROWS}, {COLS}]\n")
    www = os.path.join(WORK, "www")
    os.makedirs(www, exist_ok=True)
    store = os.path.join(www, "s.zarr")
    t, _ = timed([DUDLEY, "convert", "-q", "--shards", f"{SHARD_ROWS},{COLS}", "--chunks",
                  f"{CHUNK_ROWS},{COLS}", "in.bin", store])
    size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(store) for f in fs)
    print(f"{ROWS} x {COLS} float64 ({ROWS * COLS * 8 / (1 << 30):.2f} GiB), shards "
          f"{SHARD_ROWS} x {COLS} of chunks {CHUNK_ROWS} x {COLS}, zstd: written in {t:.2f} s, "
          f"{size / (1 << 20):.0f} MiB stored", flush=True)
    row, col = ROWS * 5 // 8 + 3, COLS // 3
    want = x[row, col]
    del x
    index_bytes, inner_bytes, shard_bytes = shard_index_bound(store, row, col)
    bound = index_bytes + inner_bytes
    item = f"/x[{row}, {col}]"
    got, out = traced_bytes([DUDLEY, "dump", store, item], store)
    ok = float(out.split("=")[1]) == want
    print(f"directory store, one element {item}: read {got} bytes of chunk files; bound (index "
          f"{index_bytes} + inner chunk {inner_bytes}) {bound}; shard {shard_bytes}: "
          f"{'met' if got <= bound and ok else 'NOT met'}{'' if ok else ' (wrong value)'}")
    t_one, _ = timed([DUDLEY, "dump", store, item])
    print(f"  its time, fresh process: {t_one * 1000:.1f} ms")
    with NginxServer(www, WORK, access_log=True) as server:
        server.requests()
        url = f"{server.url}/s.zarr/x"  # the array itself: a server lists no groups
        t_http, out = timed([DUDLEY, "dump", url, f"/[{row}, {col}]"])
        ok = float(out.split("=")[1]) == want
        requests = server.requests()
        chunk = [r for r in requests if "/x/c/" in r.line]
        sent = sum(r.bytes for r in chunk)
        print(f"over HTTP: {len(requests)} requests ({len(chunk)} for chunk keys), {sent} body bytes "
              f"for chunk keys; bound {bound}: {'met' if sent <= bound and ok else 'NOT met'}; "
              f"{t_http * 1000:.1f} ms")
        for r in chunk:
            print(f"  {r.line} ({r.range}) -> {r.status}, {r.bytes} bytes")


main()
