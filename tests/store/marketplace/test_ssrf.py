"""The marketplace API address cannot reach inside the network (SSRF): refused when saved,
never connected to when called (even if stored before the rule, or if its name moves inside
later), redirects not followed, and one message whatever was behind the address.

A tripwire records every socket connection and fails any that is not to loopback, so a broken
guard fails these tests instead of sending traffic anywhere."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from store.marketplace import client, secrets
from store.marketplace.models import MarketplaceAccount, MarketplaceCall, MarketplaceOrder
from tests.fixtures.store import API, error
from tests.store.marketplace.helpers import deliver, enable, generic_event, staff

pytestmark = pytest.mark.django_db

SETTINGS = f"{API}/marketplace/settings"
ORDERS = f"{API}/marketplace/orders"
FIELD = "generic.credentials.api_url"
UNREACHABLE = "Generic JSON marketplace could not be reached."

INSIDE = [
    "https://169.254.169.254",
    "https://169.254.169.254/latest/meta-data/",
    "https://127.0.0.1",
    "https://[::1]",
    "https://10.0.0.1",
    "https://[::ffff:127.0.0.1]",
    "https://[::ffff:169.254.169.254]",
    "https://2130706433",  # 127.0.0.1, one number
    "https://0xa9fea9fe",  # 169.254.169.254, hexadecimal
    "https://192.168.1.10:8443/api",
    "https://loopback.example.com/api",  # a name that resolves to loopback
    "https://metadata.example.com",  # a name that resolves to the metadata service
    "https://nowhere.example.com",  # a name that does not resolve
]


@pytest.fixture(autouse=True)
def inside_names(dns):
    dns.table["loopback.example.com"] = ["127.0.0.1"]
    dns.table["metadata.example.com"] = ["169.254.169.254"]
    dns.table["rebind.example.com"] = ["93.184.215.14"]
    return dns


@pytest.fixture(autouse=True)
def connections(monkeypatch):
    seen: list[str] = []
    real_connect = socket.socket.connect

    def connect(sock, address):
        seen.append(address[0])
        if address[0] not in {"127.0.0.1", "::1"}:
            raise AssertionError(f"the client connected to {address[0]}")
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return seen


def generic(api_url: str) -> dict:
    return {"generic": {"credentials": {"api_url": api_url, "api_token": "caller-chosen"}}}


def stored_url() -> str:
    row = MarketplaceAccount.objects.get(marketplace="generic")
    return secrets.unseal(row.credentials).get("api_url", "")


# --- Saving ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", INSIDE)
def test_an_inside_api_url_is_refused_when_saved_and_nothing_changes(url):
    body = error(staff().patch(SETTINGS, generic(url), format="json"), 400, "invalid_param")
    assert set(body["data"]["params"]) == {FIELD}
    # One message, whatever the host is or resolves to: the caller learns nothing of the inside.
    assert body["data"]["params"][FIELD].startswith("The host must be a public internet address")
    for leak in ("127.0.0.1", "169.254", "10.0.0", "192.168", "::1", "loopback"):
        assert leak not in body["data"]["params"][FIELD].replace("a loopback,", "")
    assert not MarketplaceAccount.objects.exists()


def test_an_inside_api_url_leaves_a_saved_one_as_it_was():
    staff().patch(SETTINGS, generic("https://mp.example.com/api"), format="json")
    error(staff().patch(SETTINGS, generic("https://127.0.0.1/api"), format="json"), 400)
    assert stored_url() == "https://mp.example.com/api"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://mp.example.com/api", "must start with https://"),
        ("ftp://mp.example.com/api", "must start with https://"),
        ("mp.example.com/api", "not a valid URL"),
        ("https://mp.example.com/a b", "spaces or control characters"),
    ],
)
def test_an_api_url_that_is_not_https_is_refused(url, message):
    body = error(staff().patch(SETTINGS, generic(url), format="json"), 400, "invalid_param")
    assert message in body["data"]["params"][FIELD]
    assert not MarketplaceAccount.objects.exists()


def test_a_public_https_api_url_is_saved_as_it_will_be_called(connections):
    answer = staff().patch(SETTINGS, generic("https://MP.example.com/api"), format="json")
    assert answer.status_code == 200, answer.content
    assert stored_url() == "https://mp.example.com/api"
    assert connections == []  # saving resolves the name; it connects to nothing


# --- Calling -------------------------------------------------------------------------------------


@pytest.fixture
def order(lamp, settings):
    """A generic marketplace order imported, the live API on."""
    enable("generic", credentials={"api_url": "https://mp.example.com/api", "api_token": "t"})
    deliver(generic_event("evt-G-9", code="G-9"), "generic")
    settings.MARKETPLACE_LIVE_API = True
    return MarketplaceOrder.objects.get(marketplace="generic", code="G-9")


def store_unchecked(api_url: str) -> None:
    """An address stored before the rule existed (or by hand): it was never checked."""
    row = MarketplaceAccount.objects.get(marketplace="generic")
    credentials = secrets.unseal(row.credentials) | {"api_url": api_url}
    MarketplaceAccount.objects.filter(pk=row.pk).update(credentials=secrets.seal(credentials))


def acknowledge(order) -> dict:
    answer = staff().post(f"{ORDERS}/{order.pk}/acknowledge", {}, format="json")
    return error(answer, 502, "marketplace_unavailable")


def assert_not_acknowledged(order) -> None:
    order.refresh_from_db()
    assert order.acknowledged_at is None
    assert not MarketplaceCall.objects.filter(action="acknowledge").exists()


@pytest.mark.parametrize(
    "url",
    [
        "https://169.254.169.254",
        "https://127.0.0.1:8443",
        "https://[::1]",
        "https://10.0.0.1",
        "https://[::ffff:127.0.0.1]",
        "https://loopback.example.com",
    ],
)
def test_an_acknowledge_never_connects_to_an_inside_address(order, connections, url):
    store_unchecked(url)
    body = acknowledge(order)
    assert body["message"] == UNREACHABLE
    assert connections == []
    assert_not_acknowledged(order)


def test_a_name_that_moves_inside_after_it_was_saved_is_not_connected_to(
    order, inside_names, connections
):
    """DNS rebinding: the address is checked again when the socket opens, not only when saved."""
    staff().patch(SETTINGS, generic("https://rebind.example.com:8443/api"), format="json")
    assert stored_url() == "https://rebind.example.com:8443/api"
    inside_names.table["rebind.example.com"] = ["127.0.0.1"]
    assert acknowledge(order)["message"] == UNREACHABLE
    assert connections == []
    assert_not_acknowledged(order)


# --- A real marketplace on this machine (the development switch) --------------------------------


@pytest.fixture
def marketplace():
    """A marketplace API on loopback: `reply` is (status, headers); `hang` holds the answer."""
    state = {"reply": (200, {}), "hang": threading.Event(), "hold": False, "seen": []}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            state["seen"].append((self.path, self.headers.get("Authorization")))
            if state["hold"]:
                state["hang"].wait(10)
                return
            status, headers = state["reply"]
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    state["url"] = f"http://localhost:{httpd.server_address[1]}/api"
    yield state
    state["hang"].set()
    httpd.shutdown()
    httpd.server_close()


def test_with_the_switch_a_local_marketplace_is_called_and_a_redirect_is_not_followed(
    order, settings, marketplace, connections
):
    settings.OUTBOUND_ALLOW_PRIVATE_URLS = True
    answer = staff().patch(SETTINGS, generic(marketplace["url"]), format="json")
    assert answer.status_code == 200, answer.content
    marketplace["reply"] = (302, {"Location": "http://169.254.169.254/latest/meta-data/"})
    assert acknowledge(order)["message"] == "Generic JSON marketplace answered 302 to acknowledge."
    assert set(connections) == {"127.0.0.1"}  # the redirect's target was never connected to
    assert_not_acknowledged(order)
    marketplace["reply"] = (200, {})
    done = staff().post(f"{ORDERS}/{order.pk}/acknowledge", {}, format="json")
    assert done.status_code == 200, done.content
    assert marketplace["seen"][-1] == ("/api/orders/G-9/acknowledge", "Bearer caller-chosen")


def test_the_switch_still_refuses_every_other_inside_range(order, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_URLS = True
    for url in ("https://169.254.169.254", "https://10.0.0.1", "https://metadata.example.com"):
        error(staff().patch(SETTINGS, generic(url), format="json"), 400, "invalid_param")


def test_a_closed_port_a_silent_server_and_a_blocked_address_answer_alike(
    order, settings, marketplace, monkeypatch
):
    """No port scan through the error: refused, timed out and blocked read the same."""
    monkeypatch.setattr(client, "TIMEOUT_SECONDS", 0.3)
    settings.OUTBOUND_ALLOW_PRIVATE_URLS = True
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    closed = probe.getsockname()[1]
    probe.close()
    messages = []
    store_unchecked(f"http://127.0.0.1:{closed}")  # connection refused
    messages.append(acknowledge(order)["message"])
    marketplace["hold"] = True
    store_unchecked(marketplace["url"])  # accepts, never answers
    messages.append(acknowledge(order)["message"])
    store_unchecked("https://169.254.169.254")  # blocked
    messages.append(acknowledge(order)["message"])
    assert messages == [UNREACHABLE] * 3
    assert_not_acknowledged(order)
