"""dudley.open on s3:// paths with fsspec's storage_options, against moto's S3 server (from
PyPI in the repository's .venv-s3, scripts/install-deps.sh) on 127.0.0.1, started and stopped
here. Objects are uploaded with curl's own AWS SigV4 signing, so the test needs no boto3 in
the interpreter it runs under.

Debian's interpreter (python_module) has no s3fs; the PyPI stack (python_pypi_stack, whose
tests/requirements-stack.txt pins s3fs and xarray) runs this file too, and there what needs
them is never skipped."""
import os
import pickle
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

import dudley
from cli_runner import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MOTO = os.path.join(ROOT, ".venv-s3", "bin", "moto_server")
OPTIONS = {"key": "test", "secret": "test"}
# The PyPI stack's interpreter (.venv-stack): s3fs and xarray are installed there, so a test
# needing them runs, or fails, but is not skipped.
ON_PYPI_STACK = os.path.basename(sys.prefix) == ".venv-stack"


def needed(module):
    """`module`, imported; skipped for want of it only off the PyPI stack."""
    if ON_PYPI_STACK:
        return __import__(module)
    return pytest.importorskip(module, reason=f"{module}: the PyPI stack's tests run this")


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    # Not a skip: without the server nothing here would be checked.
    assert os.path.exists(MOTO), "no moto_server: run scripts/install-deps.sh (it puts it in .venv-s3)"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(tmp_path_factory.mktemp("moto") / "moto.log", "w")
    # The server and curl run as themselves: not under the sanitizer runtime the sanitizer
    # build preloads into this interpreter.
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
    server = subprocess.Popen([MOTO, "-H", "127.0.0.1", "-p", str(port)], stdout=log,
                              stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/moto-api/", timeout=1)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("moto_server did not start")
                time.sleep(0.1)

        def put(path, data=None):
            # --upload-file: the body as it is (a form content type would have the server
            # take it as a form).
            args = ["curl", "-sf", "--max-time", "60", "--aws-sigv4", "aws:amz:us-east-1:s3",
                    "--user", "test:test", f"{url}/{path}"]
            args[1:1] = ["--upload-file", str(data)] if data is not None else ["-X", "PUT"]
            subprocess.run(args, check=True, env=env, timeout=120)

        put("bkt")
        d = tmp_path_factory.mktemp("files")
        x = np.arange(24, dtype="<f8").reshape(4, 6)
        np.save(d / "x.npy", x)
        put("bkt/x.npy", d / "x.npy")
        converted = run("convert", "-q", "--chunks", "2,3", str(d / "x.npy"), str(d / "x.zarr"),
                        timeout=120)  # without the preloaded sanitizer runtime (cli_runner)
        assert converted.returncode == 0, converted.stderr
        for root, _, files in os.walk(d / "x.zarr"):
            for f in files:
                p = os.path.join(root, f)
                put(f"bkt/x.zarr/{os.path.relpath(p, d / 'x.zarr')}", p)
        yield url, x
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def test_open_with_storage_options(s3):
    url, x = s3
    f = dudley.open("s3://bkt/x.npy", storage_options={**OPTIONS, "endpoint_url": url})
    a = f["/"]  # an .npy file's one array
    assert f.format == "npy" and np.array_equal(a[...], x) and np.array_equal(a[1:3, ::2], x[1:3, ::2])
    z = dudley.open("s3://bkt/x.zarr",
                    storage_options={**OPTIONS, "client_kwargs": {"endpoint_url": url,
                                                                  "region_name": "us-east-1"}})
    assert z.format == "zarr" and np.array_equal(z["/"][2], x[2])


def test_pickled_arrays_reopen_with_their_options(s3):
    url, x = s3
    a = dudley.open("s3://bkt/x.zarr", storage_options={**OPTIONS, "endpoint_url": url})["/"]
    back = pickle.loads(pickle.dumps(a))  # what a Dask worker does
    assert np.array_equal(back[...], x)
    assert np.array_equal(dudley.to_dask(a).compute(), x)


def test_unknown_options_and_missing_buckets_are_named(s3):
    url, _ = s3
    with pytest.raises(dudley.UsageError, match="storage_options not understood: cache_type"):
        dudley.open("s3://bkt/x.npy", storage_options={"cache_type": "bytes"})
    with pytest.raises(dudley.Error, match="NoSuchBucket"):
        dudley.open("s3://nobucket/x.zarr", storage_options={**OPTIONS, "endpoint_url": url})
    # Names S3 would not take, and an endpoint with a path, are refused before any request.
    with pytest.raises(dudley.UsageError, match="bucket name"):
        dudley.open("s3://a..b/x.npy", storage_options={**OPTIONS, "endpoint_url": url})
    with pytest.raises(dudley.UsageError, match="region"):
        dudley.open("s3://bkt/x.npy", storage_options={**OPTIONS, "endpoint_url": url,
                                                         "client_kwargs": {"region_name": "x@h:1#"}})
    with pytest.raises(dudley.UsageError, match="endpoint"):
        dudley.open("s3://bkt/x.npy", storage_options={**OPTIONS, "endpoint_url": url + "/bkt"})


def test_xarray_engine_on_s3(s3):
    xr = needed("xarray")
    url, x = s3
    ds = xr.open_dataset("s3://bkt/x.npy", engine="dudley",
                         storage_options={**OPTIONS, "endpoint_url": url})
    (name,) = list(ds.data_vars)
    assert np.array_equal(ds[name].values, x)


def test_an_s3fs_file_object_is_read_at_its_url(s3):
    # What xarray and h5py users hold: an fsspec file object. dudley reads the object it
    # names with its file system's credentials (its own reads, not the object's).
    s3fs = needed("s3fs")
    url, x = s3
    fs = s3fs.S3FileSystem(key="test", secret="test", client_kwargs={"endpoint_url": url})
    with fs.open("bkt/x.npy", "rb") as f:
        got = dudley.open(f)
        assert got.filename == "s3://bkt/x.npy"
        assert np.array_equal(got[...], x)
