"""An HTTP client that reaches only public addresses (SSRF safety).

A webhook URL is chosen by a customer, so the service must not become a way into its own
network. The rule is applied where it cannot be side-stepped, when the socket is opened:

- the connection classes below resolve the host themselves, check **every** address it resolves
  to, and connect only to an address they have checked. A DNS answer that changes between the
  check at creation and the delivery (rebinding) is therefore caught; the URL is also checked
  when it is created or changed, so that the customer hears about it at once;
- TLS is untouched: the socket is wrapped for the URL's host name, so SNI and the certificate
  check are for the name, not the address, and the Host header is the URL's;
- literal addresses in any spelling (`2130706433`, `0x7f000001`, `127.1`, `::ffff:127.0.0.1`)
  go through the same resolution as names and are judged on the address they mean; IPv4-mapped,
  NAT64 and 6to4 IPv6 addresses are judged on the IPv4 address inside;
- redirects are never followed, and no proxy or `.netrc` from the environment is used.

`settings.WEBHOOKS_ALLOW_PRIVATE_URLS` (development and tests only) also allows http:// URLs and
loopback addresses; every other range stays blocked.

The design follows Saleor's requests-hardened (an adapter that pins the connection to a
checked address) but checks all the addresses a name resolves to, blocks the documentation,
shared and reserved ranges too, and does the check in the connection itself, so the pool key,
Host header and TLS settings need no rewriting.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from dataclasses import dataclass

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError
from urllib3.util import parse_url

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_URL_LENGTH = 2048

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


class AddressNotAllowed(Exception):
    """The host is, or resolves to, an address deliveries may not go to. Nothing was sent."""

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


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


class UrlNotAllowed(Exception):
    """The URL cannot be a webhook URL (malformed, wrong scheme, unresolvable or not public)."""


def allow_private() -> bool:
    """Development and tests only: http:// and loopback targets are allowed too."""
    return bool(getattr(settings, "WEBHOOKS_ALLOW_PRIVATE_URLS", False))


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def blocked_kind(address: IPAddress, *, allow_loopback: bool = False) -> str | None:
    """What makes `address` unreachable for deliveries, or None for a public address."""
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
    """Every address `host` resolves to (literal addresses in any spelling included)."""
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


def check_url(url: str) -> CheckedUrl:
    """Validate a webhook URL now: shape, scheme and the addresses its host resolves to.

    The URL is normalised by requests' own preparation, so the host checked here is the host
    the client will connect to (no parser differential).
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
        raise UrlNotAllowed(str(exc)) from None
    except (OSError, UnicodeError):
        raise UrlNotAllowed(f"The host {parsed.host} could not be resolved.") from None
    return CheckedUrl(prepared.url, parsed.host, port, tuple(addresses))


# --- The connection classes: the check happens when the socket is opened ----------------------


class _CheckedConnectMixin:
    host: str
    port: int
    timeout: float | None
    source_address: tuple[str, int] | None
    socket_options: list | None

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
        raise requests.exceptions.InvalidProxyURL("Webhook deliveries never use a proxy.")


def new_session() -> requests.Session:
    session = requests.Session()
    session.trust_env = False  # no proxies, .netrc or CA bundle from the environment
    adapter = PublicAddressAdapter(pool_connections=16, pool_maxsize=4, max_retries=0)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


_local = threading.local()


def session() -> requests.Session:
    """This thread's session (kept-alive connections to receivers are reused)."""
    current = getattr(_local, "session", None)
    if current is None:
        current = _local.session = new_session()
    return current


def close_sessions() -> None:
    current = getattr(_local, "session", None)
    if current is not None:
        current.close()
        _local.session = None
