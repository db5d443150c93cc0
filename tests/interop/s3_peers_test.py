"""Writing to S3, checked by the peers users read S3 with, and faults on the way: moto's S3
server (PyPI, in .venv-s3) on 127.0.0.1, started here and always stopped; the peers are the
current PyPI stack (.venv-stack): zarr 3 and xarray through s3fs, h5py, asdf and numpy
through s3fs file objects.

- dudley writes Zarr v3 and v2 (consolidated), .npy, HDF5, ASDF and Dudley data to S3;
  zarr 3, xarray, numpy, h5py and asdf read them and agree with the source; a store's
  chunks are written before its metadata (checked from the server's log); an object over
  100 MiB goes up in parts; overwriting a store removes the chunks the new one lacks; a
  write that would lose an item is refused before the old store is touched; Zarr needs no
  temporary directory (it streams), file formats say when theirs is missing.
- zarr 3 and xarray write stores to S3 through s3fs; dudley reads them, and ASDF files whose
  arrays python asdf put in external files beside them.
- Through a proxy that injects faults: 503 SlowDown on a third of the requests (reads and
  writes retried, right values); connections reset halfway through an answer (retried,
  right values); an upload whose parts always fail exits 2 naming the object and leaves no
  object and no multipart upload behind; a store whose chunks cannot all be written leaves
  no metadata and no chunks.

Usage: s3_peers_test.py DUDLEY MOTO_SERVER   (run by .venv-stack/bin/python)
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fault_proxy import FaultProxy  # noqa: E402
from moto_server import MotoServer, tool_environment  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import Checks  # noqa: E402

DUDLEY = os.path.abspath(sys.argv[1])
MOTO = os.path.abspath(sys.argv[2])
check = Checks()
ENV = tool_environment()


def run(endpoint, *args, extra_env=None):
    env = dict(ENV, **(extra_env or {}))
    return subprocess.run([DUDLEY, *args[:1], "--endpoint-url", endpoint, *args[1:]],
                          capture_output=True, text=True, env=env, timeout=600)


def dumped(proc, path):
    n = json.loads(proc.stdout)["root"]
    for part in [p for p in path.split("/") if p]:
        n = n["members"][part]
    return np.array(n["data"])


def put_order(requests, prefix):
    """The keys PUT under `prefix`, in the order the server took them."""
    out = []
    for r in requests:
        method, _, rest = r.partition(" ")
        path = rest.split(" ")[0].split("?")[0]
        if method == "PUT" and path.startswith(prefix):
            out.append(path[len(prefix):])
    return out


def is_metadata(key):
    return key.rsplit("/", 1)[-1] in ("zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata")


def writes_to_s3(server, fs, tmp):
    import asdf
    import h5py
    import xarray as xr
    import zarr
    url = server.url
    x = np.sin(np.arange(600, dtype="<f8") / 7).reshape(20, 30)
    x.tofile(f"{tmp}/x.bin")
    open(f"{tmp}/x.dud", "w").write("x = <f8[20, 30]\n")
    opts = {"key": "test", "secret": "test", "client_kwargs": {"endpoint_url": url}}

    proc = run(url, "convert", "-q", "--chunks", "7,8", f"{tmp}/x.bin", "s3://out/x.zarr")
    check("convert to a Zarr v3 store on S3", proc.returncode == 0, proc.stderr)
    a = zarr.open_group("s3://out/x.zarr", mode="r", storage_options=opts)["x"]
    check("zarr 3 + s3fs reads it", np.array_equal(a[...], x) and a.chunks == (7, 8))
    order = put_order(server.requests(), "/out/x.zarr/")
    first_metadata = min((i for i, k in enumerate(order) if is_metadata(k)), default=len(order))
    check("every chunk was written before any metadata",
          order and all(not is_metadata(k) for k in order[:first_metadata]) and
          all(is_metadata(k) for k in order[first_metadata:]) and order[-1] == "zarr.json", order)

    # A netCDF-4 dataset with dimensions and coordinates, as a consolidated v2 store.
    import netCDF4
    with netCDF4.Dataset(f"{tmp}/ds.nc", "w") as nc:
        nc.createDimension("t", 6)
        nc.createDimension("s", 5)
        t = nc.createVariable("t", "f8", ("t",))
        t[:] = np.arange(6) * 0.5
        v = nc.createVariable("temp", "f4", ("t", "s"))
        v[:] = np.arange(30, dtype="f4").reshape(6, 5)
        v.units = "K"
    proc = run(url, "convert", "-q", "--zarr-format", "2", f"{tmp}/ds.nc", "s3://out/ds.zarr")
    check("convert netCDF-4 to a v2 store on S3", proc.returncode == 0, proc.stderr)
    if proc.returncode == 0:
        got = xr.open_zarr("s3://out/ds.zarr", storage_options=opts, consolidated=True)
        want = xr.open_dataset(f"{tmp}/ds.nc")
        check("xarray + s3fs opens it, consolidated, equal to the netCDF file",
              np.array_equal(got["temp"].values, want["temp"].values) and
              got["temp"].dims == ("t", "s") and got["temp"].attrs.get("units") == "K",
              f"{got}")
        order = put_order(server.requests(), "/out/ds.zarr/")
        check("v2: .zmetadata written last", order and order[-1] == ".zmetadata", order)

    # Single-object formats, read through s3fs file objects.
    for name, reader in (("x.npy", lambda f: np.load(f)),
                         ("x.h5", lambda f: h5py.File(f, "r")["x"][...]),
                         ("x.asdf", lambda f: np.asarray(asdf.open(f)["x"]))):
        proc = run(url, "convert", "-q", f"{tmp}/x.bin", f"s3://out/files/{name}")
        check(f"convert to s3://out/files/{name}", proc.returncode == 0, proc.stderr)
        if proc.returncode == 0:
            with fs.open(f"out/files/{name}", "rb") as f:
                check(f"{name} read back by its peer through s3fs", np.array_equal(reader(f), x))
    proc = run(url, "convert", "-q", f"{tmp}/x.bin", "s3://out/files/copy.bin")
    check("Dudley data to S3, its layout beside it",
          proc.returncode == 0 and fs.exists("out/files/copy.dud"), proc.stderr)
    proc = run(url, "dump", "--json", "s3://out/files/copy.bin")
    check("and read back from S3 with its layout", proc.returncode == 0 and
          np.array_equal(dumped(proc, "/x"), x), proc.stderr)

    # NDL (a text format) written to S3 and read back from it.
    proc = run(url, "convert", "-q", f"{tmp}/x.bin", "s3://out/files/x.ndl")
    back = run(url, "dump", "--json", "s3://out/files/x.ndl")
    check("NDL to S3 and back", proc.returncode == 0 and back.returncode == 0 and
          np.allclose(dumped(back, "/x"), x), proc.stderr + back.stderr)

    # A family on S3: the pattern's directory listed, the members sharing one layout.
    os.makedirs(f"{tmp}/fam", exist_ok=True)
    open(f"{tmp}/fam/run.dud", "w").write("t = <i4\nv = <f8[3]\n")
    for i in range(3):
        with open(f"{tmp}/fam/run_{i:04d}.bin", "wb") as f:
            f.write(np.int32(i).tobytes() + (np.arange(3.0) * i).tobytes())
        fs.put(f"{tmp}/fam/run_{i:04d}.bin", f"out/fam/run_{i:04d}.bin")
    fs.put(f"{tmp}/fam/run.dud", "out/fam/run.dud")
    fs.put(f"{tmp}/fam/run.dud", "out/fam/other_0001.bin")  # not a member: another name
    proc = run(url, "dump", "--json", "--family", "s3://out/fam/run_*.bin", "/v")
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()] \
        if proc.returncode == 0 else []
    check("--family 's3://out/fam/run_*.bin' lists the prefix and reads every member",
          [d["file"] for d in lines] == [f"s3://out/fam/run_{i:04d}.bin" for i in range(3)] and
          all(np.array_equal(d["root"]["members"]["v"]["data"], np.arange(3.0) * i)
              for i, d in enumerate(lines)), proc.stdout[:500] + proc.stderr)
    proc = run(url, "ls", "--family", "s3://out/fam/none_*.bin")
    check("a family pattern matching no object: exit 2 naming it",
          proc.returncode == 2 and "none_*.bin" in proc.stderr, proc.stderr)

    # More than 100 MiB: a multipart upload, the object whole only when complete.
    big = np.random.default_rng(7).random(13_200_000)  # 105.6 MB
    np.save(f"{tmp}/big.npy", big)
    proc = run(url, "convert", "-q", f"{tmp}/big.npy", "s3://out/big.npy")
    check("an object over 100 MiB written", proc.returncode == 0, proc.stderr)
    if proc.returncode == 0:
        info = fs.info("out/big.npy")
        check("it went up in parts (its ETag names them)", "-" in info.get("ETag", ""), info)
        with fs.open("out/big.npy", "rb") as f:
            check("numpy reads it back whole", np.array_equal(np.load(f), big))
    os.remove(f"{tmp}/big.npy")

    # Overwriting a store with a smaller array: the old chunks it does not have are removed.
    small = np.arange(4.0)
    np.save(f"{tmp}/small.npy", small)
    proc = run(url, "convert", "-q", f"{tmp}/small.npy", "s3://out/x.zarr")
    keys = sorted(k.split("out/x.zarr/", 1)[1] for k in fs.find("out/x.zarr"))
    check("overwriting a store leaves only the new store's keys",
          proc.returncode == 0 and keys == ["c/0", "zarr.json"], keys)

    # A write that would lose an item is refused before anything of the old store goes: the
    # source's /b lies past the end of its data, and the write is not --lossy.
    np.arange(4.0).tofile(f"{tmp}/broken.bin")
    open(f"{tmp}/broken.dud", "w").write("a = <f8[4]\nb = <f8[1000]\n")
    before = len(server.requests())
    proc = run(url, "convert", "-q", f"{tmp}/broken.bin", "s3://out/x.zarr")
    touched = [r for r in server.requests()[before:]
               if r.split(" ")[0] in ("PUT", "DELETE", "POST") and "/out/x.zarr" in r]
    keys = sorted(k.split("out/x.zarr/", 1)[1] for k in fs.find("out/x.zarr", refresh=True))
    check("a write losing an item is refused naming it, the old store untouched",
          proc.returncode != 0 and "/b" in proc.stderr and not touched and
          keys == ["c/0", "zarr.json"], (proc.returncode, proc.stderr, touched, keys))

    # Zarr goes to S3 as it is encoded, with no local copy: it needs no temporary directory
    # (a file format is staged there, and says so when it cannot be).
    no_tmp = {"TMPDIR": f"{tmp}/no-such-directory"}
    proc = run(url, "convert", "-q", "--chunks", "7,8", f"{tmp}/x.bin", "s3://out/direct.zarr",
               extra_env=no_tmp)
    check("a Zarr store written to S3 without a temporary directory",
          proc.returncode == 0 and np.array_equal(
              zarr.open_group("s3://out/direct.zarr", mode="r", storage_options=opts)["x"][...],
              x), proc.stderr)
    proc = run(url, "convert", "-q", f"{tmp}/x.bin", "s3://out/files/staged.npy",
               extra_env=no_tmp)
    check("a file format without one: exit 2, TMPDIR named",
          proc.returncode == 2 and "TMPDIR" in proc.stderr and
          not fs.exists("out/files/staged.npy"), proc.stderr)


def reads_from_s3(server, fs, tmp):
    import xarray as xr
    import zarr
    url = server.url
    opts = {"key": "test", "secret": "test", "client_kwargs": {"endpoint_url": url}}
    y = np.arange(240, dtype="<i4").reshape(12, 20)
    a = zarr.create_array("s3://peer/v3.zarr", shape=y.shape, chunks=(4, 5), shards=(4, 10),
                          dtype=y.dtype, storage_options=opts)
    a[...] = y
    proc = run(url, "dump", "--json", "s3://peer/v3.zarr")
    check("dudley reads a sharded v3 array zarr 3 wrote to S3",
          proc.returncode == 0 and np.array_equal(dumped(proc, "/"), y), proc.stderr)
    b = zarr.create_array("s3://peer/v2.zarr", shape=y.shape, chunks=(5, 5), dtype="<f8",
                          zarr_format=2, storage_options=opts)
    b[...] = y * 0.5
    proc = run(url, "dump", "--json", "s3://peer/v2.zarr")
    check("dudley reads a v2 array zarr 3 wrote to S3",
          proc.returncode == 0 and np.array_equal(dumped(proc, "/"), y * 0.5), proc.stderr)
    ds = xr.Dataset({"p": (("t", "x"), np.arange(12.0).reshape(3, 4))},
                    coords={"t": [10, 20, 30]})
    ds.to_zarr("s3://peer/xr.zarr", storage_options=opts, mode="w")
    proc = run(url, "dump", "--json", "s3://peer/xr.zarr")
    check("dudley reads a dataset xarray wrote to S3",
          proc.returncode == 0 and np.array_equal(dumped(proc, "/p"), ds["p"].values) and
          np.array_equal(dumped(proc, "/t"), [10, 20, 30]), proc.stderr)


def asdf_external_blocks(server, fs, tmp):
    """ASDF arrays whose blocks are in other files beside the main one (python asdf's
    external array storage) read from S3 through the same bucket and credentials."""
    import asdf
    os.makedirs(f"{tmp}/ext", exist_ok=True)
    a, b = np.arange(12.0).reshape(3, 4), np.arange(5, dtype="<i2")
    af = asdf.AsdfFile({"a": a, "b": b})
    af.set_array_storage(a, "external")
    af.set_array_storage(b, "external")
    af.write_to(f"{tmp}/ext/main.asdf")
    files = sorted(os.listdir(f"{tmp}/ext"))
    for name in files:
        fs.put(f"{tmp}/ext/{name}", f"out/ext/{name}")
    proc = run(server.url, "dump", "--json", "s3://out/ext/main.asdf")
    check("ASDF arrays in external files beside the main one, read from S3",
          len(files) == 3 and proc.returncode == 0 and np.array_equal(dumped(proc, "/a"), a) and
          np.array_equal(dumped(proc, "/b"), b), (files, proc.stderr))
    # A source climbing out of the main file's directory is refused by name.
    text = open(f"{tmp}/ext/main.asdf", "rb").read()
    first = [n for n in files if n != "main.asdf"][0]
    fs.pipe("out/ext/sub/escape.asdf", text.replace(first.encode(), b"../" + first.encode()))
    proc = run(server.url, "dump", "--json", "s3://out/ext/sub/escape.asdf")
    check("an external source outside the main file's directory: refused, named",
          proc.returncode != 0 and "outside the directory" in proc.stderr, proc.stderr)


def faults(server, fs, tmp):
    x = np.sin(np.arange(600, dtype="<f8") / 7).reshape(20, 30)

    # 503 SlowDown on every third request: retried with backoff, then right.
    with FaultProxy(server.port, lambda m, p, n: "503" if n % 3 == 0 else None) as proxy:
        proc = run(proxy.url, "convert", "-q", "--chunks", "5,5", f"{tmp}/x.bin",
                   "s3://out/slow.zarr")
        check("a write through 503 SlowDown on a third of the requests succeeds",
              proc.returncode == 0, proc.stderr)
        proc = run(proxy.url, "dump", "--json", "s3://out/slow.zarr")
        check("and reads back right through them",
              proc.returncode == 0 and np.array_equal(dumped(proc, "/x"), x), proc.stderr)
        check("SlowDown was injected", len(proxy.faults) >= 10, len(proxy.faults))

    # A connection reset halfway through the first answer for each chunk.
    reset_once = set()

    def reset_chunks(method, path, n):
        if method != "GET" or "/c/" not in path or path in reset_once:
            return None
        reset_once.add(path)
        return "reset"
    with FaultProxy(server.port, reset_chunks) as proxy:
        proc = run(proxy.url, "dump", "--json", "s3://out/slow.zarr")
        check("connections reset mid-answer: retried, the right values",
              proc.returncode == 0 and np.array_equal(dumped(proc, "/x"), x), proc.stderr)
        check("resets were injected", len(proxy.faults) >= 5, len(proxy.faults))

    # A long upload on a terminal shows its progress, after the local write's.
    np.save(f"{tmp}/mid.npy", np.arange(2_500_000.0))  # 20 MB: 3 parts of 8 MiB
    with FaultProxy(server.port, lambda m, p, n: "slow" if "partNumber=" in p else None) \
            as proxy:
        env = dict(ENV, DUDLEY_S3_MULTIPART_FROM=str(8 << 20))
        command = (f"{DUDLEY} convert --endpoint-url {proxy.url} {tmp}/mid.npy "
                   "s3://out/mid.npy")
        proc = subprocess.run(["script", "-qec", command, "/dev/null"], capture_output=True,
                              text=True, env=env, timeout=120)
        screen = proc.stdout.replace("\r", "\n")
        check("on a terminal, an upload's progress bar names it and ends its line",
              proc.returncode == 0 and "uploading  [" in screen and
              "\nwrote s3://out/mid.npy" in screen, screen[-800:])

    # Every request for the second part of a multipart upload fails: the upload is aborted.
    def fail_part_2(method, path, n):
        return "500" if method == "PUT" and "partNumber=2&" in path else None
    big = np.random.default_rng(3).random(3_000_000)  # 24 MB: 3 parts of 8 MiB
    np.save(f"{tmp}/mid.npy", big)
    with FaultProxy(server.port, fail_part_2) as proxy:
        proc = run(proxy.url, "convert", "-q", f"{tmp}/mid.npy", "s3://out/failed.npy",
                   extra_env={"DUDLEY_S3_MULTIPART_FROM": str(16 << 20)})
    uploads = fs.call_s3("list_multipart_uploads", Bucket="out").get("Uploads", [])
    check("an upload whose part keeps failing: exit 2 naming the object and S3's error",
          proc.returncode == 2 and "failed.npy" in proc.stderr and "InternalError" in proc.stderr,
          proc.stderr)
    check("it leaves no object", not fs.exists("out/failed.npy"))
    check("and no multipart upload behind", not any(u["Key"] == "failed.npy" for u in uploads),
          uploads)

    # A store whose chunks cannot all be written: no metadata, and its chunks removed.
    def fail_some_chunks(method, path, n):
        return "500" if method == "PUT" and "/c/3/" in path else None
    with FaultProxy(server.port, fail_some_chunks) as proxy:
        proc = run(proxy.url, "convert", "-q", "--chunks", "5,5", f"{tmp}/x.bin",
                   "s3://out/partial.zarr")
    fs.invalidate_cache()
    left = fs.find("out/partial.zarr")
    check("a store whose chunks fail: exit 2, nothing of it left",
          proc.returncode == 2 and left == [], f"{proc.returncode} {proc.stderr} {left}")


def main():
    import s3fs
    with tempfile.TemporaryDirectory() as tmp:
        with MotoServer(tmp, program=MOTO) as server:
            fs = s3fs.S3FileSystem(key="test", secret="test",
                                   client_kwargs={"endpoint_url": server.url})
            fs.mkdir("out")
            fs.mkdir("peer")
            for part in (writes_to_s3, reads_from_s3, asdf_external_blocks, faults):
                try:
                    part(server, fs, tmp)
                except Exception as e:  # noqa: BLE001 - one part's crash is a failure, not the end
                    import traceback
                    check(part.__name__, False, traceback.format_exc())
                fs.invalidate_cache()
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
