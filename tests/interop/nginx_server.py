"""nginx (Debian's) serving a directory on 127.0.0.1 for the HTTP tests and benchmarks:
started with a configuration of its own under a scratch directory, on a free port, and
always stopped (a context manager).

    with NginxServer(www, scratch, extra_locations="...", access_log=True) as server:
        server.url        # http://127.0.0.1:PORT
        server.requests() # [Request(line, status, bytes, range, connection)] when access_log
"""
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections import namedtuple

# One logged request: its request line, status, body bytes sent, Range header ("-": none)
# and the serial number of the connection it came on.
Request = namedtuple("Request", "line status bytes range connection")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NginxServer:
    def __init__(self, www, scratch, extra_locations="", access_log=False):
        self.www, self.scratch = www, scratch
        self.extra_locations, self.access_log = extra_locations, access_log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = os.path.join(scratch, "access.log")
        self.process = None
        self.marks = 0

    def __enter__(self):
        os.chmod(self.scratch, 0o755)  # nginx's workers run as another user
        t = self.scratch
        log = (f'log_format bytes "$request\\t$status\\t$body_bytes_sent\\t$http_range\\t$connection";\n'
               f"  access_log {self.log} bytes;") if self.access_log else "access_log off;"
        conf = os.path.join(t, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""daemon off;
worker_processes 1;
pid {t}/nginx.pid;
error_log {t}/error.log;
events {{ worker_connections 64; }}
http {{
  {log}
  client_body_temp_path {t}/body; proxy_temp_path {t}/proxy; fastcgi_temp_path {t}/fcgi;
  uwsgi_temp_path {t}/uwsgi; scgi_temp_path {t}/scgi;
  server {{
    listen 127.0.0.1:{self.port};
    root {self.www};
    {self.extra_locations}
  }}
}}
""")
        self.process = subprocess.Popen(["nginx", "-c", conf, "-p", t, "-e", f"{t}/error.log"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.1).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.__exit__(None, None, None)
        raise RuntimeError(f"nginx did not start; see {t}/error.log")

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=10)
        return False

    def requests(self):
        """The requests logged so far (Request tuples), then the log is
        emptied (nginx keeps appending to the same file).

        nginx writes a request's log line just after sending its response, so a client that
        has already exited may still be missing from the log. A marker request is sent and
        the log read until the marker shows: the one worker finishes (and logs) each request
        before it takes the next connection."""
        if not self.access_log:
            return []
        self.marks += 1
        mark = f"/.requests-mark-{self.marks}"
        try:
            urllib.request.urlopen(self.url + mark, timeout=10).close()
        except urllib.error.HTTPError:
            pass  # 404: it is logged all the same
        lines = []
        for _ in range(500):
            with open(self.log) as f:
                lines = [line.rstrip("\n").split("\t") for line in f if line.strip()]
            if any(mark + " " in r[0] for r in lines):
                break
            time.sleep(0.01)
        else:
            raise RuntimeError(f"nginx did not log {mark} within 5 s")
        open(self.log, "w").close()
        lines = [r for r in lines if ".requests-mark-" not in r[0]]
        return [Request(r, int(s), int(b), g, int(c)) for r, s, b, g, c in lines]
