"""moto's S3 server (PyPI, pinned in tests/requirements-peers.txt) on 127.0.0.1, started by a
test and always stopped: a real S3 API (signed requests, ListObjectsV2 pages, multipart
uploads, XML errors) without a cloud account. Its request log (one line a request) is kept
for the tests to count requests.
"""
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nginx_server import free_port  # noqa: E402


def tool_environment(key="test"):
    """The environment a tool runs in against the server: credentials `key`/`key`, no
    profile or setting of the user's, and no preloaded sanitizer runtime (the sanitizer
    build's Python tests preload it; servers and curl must not run under it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k != "LD_PRELOAD"}
    env.update(AWS_ACCESS_KEY_ID=key, AWS_SECRET_ACCESS_KEY=key, AWS_REGION="us-east-1",
               AWS_SHARED_CREDENTIALS_FILE="/nonexistent", AWS_CONFIG_FILE="/nonexistent")
    return env


class LocalServer:
    """A server process on 127.0.0.1 at a free port, its output logged to a file in
    `scratch`; started by `with` and always stopped."""

    name = "server"

    def __init__(self, scratch):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = os.path.join(scratch, f"{self.name}-{self.port}.log")
        self.process = None

    def command(self):
        raise NotImplementedError

    def environment(self):
        return dict(os.environ)

    def ready_url(self):
        return self.url + "/"

    def __enter__(self):
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(self.command(), stdout=self.log,
                                        stderr=subprocess.STDOUT, env=self.environment())
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(self.ready_url(), timeout=1)
                break
            except urllib.error.HTTPError:
                break  # it answers
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.__exit__(None, None, None)
                    raise RuntimeError(f"{self.name} did not start: {open(self.log_path).read()}")
                time.sleep(0.1)
        return self

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


class MotoServer(LocalServer):
    name = "moto"

    def __init__(self, scratch, require_auth=False, program=None, free_actions=0):
        super().__init__(scratch)
        self.require_auth = require_auth
        # Requests served before the checks begin (to make IAM users and their keys with).
        self.free_actions = free_actions
        # moto_server of the interpreter running the test, unless another is named (a test run
        # by another virtual environment's interpreter, whose peers conflict with moto's).
        self.program = program or os.path.join(os.path.dirname(sys.executable), "moto_server")

    def command(self):
        return [self.program, "-H", "127.0.0.1", "-p", str(self.port)]

    def environment(self):
        env = dict(os.environ)
        if self.require_auth:
            # Every request is checked against moto's IAM: unknown keys are refused.
            env["INITIAL_NO_AUTH_ACTION_COUNT"] = str(self.free_actions)
        return env

    def ready_url(self):
        return self.url + "/moto-api/"

    def requests(self):
        """The request lines logged so far ("GET /bucket/key?query HTTP/1.1")."""
        self.log.flush()
        out = []
        for line in open(self.log_path):
            start = line.find('"')
            if start >= 0 and line.find('"', start + 1) > start:
                out.append(line[start + 1:line.find('"', start + 1)])
        return out

    def client(self):
        import boto3
        return boto3.client("s3", endpoint_url=self.url, region_name="us-east-1",
                            aws_access_key_id="test", aws_secret_access_key="test")


class GoFakeS3Server(LocalServer):
    """gofakes3 (Go, objects in memory; installed by scripts/install-deps.sh into
    .tools/bin) with bucket `bucket` made: a server fast enough that benchmarks measure the
    tools rather than it. Only in benchmarks; no request log."""

    name = "gofakes3"
    PROGRAM = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), ".tools", "bin", "gofakes3")

    def __init__(self, scratch, bucket):
        super().__init__(scratch)
        self.bucket = bucket

    def command(self):
        return [self.PROGRAM, "-host", f"127.0.0.1:{self.port}", "-backend", "memory",
                "-initialbucket", self.bucket, "-quiet"]


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class S3rverServer(LocalServer):
    """s3rver (npm, pinned in tests/interop/package.json; objects in a folder of `scratch`)
    with bucket `bucket` made: the strict one about S3's rules for requests, it refuses a
    signed request without x-amz-content-sha256 as AWS does. Its credentials are its own,
    S3RVER/S3RVER (KEY below); it checks the key, not the V4 signature."""

    name = "s3rver"
    KEY = "S3RVER"
    PROGRAM = os.path.join(ROOT, "tests", "interop", "node_modules", "s3rver", "bin", "s3rver.js")

    def __init__(self, scratch, bucket):
        super().__init__(scratch)
        self.bucket = bucket
        self.folder = os.path.join(scratch, f"s3rver-{self.port}")
        os.makedirs(self.folder)

    def command(self):
        # Its continuation tokens are DES-encrypted: OpenSSL 3 keeps DES in its legacy provider.
        return ["node", "--openssl-legacy-provider", self.PROGRAM, "-d", self.folder,
                "-a", "127.0.0.1", "-p", str(self.port), "--configure-bucket", self.bucket]


class VersityServer(LocalServer):
    """versitygw (Go; built by scripts/install-deps.sh into .tools/bin) over a folder of
    `scratch`, root credentials KEY/KEY: a gateway that checks every V4 signature, the
    body's hash among what is signed."""

    name = "versitygw"
    KEY = "versity-test"
    PROGRAM = os.path.join(ROOT, ".tools", "bin", "versitygw")

    def __init__(self, scratch):
        super().__init__(scratch)
        self.folder = os.path.join(scratch, f"versitygw-{self.port}")
        os.makedirs(self.folder)

    def command(self):
        return [self.PROGRAM, "--access", self.KEY, "--secret", self.KEY, "--region", "us-east-1",
                "--port", f"127.0.0.1:{self.port}", "--quiet", "posix", self.folder]

    def environment(self):
        return {k: v for k, v in os.environ.items()
                if not k.startswith(("ROOT_", "VGW_", "AWS_")) and k != "LD_PRELOAD"}


def s3_client(url, key):
    """A boto3 client of the server at `url` with credentials `key`/`key`."""
    import boto3
    return boto3.client("s3", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key=key)
