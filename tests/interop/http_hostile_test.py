#!/usr/bin/python3
"""Misbehaving web servers, run here on 127.0.0.1 (each started by this test and always
stopped): every request keeps to its bounds, and a command ends with an error naming the URL
and the bound it met (text and --json, exit 2: could not read), never a hang.

- a server that drips zarr.json a byte every 2 s: --http-timeout ends the request; with no
  option, the speed floor (1 KiB/s over 20 s) ends it;
- a server that accepts connections and never answers: --http-timeout ends it;
- a server that answers every chunk slowly: --http-deadline ends the whole command;
- a server that answers 503 twice, then the data: read (tried 3 times, with backoff);
- a server that always answers 503: an error after 3 tries, quickly;
- DUDLEY_HTTP_TIMEOUT in the environment, and a bad value of it or of the options.

Usage: http_hostile_test.py DUDLEY
"""
import http.server
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import Checks  # noqa: E402

DUDLEY = os.path.abspath(sys.argv[1])
check = Checks()


def run(*args, env=None, timeout=60):
    start = time.monotonic()
    proc = subprocess.run([DUDLEY, *args], capture_output=True, text=True, timeout=timeout,
                          env=env)
    took = time.monotonic() - start
    print(f"{took:5.1f} s  dudley {' '.join(args)}", flush=True)
    return proc, took


class Handler(http.server.BaseHTTPRequestHandler):
    """Serves the files of `server.root` as nginx would (GET, HEAD, Range), misbehaving as
    the path's first component says: /drip/, /slow/, /flaky/, /down/, /ok/."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.answer(body=False)

    def do_GET(self):
        self.answer(body=True)

    def answer(self, body):
        mode, _, rest = self.path.lstrip("/").partition("/")
        path = os.path.join(self.server.root, rest)
        if mode == "flaky":
            with self.server.lock:
                self.server.flaky_count[rest] = self.server.flaky_count.get(rest, 0) + 1
                fail = self.server.flaky_count[rest] <= 2
            if fail:
                return self.status(503)
        if mode == "down":
            return self.status(503)
        if not os.path.isfile(path):
            return self.status(404)
        data = open(path, "rb").read()
        code = 200
        if "Range" in self.headers:
            first, last = self.headers["Range"].split("=")[1].split("-")
            data = data[int(first):int(last) + 1]
            code = 206
        # Slow chunks, prompt metadata: the chunks are read in parallel, so each takes longer
        # than the whole deadline the test gives.
        if mode == "slow" and not os.path.basename(path).startswith((".z", "zarr.json")):
            time.sleep(2.0)
        self.send_response(code)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if not body:
            return
        if mode == "drip":
            for i in range(len(data)):
                if self.server.stopping.is_set():
                    return
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(2.0)
            return
        self.wfile.write(data)

    def status(self, code):
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that hung up on a drip: what this test makes happen


def start_server(root):
    server = Server(("127.0.0.1", 0), Handler)
    server.root = root
    server.lock = threading.Lock()
    server.flaky_count = {}
    server.stopping = threading.Event()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def silent_listener():
    """A socket on 127.0.0.1 that accepts connections and never answers."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    held = []

    def accept():
        while True:
            try:
                held.append(s.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    return s, held


def main():
    with tempfile.TemporaryDirectory() as tmp:
        x = np.arange(600, dtype="<f8").reshape(20, 30)
        x.tofile(f"{tmp}/x.bin")
        open(f"{tmp}/x.dud", "w").write("x = <f8[20, 30]\n")
        proc, _ = run("convert", "-q", "--chunks", "2,30", "--compressor", "none",
                      f"{tmp}/x.bin", f"{tmp}/x.zarr")
        check("write the store", proc.returncode == 0, proc.stderr)
        server = start_server(tmp)
        base = f"http://127.0.0.1:{server.server_address[1]}"
        silent, held = silent_listener()
        try:
            # Working as usual first: the server itself is sound.
            proc, _ = run("dump", "--json", f"{base}/ok/x.zarr")
            check("plain read", proc.returncode == 0 and
                  json.loads(proc.stdout)["root"]["members"]["x"]["data"] == x.tolist(), proc.stderr)

            # A drip: ended by the request's own time bound, named with its option.
            for extra in ([], ["--json"]):
                proc, took = run("dump", *extra, "--http-timeout", "3", f"{base}/drip/x.zarr")
                check(f"drip {extra} exit", proc.returncode == 2, (proc.returncode, proc.stderr))
                check(f"drip {extra} time", took < 10, took)
                check(f"drip {extra} names the bound", "--http-timeout" in proc.stderr and
                      "drip/x.zarr/zarr.json" in proc.stderr, proc.stderr)
                if extra:
                    doc = json.loads(proc.stdout)
                    check("drip --json document", doc["error"]["code"] == "io" and
                          "--http-timeout" in doc["error"]["message"], proc.stdout)
            # The same bound from the environment.
            env = dict(os.environ, DUDLEY_HTTP_TIMEOUT="2")
            proc, took = run("ls", f"{base}/drip/x.zarr", env=env)
            check("DUDLEY_HTTP_TIMEOUT", proc.returncode == 2 and took < 8, (took, proc.stderr))
            # No option at all: a byte every 2 s is under the speed floor; ended in ~20 s.
            proc, took = run("ls", f"{base}/drip/x.zarr", timeout=90)
            check("drip, defaults", proc.returncode == 2 and took < 40, (took, proc.stderr))
            check("drip, defaults, message", "bytes a second" in proc.stderr, proc.stderr)

            # A server that never answers.
            proc, took = run("ls", "--http-timeout", "2",
                             f"http://127.0.0.1:{silent.getsockname()[1]}/x.zarr")
            check("silent server", proc.returncode == 2 and took < 8, (took, proc.stderr))

            # Slow chunks (2 s each, read in parallel): the command's deadline (1.5 s) ends it.
            proc, took = run("dump", "--http-deadline", "1.5", f"{base}/slow/x.zarr")
            check("deadline exit", proc.returncode == 2, (proc.returncode, proc.stderr))
            check("deadline time", took < 8, took)
            check("deadline names the bound", "--http-deadline" in proc.stderr, proc.stderr)
            proc, took = run("dump", "--json", "--http-deadline", "1.5", f"{base}/slow/x.zarr")
            # The array that could not be read says why, in place; the document is whole.
            doc = json.loads(proc.stdout)
            check("deadline --json", proc.returncode == 2 and
                  "--http-deadline" in doc["root"]["members"]["x"]["error"], proc.stdout)
            # A deadline long enough: the same store reads.
            proc, _ = run("dump", "--json", "--http-deadline", "60", f"{base}/slow/x.zarr")
            check("slow but in time", proc.returncode == 0 and
                  json.loads(proc.stdout)["root"]["members"]["x"]["data"] == x.tolist(), proc.stderr)

            # Busy server: 503 twice for every key, then the data.
            proc, took = run("dump", "--json", f"{base}/flaky/x.zarr")
            check("retried reads", proc.returncode == 0 and
                  json.loads(proc.stdout)["root"]["members"]["x"]["data"] == x.tolist(), proc.stderr)
            # Always 503: a few tries, then the error says how many.
            proc, took = run("ls", f"{base}/down/x.zarr")
            check("down exit", proc.returncode == 2 and took < 5, (took, proc.stderr))
            check("down message", "HTTP 503, after 3 tries" in proc.stderr, proc.stderr)

            # Values that are not seconds.
            for option in ("--http-timeout", "--http-deadline"):
                proc, _ = run("ls", option, "soon", f"{base}/ok/x.zarr")
                check(f"{option} soon", proc.returncode == 2 and
                      "give a number of seconds" in proc.stderr, proc.stderr)
            env = dict(os.environ, DUDLEY_HTTP_DEADLINE="-1")
            proc, _ = run("ls", f"{base}/ok/x.zarr", env=env)
            check("bad DUDLEY_HTTP_DEADLINE", proc.returncode == 2 and
                  "DUDLEY_HTTP_DEADLINE=-1" in proc.stderr, proc.stderr)
        finally:
            server.stopping.set()
            server.shutdown()
            server.server_close()
            silent.close()
            for s in held:
                s.close()
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
