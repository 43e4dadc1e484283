import ipaddress
import socket

import pytest

from common import net
from tests.store.orders.factories import stocked

PUBLIC_V4 = "93.184.215.14"


class FakeDNS:
    """The marketplace tests' DNS (common.net's resolver hook): no query leaves the machine.
    Names in the table answer their addresses; literal addresses in any spelling still go
    through the system's parser, exactly as in production; any other name does not resolve."""

    def __init__(self) -> None:
        self.table = {
            "x.example": [PUBLIC_V4],
            "mp.example.com": [PUBLIC_V4],
            "localhost": ["127.0.0.1", "::1"],
        }

    def resolve(self, host: str, port: int):
        host = host.strip("[]").rstrip(".").lower()
        if host in self.table:
            return [ipaddress.ip_address(a) for a in self.table[host]]
        try:
            infos = socket.getaddrinfo(
                host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST
            )
        except (OSError, UnicodeError) as exc:
            raise socket.gaierror(socket.EAI_NONAME, str(exc)) from None
        return [ipaddress.ip_address(info[4][0]) for info in infos]


@pytest.fixture(autouse=True)
def dns(monkeypatch) -> FakeDNS:
    fake = FakeDNS()
    monkeypatch.setattr(net, "resolve", fake.resolve)
    yield fake
    net.close_sessions()


@pytest.fixture
def lamp(db):
    return stocked(title="Lamp", stock=10, price="10.40", sku="LAMP-1")
