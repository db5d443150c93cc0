#!/usr/bin/python3
"""Zarr stores read from a web server: nginx (Debian's), started here on 127.0.0.1 with a
configuration of its own and always stopped, serves stores that dudley wrote; ls and dump
over HTTP give what they give locally (checked against numpy), in text and --json; a missing
store (exit 1), a server error or no server (exit 2: could not read), a body that is not the
chunk (exit 1) and a redirect (followed) are handled as a user needs, naming the URL.

Usage: zarr_http_test.py DUDLEY
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nginx_server import NginxServer, free_port  # noqa: E402

DUDLEY = os.path.abspath(sys.argv[1])
# The ASan build: twice in full `make test` runs (never alone, never under plain CPU load)
# libcurl carried all 60 transfers of a batch on one connection; the release build asserts
# the count of connections, this one prints it.
SANITIZED = "--sanitized" in sys.argv[2:]
failures = []
checked = 0


def check(name, ok, detail=""):
    global checked
    checked += 1
    if not ok:
        failures.append(f"{name}: {detail}")


def run(*args):
    return subprocess.run([DUDLEY, *args], capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        www = os.path.join(tmp, "www")
        os.makedirs(www)
        x = np.sin(np.arange(600, dtype="<f8") / 7).reshape(20, 30)
        x.tofile(f"{tmp}/x.bin")
        open(f"{tmp}/x.dud", "w").write("x = <f8[20, 30]\n")
        for name, options in (("v3.zarr", ["--crc32c", "--chunks", "7,8"]),
                              ("sharded.zarr", ["--shards", "10,30", "--chunks", "5,10"]),
                              ("many.zarr", ["--chunks", "2,5"]),
                              ("nocons.zarr", ["--no-consolidated"]),
                              ("v2.zarr", ["--zarr-format", "2", "--chunks", "6,6"])):
            proc = run("convert", "-q", *options, f"{tmp}/x.bin", f"{www}/{name}")
            check(f"write {name}", proc.returncode == 0, proc.stderr)
        # Groups listed over HTTP from consolidated metadata: a v2 store consolidated by
        # python3-zarr, and a v3 store whose root zarr.json holds its members' metadata.
        import zarr
        g = zarr.open_group(f"{www}/cons_v2.zarr", mode="w")
        g.create_group("sub").create_dataset("y", data=np.arange(12, dtype="<i4").reshape(3, 4),
                                             chunks=(2, 2))
        g.create_dataset("z", data=np.linspace(0, 1, 5))
        zarr.consolidate_metadata(f"{www}/cons_v2.zarr")
        proc = run("convert", "-q", "--chunks", "7,8", f"{tmp}/x.bin", f"{www}/cons_v3.zarr")
        check("write cons_v3.zarr", proc.returncode == 0, proc.stderr)
        root = json.load(open(f"{www}/cons_v3.zarr/zarr.json"))
        root["consolidated_metadata"] = {
            "kind": "inline", "must_understand": False,
            "metadata": {"x": json.load(open(f"{www}/cons_v3.zarr/x/zarr.json"))}}
        json.dump(root, open(f"{www}/cons_v3.zarr/zarr.json", "w"))
        locations = """location /moved/ { rewrite ^/moved/(.*)$ /$1 redirect; }
    location = /broken.zarr/zarr.json { return 500; }
    location = /v3.zarr/x/c/1/1 { return 200 "not a chunk"; }"""
        np.save(f"{www}/x.npy", x)  # a file of another format, read by byte ranges
        # Every other format, written by its reference library where there is one.
        import asdf
        import h5py
        import netCDF4
        with h5py.File(f"{www}/x.h5", "w") as f:
            f.create_dataset("x", data=x, chunks=(5, 10), compression="gzip")
        for name, form in (("x4.nc", "NETCDF4"), ("x3.nc", "NETCDF3_CLASSIC")):
            with netCDF4.Dataset(f"{www}/{name}", "w", format=form) as nc:
                nc.createDimension("r", 20)
                nc.createDimension("c", 30)
                nc.createVariable("x", "f8", ("r", "c"))[:] = x
        asdf.AsdfFile({"x": x}).write_to(f"{www}/x.asdf")
        os.chmod(f"{www}/x.asdf", 0o644)  # python-asdf makes it 0600: nginx's worker reads it
        for name in ("x.bin", "x.ndl", "x.avro"):
            proc = run("convert", "-q", f"{tmp}/x.bin", f"{www}/{name}")
            check(f"write {name}", proc.returncode == 0, proc.stderr)
        with NginxServer(www, tmp, locations, access_log=True) as server:
            base = server.url
            proc = run("dump", "--json", f"{base}/x.npy", "/[3, 4:9]")
            ok = proc.returncode == 0 and np.array_equal(
                np.array(json.loads(proc.stdout)["root"]["selections"]["[3, 4:9]"]["data"]), x[3, 4:9])
            check("an .npy file over HTTP", ok, proc.stdout[:300] + proc.stderr)
            for name in ("x.h5", "x4.nc", "x3.nc", "x.asdf", "x.bin", "x.ndl", "x.avro"):
                proc = run("dump", "--json", f"{base}/{name}")
                ok = proc.returncode == 0
                if ok:
                    doc = json.loads(proc.stdout)["root"]
                    # Avro keeps records as a list of ndarray records: its one array is /0.
                    node = doc["members"]["x"] if "x" in doc.get("members", {}) else \
                        doc["items"][0] if "items" in doc else doc
                    ok = np.array_equal(np.array(node.get("data")), x)
                check(f"{name} over HTTP matches numpy", ok, proc.stdout[:300] + proc.stderr)
            proc = run("convert", "-q", f"{tmp}/x.bin", f"{base}/out.npy")
            check("writing to a web server: refused (exit 2), saying it is read only",
                  proc.returncode == 2 and "read only" in proc.stderr, proc.stderr)
            for name in ("v3.zarr", "v2.zarr"):
                url = f"{base}/{name}/x"
                proc = run("ls", url)
                check(f"ls {name} over HTTP", proc.returncode == 0 and "array <f8 [20, 30]" in proc.stdout,
                      proc.stdout + proc.stderr)
                selection = "[::-3, 2:29:5]" if name == "v2.zarr" else "[0:6, 0:7]"
                proc = run("dump", "--json", url, "/" + selection)
                ok = proc.returncode == 0
                if ok:
                    got = json.loads(proc.stdout)["root"]["selections"][selection]["data"]
                    want = x[::-3, 2:29:5] if name == "v2.zarr" else x[0:6, 0:7]
                    ok = np.array_equal(np.array(got), want)
                check(f"dump --json {name} over HTTP matches numpy", ok, proc.stdout[:300] + proc.stderr)
            # One element of a sharded array: the shard's index and one inner chunk, no more.
            server.requests()
            proc = run("dump", f"{base}/sharded.zarr/x", "/[13, 17]")
            check("one element of a sharded array over HTTP",
                  proc.returncode == 0 and proc.stdout.strip() == f"/[13, 17] = {x[13, 17]!r}",
                  proc.stdout + proc.stderr)
            sent = [(r.line, r.bytes, r.range) for r in server.requests() if "/x/c/" in r.line]
            index = 16 * 2 * 3 + 4
            with open(f"{www}/sharded.zarr/x/c/1/0", "rb") as f:
                f.seek(-index, os.SEEK_END)
                entries = np.frombuffer(f.read(index)[:-4], "<u8")
            start, length = (int(v) for v in entries[2 * 1:2 * 1 + 2])  # inner chunk (0, 1) of shard (1, 0)
            size = os.path.getsize(f"{www}/sharded.zarr/x/c/1/0")
            ranges = sorted(g for r, b, g in sent if "/sharded.zarr/x/c/1/0 " in r and g != "-")
            # The index as the shard's last bytes (a suffix range: no HEAD to size it first).
            check("fetches the index and one inner chunk by their byte ranges, nothing else",
                  sum(b for _, b, _ in sent) == index + length and len(sent) == 2 and
                  all(r.startswith("GET ") for r, _, _ in sent) and
                  ranges == sorted([f"bytes={start}-{start + length - 1}", f"bytes=-{index}"]),
                  str(sent))
            check("the shard's size is its own", size > index, str(size))
            # Many chunks: fetched many at once (HTTP/1.1 has one transfer per connection, so
            # transfers in flight together come on connections of their own), and each chunk
            # with one GET, its size not asked first.
            # libcurl decides when a transfer opens a connection of its own: the release build
            # is given up to three reads to show several (values checked each time); see
            # SANITIZED for the ASan build.
            for attempt in range(1 if SANITIZED else 3):
                server.requests()
                proc = run("dump", "--json", f"{base}/many.zarr/x")
                ok = proc.returncode == 0 and np.array_equal(
                    np.array(json.loads(proc.stdout)["root"]["data"]), x)
                check("a store of many chunks reads over HTTP", ok, proc.stderr)
                chunks = [r for r in server.requests() if "/many.zarr/x/c/" in r.line]
                if len({r.connection for r in chunks}) > 4:
                    break
            check("one GET per chunk", len(chunks) == 60 and all(r.line.startswith("GET") for r in chunks),
                  str(chunks[:4]))
            connections = sorted({r.connection for r in chunks})
            if SANITIZED:
                print(f"(sanitized build: {len(connections)} connections for 60 chunks)")
            else:
                check("several chunks in flight at once", len(connections) > 4, str(connections))
            proc = run("ls", f"{base}/cons_v2.zarr")
            check("a consolidated v2 store lists its groups over HTTP",
                  proc.returncode == 0 and "/sub/y" in proc.stdout and "/z " in proc.stdout,
                  proc.stdout + proc.stderr)
            proc = run("dump", "--json", f"{base}/cons_v2.zarr", "/sub/y[1]")
            ok = proc.returncode == 0 and json.loads(proc.stdout)["root"]["members"]["sub"][
                "members"]["y"]["selections"]["[1]"]["data"] == [4, 5, 6, 7]
            check("and reads their chunks", ok, proc.stdout[:300] + proc.stderr)
            proc = run("dump", f"{base}/cons_v3.zarr", "/x[19, 29]")
            check("a consolidated v3 store lists and reads over HTTP",
                  proc.returncode == 0 and str(x[19, 29]) in proc.stdout, proc.stdout + proc.stderr)
            proc = run("ls", f"{base}/v3.zarr")
            check("a store we wrote lists whole over HTTP (its consolidated metadata)",
                  proc.returncode == 0 and proc.stdout.count("\n") == 2 and "/x " in proc.stdout,
                  proc.stdout + proc.stderr)
            proc = run("ls", f"{base}/nocons.zarr")
            check("an unconsolidated store shows its root only (a server lists nothing)",
                  proc.returncode == 0 and proc.stdout.count("\n") == 1, proc.stdout)
            proc = run("dump", f"{base}/moved/v2.zarr/x", "/[1, 2]")
            check("a redirect is followed", proc.returncode == 0 and str(x[1, 2]) in proc.stdout,
                  proc.stdout + proc.stderr)
            proc = run("ls", f"{base}/nothere.zarr")
            check("a missing store exits 1 naming the URL",
                  proc.returncode == 1 and f"{base}/nothere.zarr/zarr.json" in proc.stderr, proc.stderr)
            proc = run("ls", "--json", f"{base}/broken.zarr")
            check("a server error exits 2 (the store could not be read)", proc.returncode == 2, proc.stderr)
            check("and --json says HTTP 500", "HTTP 500" in proc.stdout, proc.stdout)
            proc = run("dump", f"{base}/v3.zarr/x")
            check("a body that is not the chunk fails naming it",
                  proc.returncode == 1 and "v3.zarr/x/c/1/1" in proc.stderr, proc.stderr)
            proc = run("ls", f"http://127.0.0.1:{free_port()}/none.zarr")
            check("no server there: exit 2", proc.returncode == 2 and "cannot fetch" in proc.stderr,
                  proc.stderr)
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        sys.exit(1)
    print(f"zarr over http: {checked} checks passed")


main()
