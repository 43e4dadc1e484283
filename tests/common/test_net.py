"""common.net, the one outbound HTTP client: redirects, the size cap, the deadline, the pinned
connection and the one generic error. A real server on loopback plays the far side; the
resolver hook answers names from a table, and a tripwire fails any connection that is not to
loopback (so a broken guard fails the test instead of sending traffic anywhere)."""

from __future__ import annotations

import gzip
import ipaddress
import logging
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from common import net

DNS = {
    "service.test": ["127.0.0.1"],
    "other.test": ["127.0.0.1"],
    "inside.test": ["10.0.0.1"],
    "metadata.test": ["169.254.169.254"],
    "mixed.test": ["127.0.0.1", "10.0.0.7"],
    "public.test": ["93.184.215.14"],
}
LOOPBACK = {"127.0.0.1", "::1"}


@pytest.fixture(autouse=True)
def dns(monkeypatch):
    """Names answer from DNS (and count their lookups); the system resolver answers only
    literal addresses: a name looked up anywhere but through the hook fails the test."""
    lookups: list[str] = []

    def resolve(host, port):
        host = host.strip("[]").lower()
        lookups.append(host)
        if host in DNS:
            return [ipaddress.ip_address(a) for a in DNS[host]]
        try:
            infos = real_getaddrinfo(
                host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST
            )
        except (OSError, UnicodeError) as exc:
            raise socket.gaierror(socket.EAI_NONAME, str(exc)) from None
        return [ipaddress.ip_address(info[4][0]) for info in infos]

    real_getaddrinfo = socket.getaddrinfo

    def numeric_only(host, *args, **kwargs):
        try:
            ipaddress.ip_address(str(host).strip("[]"))
        except ValueError:
            raise AssertionError(f"a DNS query for {host} went around the hook") from None
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(net, "resolve", resolve)
    monkeypatch.setattr(socket, "getaddrinfo", numeric_only)
    yield lookups
    net.close_sessions()


@pytest.fixture(autouse=True)
def connections(monkeypatch):
    """Every address a socket connects to; anything but loopback is refused and recorded."""
    seen: list[str] = []
    real_connect = socket.socket.connect

    def connect(sock, address):
        seen.append(address[0])
        if address[0] not in LOOPBACK:
            raise AssertionError(f"the client connected to {address[0]}")
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return seen


@pytest.fixture
def allow_private(settings):
    settings.OUTBOUND_ALLOW_PRIVATE_URLS = True


class Server:
    """Paths: /ok, /auth (echoes Authorization), /big (10 KiB), /chunked (10 KiB, no length),
    /bomb (1 MiB of zeros gzipped), /redirect?to=URL (302), /hang (never answers), /drip
    (headers, then one byte every 50 ms)."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.paths: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _answer(self, body: bytes, status: int = 200, **headers) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name.replace("_", "-"), value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                self.do_POST()

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                parts = urlsplit(self.path)
                server.paths.append(parts.path)
                if parts.path == "/ok":
                    self._answer(b'{"ok": true}')
                elif parts.path == "/auth":
                    self._answer(self.headers.get("Authorization", "none").encode())
                elif parts.path == "/big":
                    self._answer(b"x" * 10240)
                elif parts.path == "/chunked":
                    self.send_response(200)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for _ in range(10):
                        self.wfile.write(b"400\r\n" + b"y" * 1024 + b"\r\n")
                    self.wfile.write(b"0\r\n\r\n")
                elif parts.path == "/bomb":
                    self._answer(gzip.compress(b"\0" * 1024 * 1024), Content_Encoding="gzip")
                elif parts.path == "/redirect":
                    target = parse_qs(parts.query)["to"][0]
                    self._answer(b"", 302, Location=target)
                elif parts.path == "/hang":
                    server.stop.wait(10)
                elif parts.path == "/drip":
                    self.send_response(200)
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    while not server.stop.wait(0.05):
                        try:
                            self.wfile.write(b"z")
                            self.wfile.flush()
                        except OSError:
                            return
                else:
                    self._answer(b"", 404)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def url(self, path: str, host: str = "service.test") -> str:
        return f"http://{host}:{self.port}{path}"


@pytest.fixture
def server():
    running = Server()
    running.thread.start()
    yield running
    running.stop.set()
    running.httpd.shutdown()
    running.httpd.server_close()


def closed_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


# --- Addresses, schemes and the switch -----------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/",
        "https://[::1]/",
        "https://[::ffff:127.0.0.1]/",
        "https://10.0.0.1/",
        "https://169.254.169.254/latest/meta-data",
        "https://2130706433/",
        "https://inside.test/",
        "https://metadata.test/",
        "https://service.test/",
    ],
)
def test_inside_addresses_are_refused_before_any_connection(url, connections):
    with pytest.raises(net.AddressNotAllowed):
        net.new_session().get(url, timeout=2)
    with pytest.raises(net.OutboundError):
        net.request("GET", url, timeout=2)
    assert connections == []


@pytest.mark.parametrize("url", ["http://public.test/", "ftp://public.test/", "file:///etc/passwd"])
def test_only_https_is_called(url, connections):
    with pytest.raises(net.OutboundError):
        net.request("GET", url, timeout=2)
    assert connections == []


def test_the_switch_allows_loopback_and_http_and_nothing_else(settings, server, connections):
    with pytest.raises(net.OutboundError):
        net.request("GET", server.url("/ok"), timeout=2)
    assert connections == []
    settings.OUTBOUND_ALLOW_PRIVATE_URLS = True
    assert net.request("GET", server.url("/ok"), timeout=2).json() == {"ok": True}
    with pytest.raises(net.AddressNotAllowed, match=r"10\.0\.0\.7"):  # one inside among them
        net.new_session().get(server.url("/ok", host="mixed.test"), timeout=2)
    settings.OUTBOUND_ALLOW_PRIVATE_URLS = False
    settings.WEBHOOKS_ALLOW_PRIVATE_URLS = True  # the older name of the same switch
    assert net.request("GET", server.url("/ok"), timeout=2).status_code == 200
    assert set(connections) == {"127.0.0.1"}


def test_the_connection_goes_to_the_checked_address_with_one_lookup(
    allow_private, server, dns, connections
):
    """No second DNS lookup (rebinding): the hook is asked once, the socket goes there, and the
    system resolver is never asked for the name (the fixture would fail the test)."""
    session = net.new_session()
    answer = session.get(server.url("/ok"), timeout=2)
    assert answer.status_code == 200
    assert dns == ["service.test"]
    assert connections == ["127.0.0.1"]
    session.get(server.url("/ok"), timeout=2)  # kept alive: no new lookup, no new connection
    assert dns == ["service.test"]
    assert connections == ["127.0.0.1"]


def test_check_url_without_reveal_names_no_address():
    messages = set()
    for url in (
        "https://inside.test/",
        "https://metadata.test/",
        "https://127.0.0.1/",
        "https://unknown.test/",
    ):
        with pytest.raises(net.UrlNotAllowed) as refused:
            net.check_url(url, reveal=False)
        messages.add(str(refused.value))
    assert messages == {net.NOT_PUBLIC}
    with pytest.raises(net.UrlNotAllowed, match="https://"):
        net.check_url("http://public.test/", reveal=False)
    assert net.check_url("https://Public.test/api", reveal=False).url == "https://public.test/api"


# --- Redirects -----------------------------------------------------------------------------------


def test_redirects_are_not_followed_unless_asked(allow_private, server):
    answer = net.request("GET", server.url("/redirect?to=/ok"), timeout=2)
    assert answer.status_code == 302
    assert server.paths == ["/redirect"]
    followed = net.request("GET", server.url("/redirect?to=/ok"), timeout=2, allow_redirects=True)
    assert followed.json() == {"ok": True}
    assert server.paths == ["/redirect", "/redirect", "/ok"]


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.1/",
        "http://[::ffff:10.0.0.1]/",
        "http://inside.test/",
        "http://metadata.test/",
        "ftp://service.test/",
    ],
)
def test_a_redirect_to_an_inside_address_is_refused(allow_private, server, connections, target):
    url = server.url(f"/redirect?to={target}")
    with pytest.raises(net.OutboundError):
        net.request("GET", url, timeout=2, allow_redirects=True)
    assert connections == ["127.0.0.1"]  # the first hop only


def test_authorization_is_not_carried_to_another_host(allow_private, server):
    same = server.url("/redirect?to=/auth")
    answer = net.request("GET", same, headers={"Authorization": "Bearer t"}, timeout=2,
                         allow_redirects=True)  # fmt: skip
    assert answer.content == b"Bearer t"
    other = server.url(f"/redirect?to={server.url('/auth', host='other.test')}")
    answer = net.request("GET", other, headers={"Authorization": "Bearer t"}, timeout=2,
                         allow_redirects=True)  # fmt: skip
    assert answer.content == b"none"


def test_a_redirect_loop_ends(allow_private, server):
    loop = server.url("/redirect?to=" + server.url("/redirect?to=/redirect%3Fto%3D%2Fredirect"))
    with pytest.raises(net.OutboundError):
        net.request("GET", loop, timeout=2, allow_redirects=True)
    assert len(server.paths) <= net.MAX_REDIRECTS + 1


# --- The size cap and the deadline ---------------------------------------------------------------


@pytest.mark.parametrize("path", ["/big", "/chunked", "/bomb"])
def test_an_answer_longer_than_the_cap_is_refused(allow_private, server, path):
    with pytest.raises(net.AnswerTooLarge):
        net.new_session().get(server.url(path), timeout=2, max_bytes=4096)
    with pytest.raises(net.OutboundError):
        net.request("GET", server.url(path), timeout=2, max_bytes=4096)
    assert net.request("GET", server.url("/big"), timeout=2, max_bytes=10240).content == (
        b"x" * 10240
    )


def test_a_server_that_never_answers_times_out(allow_private, server):
    started = time.monotonic()
    with pytest.raises(net.OutboundError):
        net.request("POST", server.url("/hang"), timeout=0.3)
    assert time.monotonic() - started < 2


def test_the_deadline_holds_for_the_whole_exchange_not_each_read(allow_private, server):
    """One byte every 50 ms never trips a 0.3 s socket timeout; the deadline still ends it."""
    started = time.monotonic()
    with pytest.raises(net.DeadlineExceeded):
        net.new_session().get(server.url("/drip"), timeout=0.3)
    assert time.monotonic() - started < 2
    # The session is still good for the next call.
    assert net.request("GET", server.url("/ok"), timeout=2).status_code == 200


# --- One message for every failure ---------------------------------------------------------------


def test_every_failure_has_the_same_message_and_only_the_log_says_which(settings, server, caplog):
    def failure(url: str, **options) -> str:
        with pytest.raises(net.OutboundError) as failed:
            net.request("GET", url, **{"timeout": 0.3, **options})
        return str(failed.value)

    with caplog.at_level(logging.WARNING, logger="common.net"):
        messages = [failure(f"https://service.test:{server.port}/ok")]  # blocked: loopback
        settings.OUTBOUND_ALLOW_PRIVATE_URLS = True
        messages += [
            failure(f"http://service.test:{closed_port()}/ok"),  # connection refused
            failure(server.url("/hang")),  # timeout
            failure(server.url("/big"), max_bytes=100),  # too large
            failure(server.url("/redirect?to=http://inside.test/"), allow_redirects=True),
            failure(f"https://service.test:{server.port}/ok"),  # no TLS there
        ]
    assert set(messages) == {net.OutboundError.message}
    logged = [record.getMessage() for record in caplog.records]
    assert len(logged) == len(messages)
    assert "AddressNotAllowed" in logged[0]
    assert "ConnectionError" in logged[1]
    assert "Timeout" in logged[2] or "Deadline" in logged[2]
    assert "AnswerTooLarge" in logged[3]


def test_the_client_is_a_requests_session_for_libraries(allow_private, server):
    """What the Stripe library is given: requests' interface, the guard underneath."""
    session = net.session()
    assert isinstance(session, requests.Session)
    assert session is net.session()  # one per thread
    answer = session.request("GET", server.url("/ok"), headers={"X": "1"}, timeout=2)
    assert answer.json() == {"ok": True}
    with pytest.raises(net.AddressNotAllowed):
        session.request("GET", "http://inside.test/", timeout=2)
