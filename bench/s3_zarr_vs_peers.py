"""Zarr v3 on S3, side by side: dudley against zarr 3 + s3fs and tensorstore's S3 driver
(the PyPI stack in .venv-stack), on moto's S3 server (.venv-s3) on 127.0.0.1, started here
and always stopped. A float64 array (default 1 GiB; 1 MiB chunks, zstd):

- write: `dudley convert src.npy s3://bench/ours.zarr` against zarr 3 writing the same
  array through s3fs (and tensorstore, for the record), each a fresh process reading the
  same .npy;
- read: the whole array into memory in a fresh Python process: dudley.open(...)[...]
  (Debian's interpreter, the module of this build), zarr 3 + s3fs, tensorstore.

Runs alternate between the tools; medians are printed with the ratios. The server is the
same for all tools, and the benchmark runs on two: moto (Python: its own speed bounds every
figure) and gofakes3 (Go, in memory, from scripts/install-deps.sh; skipped when absent),
which lets the tools' own costs show. Both share the 2 cores with the tool measured.

Usage: .venv-stack/bin/python bench/s3_zarr_vs_peers.py BUILD_DIR [MIB] [RUNS] [moto|gofakes3]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "interop"))
from moto_server import GoFakeS3Server, MotoServer, tool_environment  # noqa: E402
from results import record_speedup  # noqa: E402  (the table make bench writes)

BUILD = os.path.abspath(sys.argv[1])
MIB = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
SERVERS = sys.argv[4:] or ["moto", "gofakes3"]
CHUNK = (1 << 20) // 8  # 1 MiB of float64
ENV = tool_environment("bench")

ZARR_WRITE = """
import sys, numpy as np, zarr
src, url, endpoint, chunk = sys.argv[1:5]
data = np.load(src, mmap_mode="r")
opts = {"key": "bench", "secret": "bench", "client_kwargs": {"endpoint_url": endpoint}}
a = zarr.create_array(url, shape=data.shape, chunks=(int(chunk),), dtype=data.dtype,
                      compressors=zarr.codecs.ZstdCodec(level=3), storage_options=opts,
                      overwrite=True)
a[...] = data
"""
ZARR_READ = """
import sys, zarr
url, endpoint = sys.argv[1:3]
opts = {"key": "bench", "secret": "bench", "client_kwargs": {"endpoint_url": endpoint}}
x = zarr.open_array(url, mode="r", storage_options=opts)[...]
assert x.size > 0
"""
TS_SPEC = """
def spec(path, endpoint):
    return {"driver": "zarr3",
            "kvstore": {"driver": "s3", "bucket": "bench", "path": path,
                        "endpoint": endpoint, "aws_region": "us-east-1",
                        "aws_credentials": {"type": "environment"}}}
"""
TS_WRITE = TS_SPEC + """
import sys, numpy as np, tensorstore as ts
src, path, endpoint, chunk = sys.argv[1:5]
data = np.load(src, mmap_mode="r")
t = ts.open(spec(path, endpoint), create=True, delete_existing=True, dtype=ts.float64,
            shape=data.shape, chunk_layout=ts.ChunkLayout(chunk_shape=[int(chunk)]),
            codec=ts.CodecSpec({"driver": "zarr3",
                                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                           {"name": "zstd", "configuration": {"level": 3}}]})).result()
t.write(data).result()
"""
TS_READ = TS_SPEC + """
import sys, tensorstore as ts
path, endpoint = sys.argv[1:3]
x = ts.open(spec(path, endpoint)).result().read().result()
assert x.size > 0
"""
OURS_READ = """
import sys, dudley
url, endpoint = sys.argv[1:3]
f = dudley.open(url, storage_options={"key": "bench", "secret": "bench",
                                      "endpoint_url": endpoint})
x = f[...]
assert x.size > 0
"""


def timed(cmd, env):
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed: {proc.stderr[-2000:]}")
    return elapsed


def measure(server, tmp, dudley_env, stack):
    """Medians of each tool's write and read on `server` (its bucket "bench" made)."""
    url = server.url
    writes = {
        "dudley": lambda: timed([os.path.join(BUILD, "dudley"), "convert", "-q",
                                 "--endpoint-url", url, "--chunks", str(CHUNK),
                                 "--compressor", "zstd", f"{tmp}/src.npy",
                                 "s3://bench/ours.zarr"], ENV),
        "zarr 3 + s3fs": lambda: timed([stack, "-c", ZARR_WRITE, f"{tmp}/src.npy",
                                        "s3://bench/zarr.zarr", url, str(CHUNK)], ENV),
        "tensorstore": lambda: timed([stack, "-c", TS_WRITE, f"{tmp}/src.npy",
                                      "ts.zarr/", url, str(CHUNK)], ENV),
    }
    reads = {
        "dudley": lambda: timed(["/usr/bin/python3", "-c", OURS_READ,
                                 "s3://bench/ours.zarr", url], dudley_env),
        "zarr 3 + s3fs": lambda: timed([stack, "-c", ZARR_READ, "s3://bench/zarr.zarr",
                                        url], ENV),
        "tensorstore": lambda: timed([stack, "-c", TS_READ, "ts.zarr/", url], ENV),
    }
    results = {}
    for kind, tools in (("write", writes), ("read", reads)):
        times = {name: [] for name in tools}
        for _ in range(RUNS):
            for name, run in tools.items():
                with open(f"{tmp}/src.npy", "rb") as f:  # warm, as a user's file is
                    while f.read(1 << 24):
                        pass
                times[name].append(run())
        results[kind] = {name: statistics.median(t) for name, t in times.items()}
    return results


def main():
    stack = os.path.join(ROOT, ".venv-stack", "bin", "python")
    moto = os.path.join(ROOT, ".venv-s3", "bin", "moto_server")
    dudley_env = dict(ENV, PYTHONPATH=os.path.join(BUILD, "python"))
    versions = subprocess.run(
        [stack, "-c", "import zarr, s3fs; from importlib.metadata import version; "
         "print(zarr.__version__, s3fs.__version__, version('tensorstore'))"],
        capture_output=True, text=True).stdout.split()
    print(f"Zarr v3 on S3: {MIB} MiB float64, 1 MiB chunks, zstd; "
          f"median of {RUNS} alternating fresh-process runs")
    print(f"peers: zarr {versions[0]} + s3fs {versions[1]}, tensorstore {versions[2]}")
    with tempfile.TemporaryDirectory(prefix="s3bench-") as tmp:
        n = MIB * (1 << 20) // 8
        # Smooth values with noise: zstd saves a little, as on measured data.
        rng = np.random.default_rng(0)
        data = np.sin(np.arange(n) / 1000.0) + rng.normal(0, 1e-3, n)
        np.save(f"{tmp}/src.npy", data)
        del data
        for name in SERVERS:
            if name == "gofakes3" and not os.access(GoFakeS3Server.PROGRAM, os.X_OK):
                print("server gofakes3: not installed (scripts/install-deps.sh needs Go): skipped")
                continue
            server = (MotoServer(tmp, program=moto) if name == "moto"
                      else GoFakeS3Server(tmp, "bench"))
            with server:
                if name == "moto":
                    subprocess.run(["curl", "-s", "-X", "PUT", f"{server.url}/bench", "-o",
                                    "/dev/null"], check=True)
                results = measure(server, tmp, dudley_env, stack)
            print(f"server {name}:")
            for kind, medians in results.items():
                ours = medians["dudley"]
                print(f"  {kind}: dudley {ours:.2f} s ({MIB / ours:.0f} MiB/s)")
                for tool, t in medians.items():
                    if tool != "dudley":
                        print(f"    {tool:15s} {t:.2f} s -> dudley {t / ours:.2f}x")
                        record_speedup(f"Zarr v3 on S3 ({name}), {kind} vs {tool}", ours, t,
                                       None, RUNS)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
