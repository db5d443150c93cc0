"""Listing an HDF5 file on S3: the bytes and requests `dudley ls` reads against h5py
walking the same file through an s3fs file object (what xarray and h5py users do), counted
by a proxy in front of moto's S3 server (127.0.0.1, started here and always stopped). The
file holds 1,000 small datasets in 10 groups (its metadata is most of it) and one chunked
dataset of 8 MiB (data no listing should read). Target: dudley reads at most 2x the bytes
h5py + s3fs reads.

Usage: .venv-stack/bin/python bench/s3_hdf5_ls.py BUILD_DIR
"""
import os
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "interop"))
from fault_proxy import FaultProxy  # noqa: E402
from moto_server import MotoServer, tool_environment  # noqa: E402
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD = os.path.abspath(sys.argv[1])
ENV = tool_environment("bench")
H5PY_LS = """
import sys, h5py, s3fs
fs = s3fs.S3FileSystem(key="bench", secret="bench", client_kwargs={"endpoint_url": sys.argv[1]})
names = []
with fs.open("bench/many.h5", "rb") as f, h5py.File(f, "r") as h:
    h.visititems(lambda name, obj: names.append((name, getattr(obj, "shape", None),
                                                 getattr(obj, "dtype", None))))
assert len(names) > 1000
"""


def measure(proxy, cmd, env):
    before_bytes, before_count = proxy.body_bytes, proxy.count
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return proxy.body_bytes - before_bytes, proxy.count - before_count, elapsed


def main():
    moto = os.path.join(ROOT, ".venv-s3", "bin", "moto_server")
    with tempfile.TemporaryDirectory(prefix="h5ls-") as tmp:
        with h5py.File(f"{tmp}/many.h5", "w") as f:
            for i in range(1000):
                f.create_dataset(f"g{i % 10}/d{i}", data=np.arange(i % 7 + 1, dtype="<f8"))
            f.create_dataset("big", data=np.arange(1 << 20, dtype="<f8"), chunks=(1 << 16,))
        size = os.path.getsize(f"{tmp}/many.h5")
        with MotoServer(tmp, program=moto) as server:
            subprocess.run(["curl", "-s", "-X", "PUT", f"{server.url}/bench", "-o", "/dev/null"],
                           check=True)
            subprocess.run(["curl", "-s", "-X", "PUT", "--upload-file", f"{tmp}/many.h5",
                            "--aws-sigv4", "aws:amz:us-east-1:s3", "-u", "bench:bench",
                            f"{server.url}/bench/many.h5", "-o", "/dev/null"], check=True)
            with FaultProxy(server.port, lambda m, p, n: None) as proxy:
                ours = measure(proxy, [os.path.join(BUILD, "dudley"), "ls", "--endpoint-url",
                                       proxy.url, "s3://bench/many.h5"], ENV)
                peer = measure(proxy, [sys.executable, "-c", H5PY_LS, proxy.url], ENV)
    print(f"ls of an HDF5 file on S3 ({size / 1e6:.1f} MB: 1,000 small datasets, one of 8 MiB)")
    print(f"  dudley ls        {ours[0] / 1e3:8.0f} kB in {ours[1]:3d} requests, {ours[2]:.2f} s")
    print(f"  h5py + s3fs      {peer[0] / 1e3:8.0f} kB in {peer[1]:3d} requests, {peer[2]:.2f} s")
    print(f"  dudley reads {ours[0] / max(peer[0], 1):.2f}x the bytes (target <= 2x), "
          f"takes {peer[2] / ours[2]:.2f}x less time")
    results.record("ls of an HDF5 file on S3, bytes fetched", ours[0] / 1e3, "h5py + s3fs",
                   peer[0] / 1e3, ">= 0.5x (<= 2x the bytes)", ours[0] <= 2 * peer[0], 1, "kB")
    results.record_speedup("ls of an HDF5 file on S3, time vs h5py + s3fs", ours[2], peer[2], None, 1)


if __name__ == "__main__":
    main()
