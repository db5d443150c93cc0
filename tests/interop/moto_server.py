"""moto's S3 server (PyPI, pinned in tests/requirements-peers.txt) on 127.0.0.1, started by a
test and always stopped: a real S3 API (signed requests, ListObjectsV2 pages, multipart
uploads, XML errors) without a cloud account. Its request log (one line a request) is kept
for the tests to count requests.
"""
import os
import subprocess
import sys
import time
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


class MotoServer:
    def __init__(self, scratch, require_auth=False, program=None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = os.path.join(scratch, f"moto-{self.port}.log")
        self.require_auth = require_auth
        self.process = None
        # moto_server of the interpreter running the test, unless another is named (a test run
        # by another virtual environment's interpreter, whose peers conflict with moto's).
        self.program = program or os.path.join(os.path.dirname(sys.executable), "moto_server")

    def __enter__(self):
        env = dict(os.environ)
        if self.require_auth:
            # Every request is checked against moto's IAM: unknown keys are refused.
            env["INITIAL_NO_AUTH_ACTION_COUNT"] = "0"
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen([self.program, "-H", "127.0.0.1", "-p", str(self.port)],
                                        stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(self.url + "/moto-api/", timeout=1)
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.__exit__(None, None, None)
                    raise RuntimeError(f"moto_server did not start: {open(self.log_path).read()}")
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
