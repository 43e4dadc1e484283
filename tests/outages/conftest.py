"""A Redis of the test's own, to stop and freeze; the cache and the broker pointed at it.

Never the shared Redis: each test starts `redis-server` on a free port and stops that one.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from contextlib import contextmanager

import pytest
from django.conf import settings
from django.test import override_settings
from kombu import pools

from common import breaker
from config.celery import app as celery_app

REDIS_SERVER = shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """`redis-server` on a free loopback port: start, stop, freeze. Without persistence, or,
    with a `directory`, keeping its data over a stop as a packaged one does (a snapshot written
    when stopped, loaded when started again)."""

    def __init__(self, directory: str | None = None) -> None:
        self.port = _free_port()
        self.directory = directory
        self.process: subprocess.Popen | None = None
        self.frozen = False

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.process = subprocess.Popen(  # noqa: S603 - a fixed binary and our own arguments
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "3600 1" if self.directory else "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                *(["--dir", self.directory] if self.directory else []),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)
        return self

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """Down: the process is gone, connections are refused."""
        if self.process is not None and self.process.poll() is None:
            self.thaw()
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None

    def freeze(self) -> None:
        """Frozen (SIGSTOP): connections are accepted by the kernel, nothing ever answers."""
        os.kill(self.process.pid, signal.SIGSTOP)
        self.frozen = True

    def thaw(self) -> None:
        if self.frozen and self.process is not None:
            os.kill(self.process.pid, signal.SIGCONT)
            self.frozen = False


@pytest.fixture
def redis_server():
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed: the outage tests need one to stop")
    server = RedisServer().start()
    breaker.reset_all()
    yield server
    server.stop()
    breaker.reset_all()


def redis_cache_settings(url: str) -> dict:
    """The production cache configuration (config/settings/cache_and_celery.py), at `url`."""
    return {
        "default": {
            "BACKEND": "common.cache.ResilientRedisCache",
            "LOCATION": url,
            "KEY_PREFIX": "emporion",
            "OPTIONS": {
                "socket_connect_timeout": settings.CACHE_SOCKET_TIMEOUT,
                "socket_timeout": settings.CACHE_SOCKET_TIMEOUT,
                "breaker_seconds": settings.REDIS_BREAKER_SECONDS,
            },
        }
    }


@pytest.fixture
def redis_cache(redis_server):
    """The cache is our Redis (override_settings resets Django's cache connections)."""
    with override_settings(CACHES=redis_cache_settings(redis_server.url)):
        yield redis_server


def _forget_broker_connections() -> None:
    """The app looks its connection pools up again (kombu keeps them per broker URL)."""
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@contextmanager
def broker_at(url: str):
    """Tasks are published to the broker at `url` (not run eagerly) inside the block."""
    previous = celery_app.conf.broker_url, celery_app.conf.task_always_eager
    _forget_broker_connections()
    celery_app.conf.broker_url = url
    celery_app.conf.task_always_eager = False
    try:
        yield
    finally:
        pools.reset()  # closes the connections to our Redis (the others reopen on demand)
        _forget_broker_connections()
        celery_app.conf.broker_url, celery_app.conf.task_always_eager = previous
        breaker.reset_all()


@pytest.fixture
def redis_broker(redis_server):
    """The cache and the broker are our Redis, as in production (one REDIS_URL)."""
    # broker_at first: Celery reads unset options from Django's settings as they are now, so it
    # must note the broker of the suite before override_settings changes it.
    with (
        broker_at(redis_server.url),
        override_settings(
            CACHES=redis_cache_settings(redis_server.url),
            CELERY_TASK_ALWAYS_EAGER=False,
            CELERY_BROKER_URL=redis_server.url,
        ),
    ):
        yield redis_server


@contextmanager
def timed():
    """`with timed() as elapsed: ...; elapsed()` answers the block's seconds."""
    started = time.monotonic()
    finished: list[float] = []
    yield lambda: (finished[0] if finished else time.monotonic()) - started
    finished.append(time.monotonic())
