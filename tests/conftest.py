import gc
import itertools
import os

import pytest
from django.core.cache import cache
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from rest_framework.test import APIClient

from accounts import services as account_services
from common import breaker
from tests.fixtures.isolation import root_logging_kept
from tests.fixtures.tasks import eager_tasks

_media_numbers = itertools.count()

pytest_plugins = [
    "tests.fixtures.db",
    "tests.fixtures.demo",
    "tests.fixtures.markers",
    "tests.fixtures.store",
]

# Property tests: each names its number of examples in its own @settings. Their fixtures build
# rows per test (function-scoped, rolled back), and a case that writes orders is slow by the
# clock, not by design: neither is a health problem. "ci" draws the same examples on every run
# (derandomized, nothing kept between runs), so a red CI is never a roll of the dice; the
# default explores anew on every run and remembers what failed in .hypothesis/.
hypothesis_settings.register_profile(
    "dev",
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
hypothesis_settings.register_profile(
    "ci", hypothesis_settings.get_profile("dev"), derandomize=True, database=None
)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_collection_finish(session):
    """The modules, the app registry and the collected tests live as long as the run: frozen,
    the cyclic garbage collector stops walking them again and again, and it runs less often
    (each test's requests make tens of thousands of short-lived objects). Measured: the
    collector's share of a run fell from about a tenth to a twentieth."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 50, 100)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Captured output in UTF-8 only: a test that logs a lone surrogate on purpose (hostile
    input) would otherwise break the report's way back from an xdist worker."""
    report = yield
    report.sections = [
        (title, text.encode("utf-8", "backslashreplace").decode("utf-8"))
        for title, text in report.sections
    ]
    return report


@pytest.fixture(scope="session")
def _media_base(tmp_path_factory):
    return tmp_path_factory.mktemp("media")


@pytest.fixture(autouse=True)
def _media_root(settings, _media_base):
    """Uploaded files go to a directory of the test's own (made when something is saved),
    never into the repository nor beside another test's files."""
    settings.MEDIA_ROOT = _media_base / f"{next(_media_numbers)}"
    return settings.MEDIA_ROOT


@pytest.fixture
def media_dir(_media_root):
    return _media_root


@pytest.fixture(autouse=True)
def _eager_tasks(request):
    """Tasks run in the test's process, also when REDIS_URL points at a real broker.

    Tests marked `redis` opt out: they send through the broker to a real worker.
    """
    if request.node.get_closest_marker("redis"):
        yield
        return
    with eager_tasks():
        yield


@pytest.fixture(autouse=True)
def _empty_cache():
    """Rate-limit counters and markers live in the cache: every test starts from zero, and
    with no service skipped by a circuit breaker another test tripped (common.breaker)."""
    breaker.reset_all()
    cache.clear()
    yield
    cache.clear()
    breaker.reset_all()


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def client_for():
    """An APIClient carrying a fresh bearer token of `user`."""

    def make(user) -> APIClient:
        client = APIClient()
        tokens = account_services.issue_tokens(user)
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {tokens['access_token']}")
        return client

    return make


@pytest.fixture
def redis_round_trips(monkeypatch):
    """The commands sent to Redis, one entry per round trip (a pipeline is one)."""
    from redis.connection import Connection

    sent: list[bytes] = []
    original = Connection.send_packed_command

    def send(self, command, check_health=True):
        chunks = [command] if isinstance(command, bytes | str) else list(command)
        sent.append(b"".join(c if isinstance(c, bytes) else c.encode() for c in chunks)[:80])
        return original(self, command, check_health)

    monkeypatch.setattr(Connection, "send_packed_command", send)
    return sent


@pytest.fixture
def cache_calls(monkeypatch):
    """The default cache's calls a request makes, as (method, first key) in order; a call
    the backend makes from inside another (a local-memory get_many calls get) is not one."""
    from django.core.cache import caches

    backend = caches["default"]
    calls: list[tuple[str, str]] = []
    inside: list[str] = []
    for name in ("get", "get_many", "set", "add", "delete", "set_many", "incr"):
        original = getattr(backend, name)

        def spy(*args, _name=name, _original=original, **kwargs):
            if not inside:
                calls.append((_name, str(args[0]) if args else ""))
            inside.append(_name)
            try:
                return _original(*args, **kwargs)
            finally:
                inside.pop()

        monkeypatch.setattr(backend, name, spy)
    return calls


@pytest.fixture(autouse=True)
def _root_logging_kept():
    with root_logging_kept():
        yield
