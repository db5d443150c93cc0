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

DUDLEY = os.path.abspath(sys.argv[1])
failures = []
checked = 0


def check(name, ok, detail=""):
    global checked
    checked += 1
    if not ok:
        failures.append(f"{name}: {detail}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(*args):
    return subprocess.run([DUDLEY, *args], capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # nginx's workers run as another user
        www = os.path.join(tmp, "www")
        os.makedirs(www)
        x = np.sin(np.arange(600, dtype="<f8") / 7).reshape(20, 30)
        x.tofile(f"{tmp}/x.bin")
        open(f"{tmp}/x.dud", "w").write("x = <f8[20, 30]\n")
        for name, options in (("v3.zarr", ["--crc32c", "--chunks", "7,8"]),
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
        port = free_port()
        conf = os.path.join(tmp, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""daemon off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log;
events {{ worker_connections 64; }}
http {{
  access_log off;
  client_body_temp_path {tmp}/body; proxy_temp_path {tmp}/proxy; fastcgi_temp_path {tmp}/fcgi;
  uwsgi_temp_path {tmp}/uwsgi; scgi_temp_path {tmp}/scgi;
  server {{
    listen 127.0.0.1:{port};
    root {www};
    location /moved/ {{ rewrite ^/moved/(.*)$ /$1 redirect; }}
    location = /broken.zarr/zarr.json {{ return 500; }}
    location = /v3.zarr/x/c/1/1 {{ return 200 "not a chunk"; }}
  }}
}}
""")
        server = subprocess.Popen(["nginx", "-c", conf, "-p", tmp, "-e", f"{tmp}/error.log"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                    break
                except OSError:
                    time.sleep(0.05)
            base = f"http://127.0.0.1:{port}"
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
        finally:
            server.terminate()
            server.wait(timeout=10)
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        sys.exit(1)
    print(f"zarr over http: {checked} checks passed")


main()
