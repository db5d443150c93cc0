"""Stores in an S3 object store, read through dudley: moto's S3 server (PyPI, pinned) on
127.0.0.1, started here and always stopped. Zarr stores written by python3-zarr (v2) and by
dudley (v3, sharded) are uploaded with boto3 and read back with ls and dump, in text and
--json, checked against numpy; a one-element read of a sharded array costs its shard's index
and one inner chunk; a listing crosses pages (10,000 keys); credentials come from the
environment or a profile file; a missing bucket, a missing store, unknown credentials and a
missing profile each fail with the exit status and message a user needs.

Usage: s3_test.py DUDLEY   (run by .venv-s3/bin/python: moto and boto3 come from PyPI)
"""
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from moto_server import MotoServer, tool_environment  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import Checks  # noqa: E402

DUDLEY = os.path.abspath(sys.argv[1])
check = Checks()
# Credentials in the environment unless a check says otherwise; no profile of the user's.
BASE_ENV = tool_environment()


def run(*args, env=None):
    return subprocess.run([DUDLEY, *args], capture_output=True, text=True,
                          env=env if env is not None else BASE_ENV)


def upload(s3, bucket, local, prefix):
    """Every file under `local` as bucket/prefix/RELATIVE."""
    jobs = []
    for root, _, files in os.walk(local):
        for f in files:
            path = os.path.join(root, f)
            jobs.append((path, f"{prefix}/{os.path.relpath(path, local)}"))
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda j: s3.upload_file(j[0], bucket, j[1]), jobs))


def node(doc, path):
    """The node at `path` ("/a/b", "/" the root) of an ls or dump --json output."""
    n = doc["root"]
    for part in [p for p in path.split("/") if p]:
        n = n["members"][part]
    return n


def dumped(proc, path, selection=None):
    """The values of `path` (or of its `selection`) in a `dump --json` output."""
    n = node(json.loads(proc.stdout), path)
    return np.array(n["selections"][selection]["data"] if selection else n["data"])


def main():
    import zarr
    with tempfile.TemporaryDirectory() as tmp:
        x = np.sin(np.arange(600, dtype="<f8") / 7).reshape(20, 30)
        x.tofile(f"{tmp}/x.bin")
        open(f"{tmp}/x.dud", "w").write("x = <f8[20, 30]\n")
        for name, options in (("v3.zarr", ["--chunks", "7,8"]),
                              ("sharded.zarr", ["--shards", "10,30", "--chunks", "5,10"])):
            proc = run("convert", "-q", *options, f"{tmp}/x.bin", f"{tmp}/{name}")
            check(f"write {name}", proc.returncode == 0, proc.stderr)
        g = zarr.open_group(f"{tmp}/peer_v2.zarr", mode="w")  # python3-zarr, not consolidated
        y = np.arange(12, dtype="<i4").reshape(3, 4)
        g.create_group("sub").create_dataset("y", data=y, chunks=(2, 2))
        g.create_dataset("z", data=np.linspace(0, 1, 5))
        g.attrs["title"] = "from zarr"
        # An array whose prefix holds 10,000 other keys besides its chunks: listing it
        # (its stored chunks) walks ten pages of ListObjectsV2.
        many = zarr.open(f"{tmp}/many.zarr", mode="w", shape=(4, 4), chunks=(2, 2), dtype="<i2")
        many[:] = np.arange(16, dtype="<i2").reshape(4, 4)

        # Files of other formats, written by their reference implementations.
        big = np.arange(300_000, dtype="<f4").reshape(600, 500)  # larger than a cache block
        np.save(f"{tmp}/a.npy", big)
        # python3-asdf under Debian's interpreter (moto's jsonschema in .venv-s3 is not its own).
        subprocess.run(["/usr/bin/python3", "-c",
                        "import asdf, numpy as np, sys; asdf.AsdfFile({'t': np.arange(10, dtype='>i8'), "
                        "'s': {'u': np.arange(12, dtype='<i4').reshape(3, 4)}}).write_to(sys.argv[1])",
                        f"{tmp}/a.asdf"], check=True)
        import netCDF4
        with netCDF4.Dataset(f"{tmp}/a.nc", "w", format="NETCDF3_CLASSIC") as nc:
            nc.createDimension("r", 3)
            nc.createDimension("c", 4)
            v = nc.createVariable("v", "f8", ("r", "c"))
            v[:] = y * 1.5
            v.units = "m"
        files = {"a.npy": ("/", big), "a.asdf": ("/s/u", y), "a.nc": ("/v", y * 1.5)}
        # HDF5 and netCDF-4 files by their libraries: 1,000 small arrays in 10 groups, a
        # chunked compressed one, and an external link (not followed from a URL).
        import h5py
        with h5py.File(f"{tmp}/many.h5", "w") as f:
            for i in range(1000):
                f.create_dataset(f"g{i % 10}/d{i}", data=np.arange(i % 7 + 1, dtype="<f8") * i)
            f.create_dataset("big", data=np.arange(200_000, dtype="<i4"), chunks=(10_000,),
                             compression="gzip")
            f["outside"] = h5py.ExternalLink("other.h5", "/x")
        with netCDF4.Dataset(f"{tmp}/b.nc", "w", format="NETCDF4") as nc:
            nc.createDimension("r", 3)
            nc.createDimension("c", 4)
            v = nc.createVariable("v", "f4", ("r", "c"), zlib=True)
            v[:] = y * 2.5

        with MotoServer(tmp) as server:
            s3 = server.client()
            s3.create_bucket(Bucket="data")
            for name in list(files) + ["many.h5", "b.nc"]:
                s3.upload_file(f"{tmp}/{name}", "data", f"files/{name}")
            # Real netCDF classic files other projects wrote (tests/data/realworld/SOURCES.md).
            realworld = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                                     "realworld")
            classic = ("CRM032_test1.nc", "netcdf_dummy_file.nc", "ubyte.nc")
            for name in classic:
                s3.upload_file(os.path.join(realworld, name), "data", f"real/{name}")
            for name in ("v3.zarr", "sharded.zarr", "peer_v2.zarr", "many.zarr"):
                upload(s3, "data", f"{tmp}/{name}", f"stores/{name}")
            with ThreadPoolExecutor(16) as pool:
                list(pool.map(lambda i: s3.put_object(Bucket="data", Key=f"stores/many.zarr/extra/{i:05d}",
                                                      Body=b"-"), range(10_000)))
            endpoint = ["--endpoint-url", server.url]

            # ls and dump, text and JSON, against numpy.
            proc = run("ls", *endpoint, "s3://data/stores/v3.zarr")
            check("ls v3 from S3", proc.returncode == 0 and "array <f8 [20, 30]" in proc.stdout,
                  proc.stdout + proc.stderr)
            proc = run("dump", "--json", *endpoint, "s3://data/stores/v3.zarr", "/x")
            check("dump v3 from S3", proc.returncode == 0 and np.array_equal(dumped(proc, "/x"), x),
                  proc.stderr)
            proc = run("ls", "--json", *endpoint, "s3://data/stores/peer_v2.zarr")
            ok = proc.returncode == 0
            if ok:
                doc = json.loads(proc.stdout)
                ok = (node(doc, "/sub/y")["shape"] == [3, 4] and node(doc, "/z")["shape"] == [5]
                      and doc["root"]["attributes"]["title"] == "from zarr")
            check("ls --json of python3-zarr's v2 group from S3 (listed, not consolidated)", ok,
                  proc.stdout[:500] + proc.stderr)
            proc = run("dump", "--json", *endpoint, "s3://data/stores/peer_v2.zarr", "/sub/y")
            check("dump python3-zarr's v2 array from S3",
                  proc.returncode == 0 and np.array_equal(dumped(proc, "/sub/y"), y), proc.stderr)

            # Files of other formats: one object each, read by byte ranges.
            for name, (path, want) in files.items():
                before = len(server.requests())
                proc = run("dump", "--json", *endpoint, f"s3://data/files/{name}", path)
                sent = server.requests()[before:]
                check(f"dump {name} from S3 matches its writer's values",
                      proc.returncode == 0 and np.array_equal(dumped(proc, path), want),
                      proc.stdout[:300] + proc.stderr)
                check(f"{name}: a few requests, not one per field",
                      len(sent) <= 6, "\n".join(sent))
            # The same dump from S3 as from the file here (whose reading the netCDF peer tests
            # check), values and attributes alike.
            for name in classic:
                remote = run("dump", "--json", *endpoint, f"s3://data/real/{name}")
                local = run("dump", "--json", os.path.join(realworld, name))
                same = remote.returncode == local.returncode == 0 and \
                    json.loads(remote.stdout)["root"] == json.loads(local.stdout)["root"]
                check(f"real file {name} from S3 dumps as it does here", same,
                      remote.stderr + local.stderr)
            proc = run("dump", "--json", *endpoint, "s3://data/files/a.npy", "/[599, 490:]")
            check("a selection of an .npy file from S3",
                  proc.returncode == 0 and np.array_equal(dumped(proc, "/", "[599, 490:]"), big[599, 490:]),
                  proc.stdout[:300] + proc.stderr)
            proc = run("ls", *endpoint, "s3://data/files/missing.npy")
            check("a missing object: exit 2 naming it",
                  proc.returncode == 2 and "s3://data/files/missing.npy" in proc.stderr, proc.stderr)
            # HDF5 through the store driver: the metadata by ranges, not the whole file.
            before = len(server.requests())
            proc = run("ls", "--json", *endpoint, "s3://data/files/many.h5")
            got = server.requests()[before:]
            # Exit 1 for the one item that cannot be read, the external link /outside (named,
            # and nothing else); every array listed. Exit 2 (not read) or a crash fails.
            ok = (proc.returncode == 1 and proc.stderr.count("error:") == 1 and
                  "/outside: an external link" in proc.stderr)
            if ok:
                doc = json.loads(proc.stdout)
                ok = all(f"d{i}" in node(doc, f"/g{i % 10}")["members"] for i in range(1000))
            check("ls of an HDF5 file of 1,000 arrays from S3 lists them all", ok,
                  proc.stdout[:300] + proc.stderr)
            check("in a few ranged requests (the metadata, not the file)",
                  len(got) <= 12, "\n".join(got))
            proc = run("dump", "--json", *endpoint, "s3://data/files/many.h5", "/g7/d997", "/big")
            check("dump of HDF5 arrays from S3 (one chunked, compressed)", proc.returncode == 0 and
                  np.array_equal(dumped(proc, "/g7/d997"), np.arange(997 % 7 + 1) * 997.0) and
                  np.array_equal(dumped(proc, "/big"), np.arange(200_000)),
                  f"exit {proc.returncode}: {proc.stderr} {proc.stdout[:400]}")
            proc = run("dump", *endpoint, "s3://data/files/many.h5", "/outside")
            check("an external link in a file on S3: not followed, said, exit non-zero",
                  proc.returncode != 0 and "external link" in proc.stderr, proc.stderr)
            proc = run("dump", "--json", *endpoint, "s3://data/files/b.nc", "/v")
            check("a netCDF-4 file from S3", proc.returncode == 0 and
                  np.array_equal(dumped(proc, "/v"), y * 2.5), proc.stderr)

            # One element of a sharded array: the metadata, then the shard's index and one
            # inner chunk (two requests).
            before = len(server.requests())
            proc = run("dump", "--json", *endpoint, "s3://data/stores/sharded.zarr", "/x[13, 17]")
            got = server.requests()[before:]
            data_requests = [r for r in got if "zarr.json" not in r and "list-type" not in r]
            check("one element of a sharded array from S3",
                  proc.returncode == 0 and float(dumped(proc, "/x", "[13, 17]")) == x[13, 17],
                  proc.stdout + proc.stderr)
            check("that element costs at most 2 requests after the metadata",
                  len(data_requests) <= 2, "\n".join(got))

            # A listing of many pages: convert lists the array's stored chunks (10,000 other
            # keys beside them) to copy only those.
            before = len(server.requests())
            proc = run("convert", "-q", *endpoint, "s3://data/stores/many.zarr", f"{tmp}/copy.zarr")
            pages = [r for r in server.requests()[before:] if "list-type=2" in r]
            copied = run("dump", "--json", f"{tmp}/copy.zarr")
            check("convert from S3: an array among 10,000 other keys",
                  proc.returncode == 0 and copied.returncode == 0 and
                  np.array_equal(dumped(copied, "/"), np.arange(16).reshape(4, 4)),
                  proc.stderr + copied.stderr)
            check("its listing walked every page", len(pages) >= 10, f"{len(pages)} listing requests")

            # Credentials from a profile file instead of the environment.
            creds = os.path.join(tmp, "credentials")
            open(creds, "w").write("[dev]\naws_access_key_id = test\naws_secret_access_key = test\n")
            env = {k: v for k, v in BASE_ENV.items() if not k.startswith("AWS_ACCESS")
                   and not k.startswith("AWS_SECRET")}
            env.update(AWS_SHARED_CREDENTIALS_FILE=creds, AWS_PROFILE="dev",
                       AWS_ENDPOINT_URL=server.url)
            proc = run("ls", "s3://data/stores/v3.zarr", env=env)
            check("credentials of a profile, endpoint from AWS_ENDPOINT_URL",
                  proc.returncode == 0 and "[20, 30]" in proc.stdout, proc.stderr)
            proc = run("ls", "--profile", "nosuch", "s3://data/stores/v3.zarr", env=env)
            check("a profile found nowhere: exit 2 naming it",
                  proc.returncode == 2 and "profile nosuch" in proc.stderr, proc.stderr)
            s3.create_bucket(Bucket="open", ACL="public-read")
            for key in ("zarr.json", "x/zarr.json", "x/c/0/0"):
                s3.upload_file(f"{tmp}/v3.zarr/{key}" if key != "x/c/0/0" else f"{tmp}/v3.zarr/x/c/0/0",
                               "open", f"v3.zarr/{key}", ExtraArgs={"ACL": "public-read"})
            proc = run("dump", "--json", "--no-sign-request", *endpoint, "s3://open/v3.zarr", "/x[0:7, 0:8]")
            check("--no-sign-request reads a public bucket",
                  proc.returncode == 0 and np.array_equal(dumped(proc, "/x", "[0:7, 0:8]"), x[0:7, 0:8]),
                  proc.stdout[:300] + proc.stderr)

            # What cannot be read says why.
            proc = run("ls", *endpoint, "s3://nosuchbucket/x.zarr")
            check("a missing bucket: exit 2, NoSuchBucket, the bucket named",
                  proc.returncode == 2 and "NoSuchBucket" in proc.stderr and
                  "s3://nosuchbucket" in proc.stderr, proc.stderr)
            proc = run("ls", "--json", *endpoint, "s3://data/stores/none.zarr")
            err = json.loads(proc.stdout).get("error", {}) if proc.stdout else {}
            check("a missing store: exit 1, its zarr.json named",
                  proc.returncode == 1 and err.get("file") == "s3://data/stores/none.zarr/zarr.json",
                  proc.stdout + proc.stderr)
            proc = run("ls", "--endpoint-url", "http://127.0.0.1:1", "s3://data/x.zarr")
            check("no server: exit 2", proc.returncode == 2 and "127.0.0.1" in proc.stderr,
                  proc.stderr)

        # A server that checks credentials: unknown keys are refused, and the message says
        # what S3 said and where the credentials came from.
        with MotoServer(tmp, require_auth=True) as server:
            proc = run("ls", "--endpoint-url", server.url, "s3://data/stores/v3.zarr")
            check("unknown credentials: exit 2, S3's code, where they came from",
                  proc.returncode == 2 and "InvalidAccessKeyId" in proc.stderr and
                  "AWS_ACCESS_KEY_ID" in proc.stderr, proc.stderr)

    return check.report()


if __name__ == "__main__":
    sys.exit(main())
