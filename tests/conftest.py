import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts import services as account_services
from common import breaker
from config.celery import app as celery_app


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _eager_tasks(request):
    """Tasks run in the test's process, also when REDIS_URL points at a real broker.

    Tests marked `redis` opt out: they send through the broker to a real worker.
    """
    if request.node.get_closest_marker("redis"):
        yield
        return
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = previous


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
