"""An HTTP proxy on 127.0.0.1 in front of a test server that fails requests on purpose: S3's
503 SlowDown, a 500, or a connection reset halfway through an answer's body. Which request
meets which fault is chosen by a function of the request, so tests say exactly what happens.
Started by a test and always stopped (a context manager).
"""
import http.client
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nginx_server import free_port  # noqa: E402

SLOW_DOWN = (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
             b"<Message>Please reduce your request rate.</Message></Error>")
INTERNAL = (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InternalError</Code>"
            b"<Message>We encountered an internal error. Please try again.</Message></Error>")
SLOW_SECONDS = 1.5
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "expect", "proxy-connection"}


class FaultProxy:
    """`fault(method, path, number)` -> None (forwarded), "503", "500", "reset" (the
    answer's headers and half its body, then the connection closed) or "slow" (forwarded
    after SLOW_SECONDS: a long upload for a progress bar to show); `number` counts the
    requests the proxy has seen, from 1. `faults` lists (method, path, fault) of each one
    injected."""

    def __init__(self, upstream_port, fault):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.upstream_port = upstream_port
        self.fault = fault
        self.faults = []
        self.count = 0
        self.body_bytes = 0  # bytes of the answers' bodies sent on (what clients read)
        self.lock = threading.Lock()
        self.server = None

    def __enter__(self):
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_one(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with proxy.lock:
                    proxy.count += 1
                    number = proxy.count
                action = proxy.fault(self.command, self.path, number)
                if action:
                    with proxy.lock:
                        proxy.faults.append((self.command, self.path, action))
                if action in ("503", "500"):
                    reply = SLOW_DOWN if action == "503" else INTERNAL
                    self.send_response(int(action))
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(reply)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(reply)
                    return
                if action == "slow":
                    time.sleep(SLOW_SECONDS)
                upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=60)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                upstream.request(self.command, self.path, body=body or None, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()
                upstream.close()
                self.send_response(answer.status, answer.reason)
                for k, v in answer.getheaders():
                    if k.lower() not in HOP_BY_HOP and k.lower() != "content-length":
                        self.send_header(k, v)
                # A HEAD's answer has no body: its length is the object's, as sent.
                length = answer.getheader("Content-Length", "0") if self.command == "HEAD" \
                    else str(len(data))
                self.send_header("Content-Length", length)
                self.end_headers()
                if self.command == "HEAD":
                    return
                with proxy.lock:
                    proxy.body_bytes += len(data)
                if action == "reset" and len(data) > 1:
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_one

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)
