import ipaddress
import socket

import pytest

from common import net
from tests.webhooks.receiver import Receiver

PUBLIC_V4 = "93.184.215.14"
PUBLIC_V6 = "2606:2800:21f:cb07:6820:80da:af6b:8b2c"

# The tests' DNS: no query leaves the machine. Literal addresses in any spelling still go
# through the system's parser, exactly as in production.
DNS = {
    "hooks.example.com": [PUBLIC_V4],
    "v6.example.com": [PUBLIC_V6],
    "dual.example.com": [PUBLIC_V4, PUBLIC_V6],
    "localhost": ["127.0.0.1", "::1"],
    "receiver.test": ["127.0.0.1"],
    "webhooks.test": ["127.0.0.1"],
    "intranet.example.com": ["10.0.0.5"],
    "metadata.example.com": ["169.254.169.254"],
    "cgnat.example.com": ["100.64.1.1"],
    "ula.example.com": ["fd12:3456::1"],
    "mapped.example.com": ["::ffff:192.168.1.1"],
    "mixed.example.com": [PUBLIC_V4, "10.1.2.3"],
}


class FakeDNS:
    def __init__(self) -> None:
        self.table = {name: list(addresses) for name, addresses in DNS.items()}
        self.queries: list[str] = []

    def resolve(self, host: str, port: int):
        host = host.strip("[]").rstrip(".").lower()
        self.queries.append(host)
        if host in self.table:
            return [ipaddress.ip_address(a) for a in self.table[host]]
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
        return [ipaddress.ip_address(info[4][0]) for info in infos]


@pytest.fixture(autouse=True)
def dns(monkeypatch) -> FakeDNS:
    fake = FakeDNS()

    def resolve(host, port):
        try:
            return fake.resolve(host, port)
        except socket.gaierror:
            raise
        except (OSError, UnicodeError) as exc:
            raise socket.gaierror(socket.EAI_NONAME, str(exc)) from None

    monkeypatch.setattr(net, "resolve", resolve)
    yield fake
    net.close_sessions()


@pytest.fixture
def allow_private(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_URLS = True


@pytest.fixture
def receiver():
    server = Receiver().start()
    yield server
    server.stop()


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    """Run on-commit work (enqueued deliveries, e-mails) when the block ends."""
    return lambda: django_capture_on_commit_callbacks(execute=True)
