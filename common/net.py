"""The one HTTP client for every URL the service fetches: it reaches only public addresses.

Webhook URLs, a marketplace's API address and the payment, courier, tax-authority, VAT and
labor-registry services are all called through this module, so that no caller-chosen or
mistyped address can make the service a way into its own network (SSRF). The rule is applied
where it cannot be side-stepped, when the socket is opened:

- the connection classes below resolve the host themselves (through `resolve`, the resolver
  hook that tests replace), check **every** address it resolves to, and connect only to an
  address they have checked: there is no second DNS lookup for a rebinding answer to slip
  into. URLs kept in settings are also checked when saved (`check_url`), so that whoever
  saves one hears about it at once;
- blocked: loopback, private, link-local, shared, multicast, documentation and reserved ranges,
  IPv4 and IPv6; literal addresses in any spelling (`2130706433`, `0x7f000001`, `127.1`,
  `::ffff:127.0.0.1`) are judged on the address they mean; IPv4-mapped, NAT64 and 6to4 IPv6
  addresses on the IPv4 address inside;
- TLS is untouched: the socket is wrapped for the URL's host name, so SNI and the certificate
  check are for the name, not the address, and the Host header is the URL's;
- https:// only; no proxy, `.netrc` or cookie is taken from the environment or kept between
  calls;
- redirects are not followed unless the caller asks (`allow_redirects=True`, at most
  MAX_REDIRECTS hops), and then every hop goes through the same checks, its scheme too, and
  loses the Authorization header when the host changes;
- the whole exchange has one deadline (the caller's timeout, DEFAULT_TIMEOUT without one): a
  watchdog shuts the socket when it passes, so an answer dripped byte by byte cannot hold a
  worker; an answer longer than its cap (MAX_ANSWER_BYTES unless the caller gives one) is
  refused, counted after decompression.

`request()` is what the providers call: every failure before a usable answer (a refused
address, a refused connection, a timeout, a TLS error, an answer too long) becomes one
`OutboundError` with one message, so an API client cannot tell a closed port from a filtered one
or from a blocked address; the detail goes only to the server log. The webhooks use the session
itself (`session()`), classify the failures for their delivery log and read answers themselves.

`settings.OUTBOUND_ALLOW_PRIVATE_URLS` (development and tests only; the older name
WEBHOOKS_ALLOW_PRIVATE_URLS does the same) also allows http:// URLs and loopback addresses, so
that tests and `make run` can reach a server on this machine; every other range stays blocked.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import logging
import os
import socket
import threading
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError
from urllib3.util import Timeout, parse_url

logger = logging.getLogger(__name__)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_URL_LENGTH = 2048
DEFAULT_TIMEOUT = 30.0  # seconds for the whole exchange when the caller names none
MAX_ANSWER_BYTES = 4 * 1024 * 1024  # the providers' answers are JSON, XML or a label PDF
MAX_REDIRECTS = 3
_CHUNK = 64 * 1024

_net = ipaddress.ip_network
LOOPBACK = "loopback"

# (network, what it is). The first match names the refusal.
BLOCKED_V4 = (
    (_net("0.0.0.0/8"), "“this network” (unspecified)"),
    (_net("10.0.0.0/8"), "private"),
    (_net("100.64.0.0/10"), "shared (carrier-grade NAT)"),
    (_net("127.0.0.0/8"), LOOPBACK),
    (_net("169.254.0.0/16"), "link-local"),
    (_net("172.16.0.0/12"), "private"),
    (_net("192.0.0.0/24"), "reserved (IETF protocol assignments)"),
    (_net("192.0.2.0/24"), "documentation"),
    (_net("192.88.99.0/24"), "reserved (6to4 relay anycast)"),
    (_net("192.168.0.0/16"), "private"),
    (_net("198.18.0.0/15"), "reserved (benchmarking)"),
    (_net("198.51.100.0/24"), "documentation"),
    (_net("203.0.113.0/24"), "documentation"),
    (_net("224.0.0.0/4"), "multicast"),
    (_net("240.0.0.0/4"), "reserved (including broadcast)"),
)
BLOCKED_V6 = (
    (_net("::/128"), "unspecified"),
    (_net("::1/128"), LOOPBACK),
    (_net("::/8"), "reserved (IPv4-compatible and other legacy forms)"),
    (_net("64:ff9b:1::/48"), "reserved (local-use IPv4/IPv6 translation)"),
    (_net("100::/64"), "reserved (discard-only)"),
    (_net("2001::/23"), "reserved (IETF protocol assignments, Teredo)"),
    (_net("2001:db8::/32"), "documentation"),
    (_net("3fff::/20"), "documentation"),
    (_net("5f00::/16"), "reserved (segment routing)"),
    (_net("fc00::/7"), "private (unique local)"),
    (_net("fe80::/10"), "link-local"),
    (_net("fec0::/10"), "private (site-local)"),
    (_net("ff00::/8"), "multicast"),
)
GLOBAL_UNICAST_V6 = _net("2000::/3")
NAT64 = _net("64:ff9b::/96")


# --- Errors ------------------------------------------------------------------------------------


class AddressNotAllowed(Exception):
    """The host is, or resolves to, an address calls may not go to. Nothing was sent.

    Its message names the address: it is for the server log and for a webhook's owner, who
    chose the URL; `request()` hides it behind OutboundError.
    """

    def __init__(self, host: str, address: IPAddress, kind: str) -> None:
        self.host, self.address, self.kind = host, address, kind
        shown = str(address)
        if isinstance(address, ipaddress.IPv6Address) and _embedded_ipv4(address) is not None:
            shown += f" (IPv4 {_embedded_ipv4(address)})"
        if _literal(host) == address:
            message = f"{shown} is a {kind} address"
        else:
            message = f"{host} resolves to {shown}, a {kind} address"
        super().__init__(f"{message}; webhooks are delivered to public addresses only.")


class UrlNotAllowed(Exception):
    """The URL cannot be called (malformed, wrong scheme, unresolvable or not public)."""


class AnswerTooLarge(requests.RequestException):
    """The answer is longer than the call's cap; what was read is dropped."""


class DeadlineExceeded(requests.Timeout):
    """The whole exchange took longer than its timeout."""


class OutboundError(Exception):
    """A call that got no usable answer, for whatever reason: the one message says no more."""

    message = "The service could not be reached."

    def __init__(self) -> None:
        super().__init__(self.message)


# --- Addresses ---------------------------------------------------------------------------------


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def allow_private() -> bool:
    """Development and tests only: http:// and loopback targets are allowed too."""
    return bool(
        getattr(settings, "OUTBOUND_ALLOW_PRIVATE_URLS", False)
        or getattr(settings, "WEBHOOKS_ALLOW_PRIVATE_URLS", False)
    )


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def blocked_kind(address: IPAddress, *, allow_loopback: bool = False) -> str | None:
    """What makes `address` unreachable for calls, or None for a public address."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = _embedded_ipv4(address)
        if inner is not None:
            kind = blocked_kind(inner, allow_loopback=allow_loopback)
            if kind is not None:
                return kind
            if address.ipv4_mapped is not None or address in NAT64:
                return None
        ranges = BLOCKED_V6
    else:
        ranges = BLOCKED_V4
    for network, kind in ranges:
        if address in network:
            if kind == LOOPBACK and allow_loopback:
                return None
            return kind
    if isinstance(address, ipaddress.IPv6Address) and address not in GLOBAL_UNICAST_V6:
        return "reserved"
    if not address.is_global:  # whatever the registry adds that the tables above do not name
        return "reserved"
    return None


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address `host` resolves to (literal addresses in any spelling included).

    The resolver hook: every check and every connection resolves through this function, so
    tests replace it (monkeypatch `common.net.resolve`) to answer names from a table.
    """
    infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


def checked_addresses(host: str, port: int) -> list[IPAddress]:
    """Resolve `host` and check every address; raise AddressNotAllowed if any is not public.

    One address inside is enough to refuse: a name that answers both public and private
    addresses is either misconfigured or an attempt to reach the inside.
    """
    allow_loopback = allow_private()
    addresses = resolve(host, port)
    if not addresses:
        raise socket.gaierror(socket.EAI_NONAME, f"{host} has no address")
    for address in addresses:
        kind = blocked_kind(address, allow_loopback=allow_loopback)
        if kind is not None:
            raise AddressNotAllowed(host, address, kind)
    return addresses


@dataclass(frozen=True)
class CheckedUrl:
    url: str
    host: str
    port: int
    addresses: tuple[IPAddress, ...]


NOT_PUBLIC = (
    "The host must be a public internet address: it may not be, or resolve to, a loopback, "
    "private, link-local or reserved address, and it must resolve."
)


def check_url(url: str, *, reveal: bool = True) -> CheckedUrl:
    """Validate a URL to be saved: its shape, its scheme and the addresses its host resolves to.

    The URL is normalised by requests' own preparation, so the host checked here is the host
    the client will connect to (no parser differential). With `reveal=False` every refusal
    about the host (not public, not resolvable) has the same message, NOT_PUBLIC, naming no
    address: what a caller who may not see the inside of the network is told.
    """
    if not isinstance(url, str) or not url.strip():
        raise UrlNotAllowed("Enter a URL.")
    url = url.strip()
    if len(url) > MAX_URL_LENGTH:
        raise UrlNotAllowed(f"A URL may be at most {MAX_URL_LENGTH} characters long.")
    if any(ord(char) < 0x21 or ord(char) == 0x7F for char in url):
        raise UrlNotAllowed("A URL may not contain spaces or control characters.")
    prepared = requests.PreparedRequest()
    try:
        prepared.prepare_url(url, None)
        parsed = parse_url(prepared.url)
    except (requests.RequestException, ValueError) as exc:
        raise UrlNotAllowed(f"This is not a valid URL ({exc}).") from None
    schemes = ("https", "http") if allow_private() else ("https",)
    if parsed.scheme not in schemes:
        raise UrlNotAllowed("The URL must start with https://.")
    if not parsed.host:
        raise UrlNotAllowed("The URL has no host.")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        addresses = checked_addresses(parsed.host, port)
    except AddressNotAllowed as exc:
        raise UrlNotAllowed(str(exc) if reveal else NOT_PUBLIC) from None
    except (OSError, UnicodeError):
        message = f"The host {parsed.host} could not be resolved." if reveal else NOT_PUBLIC
        raise UrlNotAllowed(message) from None
    return CheckedUrl(prepared.url, parsed.host, port, tuple(addresses))


def _check_scheme(url: str) -> None:
    scheme = urlsplit(url).scheme.lower()
    if scheme != "https" and not (scheme == "http" and allow_private()):
        raise UrlNotAllowed("Only https:// URLs are called.")


# --- The deadline: a watchdog shuts the sockets of an exchange that outlives it -----------------


class _Watch:
    """One exchange: its deadline and (duplicates of) the sockets it has used."""

    __slots__ = ("deadline", "fired", "sockets")

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.fired = False
        self.sockets: list[socket.socket] = []

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0 or self.fired:
            raise DeadlineExceeded("The exchange took longer than its timeout.")
        return left


class _Watchdog:
    """One thread per process; it shuts a socket down (the blocked read returns at once) when
    its exchange's deadline passes. Socket timeouts alone bound each read, not their sum."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._cond = threading.Condition()
        self._watches: set[_Watch] = set()
        self._thread: threading.Thread | None = None

    def begin(self, deadline: float) -> _Watch:
        watch = _Watch(deadline)
        with self._cond:
            self._watches.add(watch)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="outbound-deadlines", daemon=True
                )
                self._thread.start()
            self._cond.notify()
        return watch

    def attach(self, watch: _Watch, sock: socket.socket) -> None:
        # A socket of its own (same connection, another descriptor): TLS wrapping detaches the
        # original object, and an SSL socket cannot be duplicated.
        try:
            twin = socket.fromfd(sock.fileno(), sock.family, sock.type)
        except OSError:
            return
        with self._cond:
            if watch.fired:
                _shut(twin)
            watch.sockets.append(twin)

    def end(self, watch: _Watch) -> None:
        with self._cond:
            self._watches.discard(watch)
            twins, watch.sockets = watch.sockets, []
        for twin in twins:
            twin.close()

    def _run(self) -> None:
        while True:
            with self._cond:
                if not self._watches:
                    self._cond.wait()
                    continue
                now = time.monotonic()
                soonest = min(watch.deadline for watch in self._watches)
                if soonest > now:
                    self._cond.wait(soonest - now)
                    continue
                for watch in [w for w in self._watches if w.deadline <= now]:
                    self._watches.discard(watch)
                    watch.fired = True
                    for twin in watch.sockets:
                        _shut(twin)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by its exchange
        sock.shutdown(socket.SHUT_RDWR)


_watchdog = _Watchdog()
os.register_at_fork(after_in_child=_watchdog._reset)
_local = threading.local()


def _watch_socket(sock: socket.socket | None) -> None:
    watch = getattr(_local, "watch", None)
    if watch is not None and sock is not None:
        _watchdog.attach(watch, sock)


# --- The connection classes: the check happens when the socket is opened ----------------------


class _CheckedConnectMixin:
    host: str
    port: int
    timeout: float | None
    source_address: tuple[str, int] | None
    socket_options: list | None
    sock: socket.socket | None

    def _new_conn(self) -> socket.socket:
        host = self._dns_host  # the URL's host; TLS keeps using self.host for SNI and checks
        try:
            addresses = checked_addresses(host, self.port)
        except socket.gaierror as exc:
            raise NameResolutionError(self.host, self, exc) from exc
        deadline = None if self.timeout is None else time.monotonic() + float(self.timeout)
        error: OSError | None = None
        for address in addresses:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                break
            family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
            sock = socket.socket(family, socket.SOCK_STREAM)
            _watch_socket(sock)
            try:
                for option in self.socket_options or ():
                    sock.setsockopt(*option)
                sock.settimeout(remaining)
                if self.source_address:
                    sock.bind(self.source_address)
                sock.connect((str(address), self.port))
            except OSError as exc:
                sock.close()
                error = exc
                continue
            sock.settimeout(self.timeout)
            return sock
        if isinstance(error, TimeoutError) or error is None:
            raise ConnectTimeoutError(
                self, f"Connection to {self.host} timed out. (connect timeout={self.timeout})"
            )
        raise NewConnectionError(self, f"Failed to establish a new connection: {error}")

    def request(self, *args, **kwargs):
        _watch_socket(self.sock)  # a kept-alive connection: this exchange's deadline holds too
        return super().request(*args, **kwargs)


class CheckedHTTPConnection(_CheckedConnectMixin, HTTPConnection):
    pass


class CheckedHTTPSConnection(_CheckedConnectMixin, HTTPSConnection):
    pass


class CheckedHTTPConnectionPool(HTTPConnectionPool):
    ConnectionCls = CheckedHTTPConnection


class CheckedHTTPSConnectionPool(HTTPSConnectionPool):
    ConnectionCls = CheckedHTTPSConnection


class PublicAddressAdapter(HTTPAdapter):
    """A requests transport adapter whose connections reach only checked, public addresses."""

    def init_poolmanager(self, *args, **kwargs) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": CheckedHTTPConnectionPool,
            "https": CheckedHTTPSConnectionPool,
        }

    def proxy_manager_for(self, proxy, **proxy_kwargs):
        raise requests.exceptions.InvalidProxyURL("Outbound calls never use a proxy.")


# --- The session ---------------------------------------------------------------------------------


def _budget(timeout) -> tuple[float, float | None]:
    """(seconds for the whole exchange, seconds for connecting or None) of a requests timeout:
    a number is the whole exchange's; (connect, read) adds up; a urllib3 Timeout its total."""
    if isinstance(timeout, Timeout):
        total = timeout.total
        return (float(total) if isinstance(total, int | float) else DEFAULT_TIMEOUT), None
    if isinstance(timeout, tuple):
        connect, read = timeout
        return float(connect or DEFAULT_TIMEOUT) + float(read or DEFAULT_TIMEOUT), connect
    if isinstance(timeout, int | float):
        return float(timeout), None
    return DEFAULT_TIMEOUT, None


class GuardedSession(requests.Session):
    """A requests session on the checked adapter with the rules of this module: https only,
    redirects followed only when asked (each hop checked again), one deadline for the whole
    exchange, the answer read and capped unless the caller streams it (then the caller caps)."""

    def __init__(self) -> None:
        super().__init__()
        self.trust_env = False  # no proxies, .netrc or CA bundle from the environment
        self.max_redirects = MAX_REDIRECTS
        adapter = PublicAddressAdapter(pool_connections=16, pool_maxsize=4, max_retries=0)
        self.mount("https://", adapter)
        self.mount("http://", adapter)

    def request(  # requests' own signature, plus max_bytes
        self,
        method,
        url,
        params=None,
        data=None,
        headers=None,
        cookies=None,
        files=None,
        auth=None,
        timeout=None,
        allow_redirects=False,
        proxies=None,
        hooks=None,
        stream=None,
        verify=None,
        cert=None,
        json=None,
        max_bytes=None,
    ):
        prepared = self.prepare_request(
            requests.Request(
                method=method.upper(),
                url=url,
                headers=headers,
                files=files,
                data=data or {},
                json=json,
                params=params or {},
                auth=auth,
                cookies=cookies,
                hooks=hooks,
            )
        )
        options = self.merge_environment_settings(prepared.url, proxies or {}, stream, verify, cert)
        return self.send(
            prepared,
            timeout=timeout,
            allow_redirects=allow_redirects,
            max_bytes=max_bytes,
            **options,
        )

    def send(self, request, *, timeout=None, allow_redirects=False, max_bytes=None, **kwargs):
        stream = bool(kwargs.pop("stream", False))
        total, connect = _budget(timeout)
        limit = MAX_ANSWER_BYTES if max_bytes is None else max_bytes
        watch = _watchdog.begin(time.monotonic() + total)
        outer, _local.watch = getattr(_local, "watch", None), watch
        try:
            response = self._hop(request, watch, connect, kwargs)
            hops = 0
            while allow_redirects and response.is_redirect:
                if hops >= self.max_redirects:
                    response.close()
                    raise requests.TooManyRedirects(
                        f"More than {self.max_redirects} redirects.", response=response
                    )
                request = self._redirected(request, response)
                hops += 1
                response = self._hop(request, watch, connect, kwargs)
            if not stream:
                _read_capped(response, watch, limit)
            elif watch.fired:
                response.close()
                raise DeadlineExceeded("The exchange took longer than its timeout.")
            return response
        except (requests.RequestException, OSError) as exc:
            if watch.fired and not isinstance(exc, requests.Timeout):
                raise DeadlineExceeded("The exchange took longer than its timeout.") from exc
            raise
        finally:
            _local.watch = outer
            _watchdog.end(watch)

    def _hop(self, request, watch: _Watch, connect: float | None, kwargs: dict):
        _check_scheme(request.url)
        remaining = watch.remaining()
        limits = Timeout(connect=min(connect, remaining) if connect else None, total=remaining)
        # The adapter itself, not Session.send: that one reads a redirect's whole answer (to
        # offer `response.next`) and keeps cookies, neither of which is wanted here.
        started = time.monotonic()
        response = self.get_adapter(request.url).send(
            request,
            stream=True,
            timeout=limits,
            verify=kwargs.get("verify", True),
            cert=kwargs.get("cert"),
            proxies=kwargs.get("proxies") or {},
        )
        response.elapsed = dt.timedelta(seconds=time.monotonic() - started)
        return response

    def _redirected(self, request, response):
        """The next hop's request, as a browser would make it; the answer is dropped unread."""
        location = self.get_redirect_target(response)
        response.close()
        following = request.copy()
        following.prepare_url(urljoin(request.url, location), None)
        self.rebuild_method(following, response)
        if response.status_code not in (307, 308):
            for name in ("Content-Length", "Content-Type", "Transfer-Encoding"):
                following.headers.pop(name, None)
            following.body = None
        following.headers.pop("Cookie", None)
        self.rebuild_auth(following, response)  # Authorization goes only to the same host
        return following


def _read_capped(response: requests.Response, watch: _Watch, limit: int) -> None:
    """Read the whole answer into `response.content`, refusing one longer than `limit`."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > limit:
        response.close()
        raise AnswerTooLarge(f"The answer declares {declared} bytes; at most {limit} are read.")
    chunks: list[bytes] = []
    size = 0
    try:
        for chunk in response.iter_content(_CHUNK):
            size += len(chunk)
            if size > limit:
                raise AnswerTooLarge(f"The answer is longer than {limit} bytes.")
            chunks.append(chunk)
        if watch.fired:  # the shut socket may have read as a clean end of the answer
            raise DeadlineExceeded("The exchange took longer than its timeout.")
    except BaseException:
        response.close()
        raise
    response._content = b"".join(chunks)
    response._content_consumed = True


def new_session() -> GuardedSession:
    return GuardedSession()


def session() -> GuardedSession:
    """This thread's session (kept-alive connections to a service are reused)."""
    current = getattr(_local, "session", None)
    if current is None:
        current = _local.session = new_session()
    return current


def close_sessions() -> None:
    current = getattr(_local, "session", None)
    if current is not None:
        current.close()
        _local.session = None


# --- The providers' call -------------------------------------------------------------------------


def _shown(url: str) -> str:
    """The URL for the log: no query string or credentials."""
    try:
        parts = urlsplit(url)
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path[:200]}"
    except ValueError:
        return "(an unreadable URL)"


def request(
    method: str,
    url: str,
    *,
    timeout: float,
    max_bytes: int | None = None,
    allow_redirects: bool = False,
    **kwargs,
) -> requests.Response:
    """Send one request and read its whole answer (any status) under this module's rules.

    `timeout` is for the whole exchange. Every failure raises OutboundError, whose message is
    the same whatever happened (so an API client learns nothing about what is behind a URL);
    what happened is logged here.
    """
    try:
        return session().request(
            method,
            url,
            timeout=timeout,
            max_bytes=max_bytes,
            allow_redirects=allow_redirects,
            **kwargs,
        )
    except (
        requests.RequestException,
        AddressNotAllowed,
        UrlNotAllowed,
        OSError,
        ValueError,
    ) as exc:
        logger.warning(
            "Outbound %s %s failed: %s: %s", method.upper(), _shown(url), type(exc).__name__, exc
        )
        raise OutboundError() from None
