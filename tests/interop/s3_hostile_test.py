#!/usr/bin/python3
"""Hostile S3 and web servers, and names that would send a request elsewhere, run here on
127.0.0.1 (every server started by this test and always stopped; each logs every connection,
request line and header). Requests go only where the user pointed, and no secret is ever
printed:

- a redirect (301, 302, 307) to another port is never followed: not by S3 (listing, read,
  write; not even with x-amz-bucket-region from an endpoint that is not AWS's), not by a web
  store; the second server sees no connection, so no Authorization header or
  x-amz-security-token reaches it; the error names the target without its query (exit 2);
  a web store's redirect on its own server is followed;
- bucket names, regions and endpoints S3 would not take (s3://2130706433:PORT#/x.npy,
  --region 'x@127.0.0.1:PORT#', an endpoint with a path, a user or a query) are refused
  before any connection (exit 2), naming the problem;
- s3://bucket/../other/x is key "../other/x" of bucket "bucket" for reads and writes, and
  every request's AWS Signature V4 is checked here against the path as sent, with the
  body's SHA-256 in a signed x-amz-content-sha256 as S3 requires;
- a web store's key never climbs out of the store's URL;
- a presigned-style URL (X-Amz-Signature, X-Amz-Security-Token) with user:password@,
  answered 403, 404, 500 or refused, and the AWS credentials in the environment: none of
  their secrets appears in any output of ls, dump, describe, convert or view, text or
  --json;
- a listing whose continuation tokens go round (A, B, A, B) ends within seconds, and one
  naming a key outside the prefix asked for fails naming it.

Usage: s3_hostile_test.py DUDLEY
"""
import hashlib
import hmac
import http.server
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import Checks  # noqa: E402

DUDLEY = os.path.abspath(sys.argv[1])
check = Checks()

# Credentials in the environment of every S3 command: none may ever be printed.
KEY_ID, SECRET_KEY, SESSION_TOKEN = "AKIDLEAKCHECK5", "SECRETKEYLEAK3", "SESSIONTOKENLEAK4"
# The secrets of a presigned-style URL with user:password@.
PASSWORD, SIGNATURE, URL_TOKEN = "PASSWORDLEAK0", "SIGNATURELEAK1", "URLTOKENLEAK2"
SECRETS = (KEY_ID, SECRET_KEY, SESSION_TOKEN, PASSWORD, SIGNATURE, URL_TOKEN)

ENV = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k != "LD_PRELOAD"}
ENV.update(AWS_SHARED_CREDENTIALS_FILE="/nonexistent", AWS_CONFIG_FILE="/nonexistent",
           DUDLEY_HTTP_TIMEOUT="10")
S3_ENV = dict(ENV, AWS_ACCESS_KEY_ID=KEY_ID, AWS_SECRET_ACCESS_KEY=SECRET_KEY,
              AWS_SESSION_TOKEN=SESSION_TOKEN, AWS_REGION="us-east-1")


class Ran:
    """What a command did: exit status (None: killed at its time limit), output, seconds."""

    def __init__(self, returncode, stdout, stderr, took):
        self.returncode, self.stdout, self.stderr, self.took = returncode, stdout, stderr, took

    def __str__(self):
        return f"exit {self.returncode} after {self.took:.1f} s\n{self.stdout[-1500:]}\n{self.stderr[-1500:]}"


def run(*args, env=S3_ENV, timeout=30):
    start = time.monotonic()
    try:
        p = subprocess.run([DUDLEY, *args], capture_output=True, text=True, env=env,
                           timeout=timeout)
        ran = Ran(p.returncode, p.stdout, p.stderr, time.monotonic() - start)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout or ""
        err = (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr or ""
        ran = Ran(None, out, err + "\nTIMEOUT", time.monotonic() - start)
    print(f"{ran.took:5.1f} s  exit {ran.returncode}  dudley {' '.join(args)}", flush=True)
    return ran


def leaked(ran):
    """The secrets that appear in a command's output."""
    return [s for s in SECRETS if s in ran.stdout or s in ran.stderr]


def json_error(ran):
    """The "error" member of a --json failure document ({} when there is none)."""
    try:
        return json.loads(ran.stdout).get("error", {})
    except ValueError:
        return {}


# --- AWS Signature V4, checked as S3 checks it ----------------------------------------------

def _hmac(key, text):
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def signature_problem(req, body):
    """Why the request's AWS Signature V4 is not the one its secret makes over the path as
    sent (S3 does not normalise paths), or None when it is (or the request is unsigned)."""
    auth = req.headers.get("Authorization")
    if auth is None or not auth.startswith("AWS4-"):
        return None  # unsigned, or a web store's Basic credentials
    m = re.fullmatch(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/s3/aws4_request, ?"
                     r"SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})", auth)
    if not m:
        return f"malformed Authorization {auth!r}"
    key_id, date, region, signed, signature = m.groups()
    if key_id != KEY_ID:
        return f"credential {key_id}"
    path, _, query = req.path.partition("?")
    pairs = sorted(p.partition("=")[::2] for p in query.split("&")) if query else []
    canonical_query = "&".join(f"{k}={v}" for k, v in pairs)
    names = signed.split(";")
    canonical_headers = "".join(f"{n}:{' '.join(req.headers.get(n, '').split())}\n" for n in names)
    # S3 requires the body's hash in x-amz-content-sha256 on every signed request, signed.
    payload = req.headers.get("x-amz-content-sha256")
    if payload is None or "x-amz-content-sha256" not in names:
        return "no signed x-amz-content-sha256"
    if payload != hashlib.sha256(body).hexdigest():
        return "the payload hash is not the body's"
    canonical = "\n".join([req.command, path, canonical_query, canonical_headers, signed, payload])
    scope = f"{date}/{region}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", req.headers.get("x-amz-date", ""), scope,
                         hashlib.sha256(canonical.encode()).hexdigest()])
    k = _hmac(("AWS4" + SECRET_KEY).encode(), date)
    for part in (region, "s3", "aws4_request"):
        k = _hmac(k, part)
    if hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest() != signature:
        return f"signature over {canonical!r}"
    return None


# --- servers ---------------------------------------------------------------------------------

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_one(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        server = self.server
        with server.lock:
            server.log.append({"line": self.requestline, "headers": dict(self.headers)})
            problem = signature_problem(self, body)
            if problem:
                server.bad_signatures.append(f"{self.requestline}: {problem}")
        if problem:
            status, headers, data = 403, {}, s3_error("SignatureDoesNotMatch", "checked here")
        else:
            status, headers, data = server.behave(server, self, body)
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = handle_one


class Server(http.server.ThreadingHTTPServer):
    """A server on 127.0.0.1 at a free port that answers as `behave(server, request, body)`
    says, logging every connection and every request (line and headers)."""
    daemon_threads = True

    def __init__(self, behave):
        super().__init__(("127.0.0.1", 0), Handler)
        self.behave = behave
        self.lock = threading.Lock()
        self.log = []
        self.connections = 0
        self.bad_signatures = []
        self.objects = {}  # (bucket, key) -> bytes
        self.pages = None  # a listing's answers, when set: function(query) -> XML
        self.port = self.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"

    def process_request(self, request, client_address):
        with self.lock:
            self.connections += 1
        super().process_request(request, client_address)

    def handle_error(self, request, client_address):
        pass  # a client that hung up, or spoke TLS to plain HTTP

    def reset(self):
        with self.lock:
            self.log.clear()
            self.connections = 0
            self.bad_signatures.clear()

    def lines(self):
        with self.lock:
            return [e["line"] for e in self.log]

    def headers_seen(self):
        with self.lock:
            return [name.lower() for e in self.log for name in e["headers"]]

    def shown(self):
        with self.lock:
            return "\n".join(f"{e['line']} {e['headers']}" for e in self.log)[-2000:]


class Servers:
    """Servers started together and always stopped."""

    def __init__(self, *behaviours):
        self.servers = [Server(b) for b in behaviours]

    def __enter__(self):
        for s in self.servers:
            threading.Thread(target=s.serve_forever, daemon=True).start()
        return self.servers

    def __exit__(self, *exc):
        for s in self.servers:
            s.shutdown()
            s.server_close()


def s3_error(code, message):
    return (f"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>{code}</Code>"
            f"<Message>{message}</Message><RequestId>r1</RequestId></Error>").encode()


def listing(keys, prefixes=(), truncated=False, token=None):
    xml = "<?xml version=\"1.0\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
    xml += f"<IsTruncated>{'true' if truncated else 'false'}</IsTruncated>"
    if token:
        xml += f"<NextContinuationToken>{token}</NextContinuationToken>"
    for k in keys:
        xml += f"<Contents><Key>{k}</Key><Size>1</Size></Contents>"
    for p in prefixes:
        xml += f"<CommonPrefixes><Prefix>{p}</Prefix></CommonPrefixes>"
    return (xml + "</ListBucketResult>").encode()


def ranged(req, data):
    """An object's answer to GET or HEAD, with its Range when one is asked."""
    if "Range" not in req.headers:
        return 200, {}, data
    first, last = req.headers["Range"].split("=")[1].split("-")
    if first == "":
        part = data[-int(last):]
        start = len(data) - len(part)
    else:
        start = int(first)
        part = data[start:int(last) + 1]
    return 206, {"Content-Range": f"bytes {start}-{start + len(part) - 1}/{len(data)}"}, part


def s3(server, req, body):
    """An S3 bucket store, path-style: /BUCKET/KEY (the key percent-decoded, nothing else)."""
    path, _, query = req.path.partition("?")
    bucket, _, key = path[1:].partition("/")
    key = urllib.parse.unquote(key)
    params = urllib.parse.parse_qs(query, keep_blank_values=True)
    if not key and "list-type" in params:
        if not any(b == bucket for b, _ in server.objects):
            return 404, {}, s3_error("NoSuchBucket", "The specified bucket does not exist")
        if server.pages and "max-keys" not in params:
            return 200, {}, server.pages(params)
        prefix = params.get("prefix", [""])[0]
        keys = sorted(k for b, k in server.objects if b == bucket and k.startswith(prefix))
        return 200, {}, listing(keys[:int(params.get("max-keys", ["1000"])[0])])
    if req.command == "PUT":
        server.objects[(bucket, key)] = body
        return 200, {"ETag": '"e"'}, b""
    if req.command == "DELETE":
        server.objects.pop((bucket, key), None)
        return 204, {}, b""
    if (bucket, key) not in server.objects:
        return 404, {}, s3_error("NoSuchKey", "The specified key does not exist.")
    return ranged(req, server.objects[(bucket, key)])


def files(root):
    """A web server of the files under `root`: /MODE/PATH, MODE saying how it answers."""
    def behave(server, req, body):
        path = urllib.parse.unquote(req.path.partition("?")[0])
        mode, _, rest = path.lstrip("/").partition("/")
        if mode in ("403", "404", "500"):
            return int(mode), {}, b"refused"
        if mode == "moved":  # a redirect on the same server, relative
            return 307, {"Location": f"/plain/{rest}"}, b""
        full = os.path.join(root, rest)
        if not os.path.isfile(full):
            return 404, {}, b""
        return ranged(req, open(full, "rb").read())
    return behave


def redirect_to(target, status, only_objects=False, region=None):
    """Answers every request (with `only_objects`, every request but the bucket's
    listing) with a redirect `status` to `target` + the path asked for."""
    def behave(server, req, body):
        path, _, query = req.path.partition("?")
        if only_objects and "list-type" in query:
            return s3(server, req, body)
        headers = {"Location": f"{target}{path}?X-Amz-Signature={SIGNATURE}"}
        if region:
            headers["x-amz-bucket-region"] = region
        return status, headers, b""
    return behave


def free_port():
    """A port on 127.0.0.1 that refuses connections."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- the checks ------------------------------------------------------------------------------

def redirects(tmp, npy):
    """No redirect leads a request to another port; the second server sees nothing."""
    for status in (301, 302, 307):
        with Servers(s3, None) as (a, b):
            b.behave = s3
            a.objects[("bucket", "x.npy")] = npy
            b.objects[("bucket", "x.npy")] = npy
            cases = [
                ("S3 listing", redirect_to(b.url, status, region="eu-west-1" if status == 301 else None),
                 ["ls", "--endpoint-url", a.url, "s3://bucket/x.npy"]),
                ("S3 read", redirect_to(b.url, status, only_objects=True),
                 ["dump", "--json", "--endpoint-url", a.url, "s3://bucket/x.npy"]),
                ("S3 write", redirect_to(b.url, status, only_objects=True),
                 ["convert", "-q", "--endpoint-url", a.url, f"{tmp}/x.npy", "s3://bucket/y.npy"]),
            ]
            for what, behave, args in cases:
                a.behave = behave
                a.reset()
                b.reset()
                ran = run(*args)
                name = f"{what} redirected by {status} to another port"
                check(f"{name}: exit 2", ran.returncode == 2, ran)
                check(f"{name}: the error names the target, without its query",
                      f"127.0.0.1:{b.port}/bucket/" in ran.stderr and "redirect" in ran.stderr and
                      not leaked(ran), ran)
                check(f"{name}: the first server was asked", len(a.lines()) >= 1, a.shown())
                check(f"{name}: nothing reached the second server (no token, no signature)",
                      b.connections == 0 and not b.log, b.shown())
                check(f"{name}: nothing reached bucket y", ("bucket", "y.npy") not in b.objects, "")
        # A web store, its URL holding user:password@ (sent as Authorization: Basic).
        with Servers(None, files(tmp)) as (a, b):
            a.behave = redirect_to(b.url, status)
            url = f"http://user:{PASSWORD}@127.0.0.1:{a.port}/plain/x.npy"
            for extra in ([], ["--json"]):
                a.reset()
                b.reset()
                ran = run("dump", *extra, "--format", "npy", url, env=ENV)
                name = f"web store redirected by {status} to another port {extra}"
                check(f"{name}: exit 2", ran.returncode == 2, ran)
                check(f"{name}: the error names the target, no secret",
                      f"127.0.0.1:{b.port}/plain/x.npy" in ran.stderr and not leaked(ran), ran)
                check(f"{name}: the first server got the credentials it was given",
                      "authorization" in a.headers_seen(), a.shown())
                check(f"{name}: nothing reached the second server",
                      b.connections == 0 and not b.log, b.shown())
    # A redirect on the same server is followed.
    with Servers(files(tmp)) as (a,):
        ran = run("dump", "--json", "--format", "npy", f"{a.url}/moved/x.npy", env=ENV)
        check("a web store's redirect on its own server is followed",
              ran.returncode == 0 and json.loads(ran.stdout)["root"]["data"] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
              ran)
        check("... to the path it names", any("/plain/x.npy" in line for line in a.lines()), a.shown())


def names(tmp, npy):
    """Bucket names, regions and endpoints S3 would not take: refused before any connection."""
    with Servers(s3, s3) as (a, b):
        a.objects[("bucket", "x.npy")] = npy
        a.objects[("Legacy_Bucket", "x.npy")] = npy
        endpoint = ["--endpoint-url", a.url]
        cases = [
            # Pasted into AWS's host name, these would open TLS to 127.0.0.1:PORT (b).
            ([f"s3://2130706433:{b.port}#/x.npy"], S3_ENV, "':'"),
            (["--region", f"x@127.0.0.1:{b.port}#", "s3://bucket/x.npy"], S3_ENV, "region"),
            (["s3://bucket/x.npy"], dict(S3_ENV, AWS_REGION=f"x@127.0.0.1:{b.port}#"), "AWS_REGION"),
            # Against an endpoint given: no request reaches it either.
            ([*endpoint, "--region", "US-EAST-1", "s3://bucket/x.npy"], S3_ENV, "region"),
            ([*endpoint, "s3://ab/x.npy"], S3_ENV, "has 2 characters"),
            ([*endpoint, "s3://a..b/x.npy"], S3_ENV, '".."'),
            ([*endpoint, "s3://-bucket/x.npy"], S3_ENV, "start and end"),
            ([*endpoint, "s3://192.168.5.4/x.npy"], S3_ENV, "IP address"),
            ([*endpoint, "s3://bucket:1/x.npy"], S3_ENV, "':'"),
            ([*endpoint, "s3://b#ucket/x.npy"], S3_ENV, "'#'"),
            ([*endpoint, f"s3://user:{PASSWORD}@bucket/x.npy"], S3_ENV, "no user name or password"),
            (["--endpoint-url", f"{a.url}/path/..", "s3://bucket/x.npy"], S3_ENV, "path"),
            (["--endpoint-url", f"{a.url}/bucket", "s3://bucket/x.npy"], S3_ENV, "path"),
            (["--endpoint-url", f"{a.url}/?x=1", "s3://bucket/x.npy"], S3_ENV, "query"),
            (["--endpoint-url", f"{a.url}/#f", "s3://bucket/x.npy"], S3_ENV, "fragment"),
            (["--endpoint-url", f"http://user:{PASSWORD}@127.0.0.1:{a.port}", "s3://bucket/x.npy"],
             S3_ENV, "user name or password"),
            (["--endpoint-url", f"ftp://127.0.0.1:{a.port}", "s3://bucket/x.npy"], S3_ENV, "http"),
            (["--endpoint-url", f"127.0.0.1:{a.port}", "s3://bucket/x.npy"], S3_ENV, "http"),
            (["s3://bucket/x.npy"], dict(S3_ENV, AWS_ENDPOINT_URL=f"{a.url}/x"), "AWS_ENDPOINT_URL"),
        ]
        for args, env, said in cases:
            for extra in ([], ["--json"]):
                a.reset()
                b.reset()
                ran = run("ls", *extra, *args, env=env)
                name = f"refused before any request: {' '.join(args)} {extra}"
                check(f"{name}: exit 2", ran.returncode == 2, ran)
                check(f"{name}: the message says why ({said})", said in ran.stderr, ran)
                if extra:
                    check(f"{name}: a usage error in JSON", json_error(ran).get("code") == "usage", ran)
                check(f"{name}: no secret printed", not leaked(ran), ran)
                check(f"{name}: no connection to any server",
                      a.connections == 0 and b.connections == 0, a.shown() + b.shown())
        # A legacy name (uppercase, '_') is a path segment on an S3-compatible endpoint.
        a.reset()
        ran = run("dump", "--json", *endpoint, "s3://Legacy_Bucket/x.npy")
        check("a legacy bucket name, path-style on an S3-compatible endpoint",
              ran.returncode == 0 and any("/Legacy_Bucket/x.npy" in x for x in a.lines()), ran)


def dot_segments(tmp, npy, other):
    """s3://bucket/../other/x is key ../other/x of bucket "bucket", read and written; the
    signature covers the path as sent. A web store's key never climbs out of its URL."""
    with Servers(s3) as (a,):
        a.objects[("bucket", "../other/x.npy")] = npy
        a.objects[("bucket", "sp ace/a+b%.npy")] = npy
        a.objects[("other", "x.npy")] = other
        endpoint = ["--endpoint-url", a.url]
        for url in ("s3://bucket/../other/x.npy", "s3://bucket/sp ace/a+b%.npy"):
            a.reset()
            ran = run("dump", "--json", *endpoint, url)
            name = f"read {url}"
            check(f"{name}: exit 0, the values of bucket's key",
                  ran.returncode == 0 and json.loads(ran.stdout)["root"]["data"] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
                  ran)
            check(f"{name}: every request to bucket 'bucket'",
                  a.lines() and all(line.split()[1].startswith("/bucket/") for line in a.lines()),
                  a.shown())
            check(f"{name}: every signature checks over the path sent", not a.bad_signatures,
                  a.bad_signatures)
        a.reset()
        ran = run("convert", "-q", *endpoint, f"{tmp}/x.npy", "s3://bucket/../other/y.npy")
        check("write s3://bucket/../other/y.npy: exit 0", ran.returncode == 0, ran)
        check("... lands as key ../other/y.npy of bucket 'bucket'",
              ("bucket", "../other/y.npy") in a.objects and ("other", "y.npy") not in a.objects,
              sorted(a.objects))
        check("... every request to bucket 'bucket'",
              all(line.split()[1].startswith("/bucket/") for line in a.lines()), a.shown())
        check("... every signature checks", not a.bad_signatures, a.bad_signatures)

    # A Zarr v2 store whose consolidated metadata names "../outside": its keys stay in the
    # store's URL (refused, or not asked for), whatever the Zarr reader makes of the name
    # (it refuses it today; the store refuses such a key too: request_safety_test).
    root = os.path.join(tmp, "web")
    os.makedirs(f"{root}/data/store.zarr", exist_ok=True)
    os.makedirs(f"{root}/data/outside", exist_ok=True)
    zarray = {"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<f8", "compressor": None,
              "fill_value": 0, "filters": None, "order": "C"}
    meta = {"zarr_consolidated_format": 1,
            "metadata": {".zgroup": {"zarr_format": 2}, "../outside/.zarray": zarray}}
    open(f"{root}/data/store.zarr/.zmetadata", "w").write(json.dumps(meta))
    open(f"{root}/data/store.zarr/.zgroup", "w").write('{"zarr_format": 2}')
    open(f"{root}/data/outside/.zarray", "w").write(json.dumps(zarray))
    np.arange(2, dtype="<f8").tofile(f"{root}/data/outside/0")
    with Servers(files(root)) as (a,):
        ran = run("dump", "--json", f"{a.url}/plain/data/store.zarr", env=ENV)
        check("a web store's key '..' never leaves the store",
              all(line.split()[1].startswith("/plain/data/store.zarr/") for line in a.lines()),
              a.shown() + str(ran))


def secrets(tmp, npy):
    """No secret of a URL or of the environment is printed, whatever the answer."""
    refused = free_port()
    with Servers(files(tmp), s3) as (web, bucket):
        query = f"?X-Amz-Signature={SIGNATURE}&X-Amz-Security-Token={URL_TOKEN}"
        for mode in ("403", "404", "500", "refused"):
            port = refused if mode == "refused" else web.port
            path = f"127.0.0.1:{port}/{mode}/x.npy"
            url = f"http://user:{PASSWORD}@{path}{query}"
            commands = [["ls", url], ["ls", "--format", "npy", url], ["dump", "--format", "npy", url],
                        ["describe", "--format", "npy", url],
                        ["convert", "-q", "--format", "npy", url, f"{tmp}/out.npy"]]
            for args in commands:
                for extra in ([], ["--json"]):
                    web.reset()
                    ran = run(args[0], *extra, *args[1:], env=ENV)
                    label = " ".join(a for a in args if a != url and not a.startswith(tmp))
                    name = f"{mode}: {label} {extra}"
                    # 2: could not read; 1 for a store without its metadata (404 as Zarr)
                    check(f"{name}: exit non-zero", ran.returncode in (1, 2), ran)
                    check(f"{name}: no secret printed", not leaked(ran), leaked(ran) or ran)
                    check(f"{name}: the URL named without them", path in ran.stderr, ran)
                    if mode != "refused":
                        check(f"{name}: the request went with its query",
                              any(SIGNATURE in line for line in web.lines()), web.shown())
        # A URL that reads: its name in the output (describe's "file", view's first line).
        url = f"http://user:{PASSWORD}@127.0.0.1:{web.port}/plain/x.npy{query}"
        for command in ("describe", "ls", "dump"):
            for extra in ([], ["--json"]):
                ran = run(command, *extra, "--format", "npy", url, env=ENV)
                check(f"{command} {extra} of a presigned URL: read, no secret printed",
                      ran.returncode == 0 and not leaked(ran), leaked(ran) or ran)
        for extra in ([], ["--json"]):
            view = subprocess.Popen([DUDLEY, "view", *extra, "--port", "0", "--format",
                                     "npy", url], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, env=ENV)
            try:
                first = view.stdout.readline()
            finally:
                view.terminate()
                out, err = view.communicate(timeout=20)
            shown = Ran(view.returncode, first + out, err, 0)
            check(f"view {extra}: its first line names the data without secrets",
                  "x.npy" in first and not leaked(shown), leaked(shown) or shown)

        # The AWS credentials of the environment, whatever S3 answers.
        bucket.objects[("bucket", "x.npy")] = npy
        some = [["ls", "s3://bucket/x.npy"], ["dump", "s3://bucket/x.npy"],
                ["convert", "-q", f"{tmp}/x.npy", "s3://bucket/y.npy"]]
        answers = [
            ("403", lambda s, r, b: (403, {}, s3_error("SignatureDoesNotMatch", "no")), some),
            # Tried 5 times with backoff (3.8 s a command): ls alone.
            ("500", lambda s, r, b: (500, {}, s3_error("InternalError", "down")), some[:1]),
            ("no bucket", s3, [["ls", "s3://nobucket/x.zarr"],
                               ["convert", "-q", f"{tmp}/x.npy", "s3://nobucket/y.npy"]]),
        ]
        for what, behave, commands in answers:
            bucket.behave = behave
            for args in commands:
                for extra in ([], ["--json"]):
                    bucket.reset()
                    ran = run(args[0], *extra, "--endpoint-url", bucket.url, *args[1:])
                    name = f"S3 {what}: {' '.join(a for a in args if not a.startswith(tmp))} {extra}"
                    check(f"{name}: fails", ran.returncode in (1, 2), ran)
                    check(f"{name}: no credential printed", not leaked(ran), leaked(ran) or ran)
                    check(f"{name}: the server was asked, signed, with the token",
                          "authorization" in bucket.headers_seen() and
                          "x-amz-security-token" in bucket.headers_seen(), bucket.shown())
        ran = run("ls", "--endpoint-url", f"http://127.0.0.1:{refused}", "s3://bucket/x.npy")
        check("S3 refused connection: exit 2, no credential printed",
              ran.returncode == 2 and not leaked(ran), ran)


def listings():
    """Listings that go round, or answer another question, end with an error."""
    group = b'{"zarr_format": 3, "node_type": "group", "attributes": {}}'
    with Servers(s3) as (a,):
        a.objects[("bucket", "store.zarr/zarr.json")] = group
        endpoint = ["--endpoint-url", a.url]

        def cycling(params):  # tokens A, B, A, B
            token = params.get("continuation-token", [""])[0]
            return listing([], [], truncated=True, token="B" if token == "A" else "A")

        def endless(params):  # empty pages, each with a token never seen before
            token = params.get("continuation-token", ["0"])[0]
            return listing([], [], truncated=True, token=str(int(token) + 1))
        # (what the server does, its pages, the words the error says, how many pages it asks)
        for what, pages_of, why, asked in (
                ("continuation tokens A, B, A, B", cycling, "continuation token", range(2, 7)),
                ("empty pages with new tokens forever", endless, "empty pages", range(100, 111))):
            a.pages = pages_of
            for extra in ([], ["--json"]):
                a.reset()
                ran = run("ls", *extra, *endpoint, "s3://bucket/store.zarr", timeout=30)
                pages = [x for x in a.lines() if "continuation-token" in x or "delimiter" in x]
                check(f"{what} {extra}: ended non-zero within seconds",
                      ran.returncode in (1, 2) and ran.took < 20, ran)
                check(f"... saying why, naming the bucket and prefix {extra}",
                      "s3://bucket/store.zarr/" in ran.stderr and why in ran.stderr, ran)
                check(f"... after {asked.start} to {asked.stop - 1} pages {extra}",
                      len(pages) in asked, a.shown())

        a.pages = lambda params: listing(["elsewhere/zarr.json"], ["elsewhere/sub/"])
        for extra in ([], ["--json"]):
            a.reset()
            ran = run("ls", *extra, *endpoint, "s3://bucket/store.zarr", timeout=20)
            check(f"a listing naming a key outside the prefix {extra}: an error naming it",
                  ran.returncode in (1, 2) and "elsewhere/" in ran.stderr and
                  "prefix" in ran.stderr, ran)
            check(f"... after one listing {extra}",
                  sum("delimiter" in x for x in a.lines()) == 1, a.shown())


def main():
    with tempfile.TemporaryDirectory() as tmp:
        x = np.arange(6, dtype="<f8").reshape(2, 3)
        np.save(f"{tmp}/x.npy", x)
        npy = open(f"{tmp}/x.npy", "rb").read()
        np.save(f"{tmp}/other.npy", -x)
        other = open(f"{tmp}/other.npy", "rb").read()
        redirects(tmp, npy)
        names(tmp, npy)
        dot_segments(tmp, npy, other)
        secrets(tmp, npy)
        listings()
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
