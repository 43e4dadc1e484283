"""A real HTTP receiver on loopback that does what the spec asks of receivers: it verifies
X-Hub-Signature-256 with a constant-time comparison and answers 401 on a mismatch."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: bytes = b'{"ok": true}'
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    hold: threading.Event | None = None  # answer only once this is set


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    verified: bool

    @property
    def json(self) -> dict:
        return json.loads(self.body)


class Receiver:
    """`replies` are used in order; when they run out, `default` answers."""

    def __init__(self, secret: str = "") -> None:
        self.secret = secret
        self.replies: list[Reply] = []
        self.default = Reply()
        self.received: list[Received] = []
        self.arrived = threading.Event()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                expected = (
                    "sha256=" + hmac.new(receiver.secret.encode(), body, hashlib.sha256).hexdigest()
                )
                signature = self.headers.get("X-Hub-Signature-256", "")
                verified = hmac.compare_digest(expected, signature)
                with receiver._lock:
                    receiver.received.append(
                        Received(self.path, dict(self.headers.items()), body, verified)
                    )
                    reply = receiver.replies.pop(0) if receiver.replies else receiver.default
                receiver.arrived.set()
                if not verified:
                    reply = Reply(status=401, body=b'{"detail": "bad signature"}')
                if reply.hold is not None:
                    reply.hold.wait(60)
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except OSError:
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> Receiver:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def wait_for(self, count: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.received) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"expected {count} requests, got {len(self.received)}")
            time.sleep(0.02)
