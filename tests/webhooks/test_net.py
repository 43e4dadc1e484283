"""SSRF safety: every range the issue lists is refused at creation and at connect time."""

import datetime as dt
import ipaddress
import ssl
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from common import net
from webhooks import sender
from webhooks.models import DeliveryAttempt

BLOCKED_LITERALS = [
    # (address, what it is)
    ("127.0.0.1", "loopback"),
    ("127.255.255.254", "loopback"),
    ("10.0.0.1", "private"),
    ("172.16.0.1", "private"),
    ("172.31.255.255", "private"),
    ("192.168.1.1", "private"),
    ("169.254.169.254", "link-local"),
    ("100.64.0.1", "shared"),
    ("100.127.255.254", "shared"),
    ("0.0.0.0", "unspecified"),  # noqa: S104 - an address to refuse, not to bind
    ("0.1.2.3", "unspecified"),
    ("192.0.0.8", "reserved"),
    ("192.88.99.1", "reserved"),
    ("198.18.0.1", "reserved"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "reserved"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("192.0.2.10", "documentation"),
    ("198.51.100.10", "documentation"),
    ("203.0.113.10", "documentation"),
    ("::1", "loopback"),
    ("::", "unspecified"),
    ("fe80::1", "link-local"),
    ("fc00::1", "private"),
    ("fd12:3456::1", "private"),
    ("fec0::1", "private"),
    ("ff02::1", "multicast"),
    ("2001:db8::1", "documentation"),
    ("3fff::1", "documentation"),
    ("2001::1", "reserved"),
    ("100::1", "reserved"),
    ("::ffff:127.0.0.1", "loopback"),
    ("::ffff:10.0.0.1", "private"),
    ("::ffff:169.254.169.254", "link-local"),
    ("::ffff:100.64.0.1", "shared"),
    ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
    ("2002:c0a8:101::1", "private"),  # 6to4 of 192.168.1.1
    ("::127.0.0.1", "reserved"),  # IPv4-compatible (deprecated)
]

PUBLIC = ["93.184.215.14", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]


@pytest.mark.parametrize(("literal", "kind"), BLOCKED_LITERALS)
def test_blocked_ranges(literal, kind):
    found = net.blocked_kind(ipaddress.ip_address(literal))
    assert found is not None, literal
    assert kind in found


@pytest.mark.parametrize("literal", PUBLIC)
def test_public_addresses_pass(literal):
    assert net.blocked_kind(ipaddress.ip_address(literal)) is None


def test_loopback_is_allowed_only_by_the_development_switch():
    loopback = ipaddress.ip_address("127.0.0.1")
    assert net.blocked_kind(loopback) == "loopback"
    assert net.blocked_kind(loopback, allow_loopback=True) is None
    assert net.blocked_kind(ipaddress.ip_address("::ffff:127.0.0.1"), allow_loopback=True) is None
    # Everything else stays blocked even then.
    assert net.blocked_kind(ipaddress.ip_address("10.0.0.1"), allow_loopback=True) == "private"
    assert "link-local" in net.blocked_kind(
        ipaddress.ip_address("169.254.169.254"), allow_loopback=True
    )


def _host(literal: str) -> str:
    return f"[{literal}]" if ":" in literal else literal


@pytest.mark.parametrize(("literal", "kind"), BLOCKED_LITERALS)
def test_check_url_refuses_literal_addresses(literal, kind):
    with pytest.raises(net.UrlNotAllowed) as refused:
        net.check_url(f"https://{_host(literal)}/hook")
    assert kind in str(refused.value)
    assert "public addresses only" in str(refused.value)


@pytest.mark.parametrize(
    ("host", "meaning"),
    [
        ("2130706433", "127.0.0.1"),  # decimal
        ("0x7f000001", "127.0.0.1"),  # hexadecimal
        ("0x7f.0x0.0x0.0x1", "127.0.0.1"),  # dotted hexadecimal
        ("0177.0.0.1", "127.0.0.1"),  # octal
        ("017700000001", "127.0.0.1"),  # octal, one number
        ("127.1", "127.0.0.1"),  # short form
        ("0", "0.0.0.0"),  # noqa: S104 - an address to refuse, not to bind
        ("167772161", "10.0.0.1"),  # decimal
        ("0xa9fea9fe", "169.254.169.254"),  # the metadata service, hexadecimal
        ("3232235777", "192.168.1.1"),
        ("[::ffff:7f00:1]", "IPv4 127.0.0.1"),  # IPv4-mapped, hexadecimal groups
        ("[0:0:0:0:0:ffff:a9fe:a9fe]", "IPv4 169.254.169.254"),
    ],
)
def test_check_url_refuses_other_spellings_of_inside_addresses(host, meaning):
    with pytest.raises(net.UrlNotAllowed) as refused:
        net.check_url(f"https://{host}/hook")
    assert meaning in str(refused.value)


@pytest.mark.parametrize(
    ("host", "address", "kind"),
    [
        ("intranet.example.com", "10.0.0.5", "private"),
        ("metadata.example.com", "169.254.169.254", "link-local"),
        ("cgnat.example.com", "100.64.1.1", "shared"),
        ("ula.example.com", "fd12:3456::1", "private"),
        ("mapped.example.com", "(IPv4 192.168.1.1)", "private"),
        ("localhost", "127.0.0.1", "loopback"),
        # One inside address among public ones is enough to refuse.
        ("mixed.example.com", "10.1.2.3", "private"),
    ],
)
def test_check_url_refuses_names_that_resolve_inside(host, address, kind):
    with pytest.raises(net.UrlNotAllowed) as refused:
        net.check_url(f"https://{host}/hook")
    message = str(refused.value)
    assert message.startswith(f"{host} resolves to ")
    assert f"{address}, a {kind}" in message


def test_check_url_accepts_public_https_and_normalises():
    checked = net.check_url("https://Hooks.Example.com/emporion?x=1")
    assert checked.url == "https://hooks.example.com/emporion?x=1"
    assert checked.port == 443
    assert [str(a) for a in checked.addresses] == ["93.184.215.14"]
    assert net.check_url("https://dual.example.com:8443").url == "https://dual.example.com:8443/"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://hooks.example.com/x", "must start with https://"),
        ("ftp://hooks.example.com/x", "must start with https://"),
        ("hooks.example.com/x", "not a valid URL"),
        ("https://", "not a valid URL"),
        ("https://unknown.example.com/x", "could not be resolved"),
        ("https://hooks.example.com/a b", "spaces or control characters"),
        ("https://hooks.example.com/" + "a" * 2100, "at most 2048"),
        ("", "Enter a URL"),
    ],
)
def test_check_url_refuses_malformed_urls(url, message):
    with pytest.raises(net.UrlNotAllowed, match=message):
        net.check_url(url)


def test_development_switch_allows_http_and_loopback_only(allow_private):
    assert net.check_url("http://127.0.0.1:9/hook").url == "http://127.0.0.1:9/hook"
    assert net.check_url("http://localhost:9/hook").port == 9
    with pytest.raises(net.UrlNotAllowed, match="private"):
        net.check_url("http://10.0.0.1/hook")
    with pytest.raises(net.UrlNotAllowed, match="link-local"):
        net.check_url("http://169.254.169.254/latest/meta-data")


# --- At connect time --------------------------------------------------------------------------


def test_a_name_that_turns_inside_after_creation_is_blocked_when_connecting(dns, receiver):
    """DNS rebinding: the address is checked when the socket opens, not only at creation."""
    dns.table["rebind.example.com"] = ["93.184.215.14"]
    url = f"https://rebind.example.com:{receiver.port}/hook"
    assert net.check_url(url).url == url  # public when the webhook is created
    dns.table["rebind.example.com"] = ["127.0.0.1"]  # then the name moves inside
    result = sender.send(
        url=url,
        body="{}",
        secret="s",
        event="ping",
        delivery_id="d",
    )
    assert result.outcome == DeliveryAttempt.Outcome.BLOCKED
    assert result.error.startswith("Blocked: rebind.example.com resolves to 127.0.0.1")
    assert receiver.received == []


@pytest.mark.parametrize(
    "url",
    [
        "https://2130706433/hook",
        "https://0x7f000001/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://metadata.example.com/latest/meta-data",
        "https://mixed.example.com/hook",
    ],
)
def test_the_client_refuses_inside_addresses_before_connecting(url):
    with pytest.raises(net.AddressNotAllowed):
        net.new_session().post(url, data=b"{}", timeout=2, allow_redirects=False)


def test_the_client_checks_every_address_even_with_the_switch_on(allow_private, receiver):
    # Loopback is allowed by the switch; a private address among the answers still blocks.
    with pytest.raises(net.AddressNotAllowed, match=r"10\.1\.2\.3"):
        net.new_session().post("http://mixed.example.com/", data=b"{}", timeout=2)
    response = net.new_session().post(f"http://receiver.test:{receiver.port}/x", data=b"{}")
    assert response.status_code == 401  # reached: the receiver refused the unsigned body


def test_environment_proxies_are_ignored(monkeypatch, allow_private, receiver):
    monkeypatch.setenv("HTTP_PROXY", "http://10.9.9.9:3128")
    monkeypatch.setenv("HTTPS_PROXY", "http://10.9.9.9:3128")
    response = net.new_session().post(receiver.url, data=b"{}", timeout=5)
    assert response.status_code == 401
    assert len(receiver.received) == 1


# --- TLS: the connection goes to the checked address, SNI and the certificate to the name --------


def _certificate(tmp: Path, names: list[str]) -> tuple[Path, Path, Path]:
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), True
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names]), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    (tmp / "ca.pem").write_bytes(ca.public_bytes(pem))
    (tmp / "leaf.pem").write_bytes(leaf.public_bytes(pem))
    (tmp / "leaf.key").write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return tmp / "ca.pem", tmp / "leaf.pem", tmp / "leaf.key"


@pytest.fixture
def tls_receiver():
    seen_sni: list[str | None] = []
    seen_host: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            seen_host.append(self.headers["Host"])
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

    with tempfile.TemporaryDirectory() as tmp:
        ca, leaf, key = _certificate(Path(tmp), ["webhooks.test"])
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(leaf, key)
        context.sni_callback = lambda sock, name, ctx: seen_sni.append(name)
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        thread.start()
        yield server.server_address[1], str(ca), seen_sni, seen_host
        server.shutdown()
        server.server_close()


def test_tls_keeps_the_host_name_for_sni_certificate_and_host_header(allow_private, tls_receiver):
    port, ca, seen_sni, seen_host = tls_receiver
    response = net.new_session().post(
        f"https://webhooks.test:{port}/hook", data=b"{}", timeout=5, verify=ca
    )
    assert response.status_code == 204
    assert seen_sni == ["webhooks.test"]
    assert seen_host == [f"webhooks.test:{port}"]


def test_tls_certificate_for_another_name_is_refused(allow_private, dns, tls_receiver):
    port, ca, _seen_sni, seen_host = tls_receiver
    dns.table["other.test"] = ["127.0.0.1"]
    with pytest.raises(requests.exceptions.SSLError):
        net.new_session().post(f"https://other.test:{port}/hook", data=b"{}", verify=ca)
    assert seen_host == []
