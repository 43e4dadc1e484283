"""Prometheus metrics, served at /metrics to a scraper that shows
METRICS_TOKEN (`Authorization: Bearer ...`) or comes from METRICS_ALLOWED_NETWORKS.

- `emporion_http_request_duration_seconds{method, route}`: latency by route (the URL
  pattern, never the raw path, so ids do not explode the label set);
- `emporion_http_responses_total{method, route, status}`: answers by status class (2xx, 4xx,
  5xx ...);
- `emporion_task_runs_total{task, outcome}` (success, failure, retry) and
  `emporion_task_duration_seconds{task}`: Celery task runs;
- `emporion_webhook_deliveries_total{outcome}`: webhook delivery attempts by outcome;
- `emporion_queue_depth{queue}`: read at scrape time: the outbox's unsent rows and, when the
  broker is Redis, each Celery queue's length (best effort: an unreachable broker is skipped).

Several processes (gunicorn workers, Celery workers) each count their own; with
PROMETHEUS_MULTIPROC_DIR set (prometheus_client's multiprocess mode, docs/deploy.md) the
answer sums every process's files.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import secrets
import time

from django.conf import settings
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from rest_framework.throttling import BaseThrottle

logger = logging.getLogger(__name__)

UNMATCHED = "<unmatched>"

REQUEST_SECONDS = Histogram(
    "emporion_http_request_duration_seconds",
    "Time to answer a request, by route.",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
RESPONSES = Counter(
    "emporion_http_responses",
    "Answers by route and status class.",
    ["method", "route", "status"],
)
TASK_RUNS = Counter("emporion_task_runs", "Celery task runs by outcome.", ["task", "outcome"])
TASK_SECONDS = Histogram(
    "emporion_task_duration_seconds",
    "Celery task run time.",
    ["task"],
    buckets=(0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300),
)
WEBHOOK_DELIVERIES = Counter(
    "emporion_webhook_deliveries", "Webhook delivery attempts by outcome.", ["outcome"]
)

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def _route(request) -> str:
    match = getattr(request, "resolver_match", None)
    route = getattr(match, "route", None)
    return "/" + route if route else UNMATCHED


class MetricsMiddleware:
    """Times every request and counts its answer (outermost but for the request id)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        method = request.method if request.method in _METHODS else "OTHER"
        route = _route(request)
        REQUEST_SECONDS.labels(method, route).observe(time.perf_counter() - started)
        RESPONSES.labels(method, route, f"{response.status_code // 100}xx").inc()
        return response


def webhook_delivered(outcome: str) -> None:
    WEBHOOK_DELIVERIES.labels(outcome).inc()


# --- Celery ------------------------------------------------------------------------------------

_task_started: dict[str, float] = {}


def _prerun(task_id=None, **kwargs) -> None:
    if task_id:
        _task_started[task_id] = time.perf_counter()


def _postrun(task_id=None, task=None, state=None, **kwargs) -> None:
    started = _task_started.pop(task_id, None) if task_id else None
    name = getattr(task, "name", "unknown")
    if started is not None:
        TASK_SECONDS.labels(name).observe(time.perf_counter() - started)
    outcome = {"SUCCESS": "success", "FAILURE": "failure", "RETRY": "retry"}.get(state or "")
    if outcome:
        TASK_RUNS.labels(name, outcome).inc()


def connect_celery_signals() -> None:
    from celery import signals

    signals.task_prerun.connect(_prerun, dispatch_uid="metrics_prerun")
    signals.task_postrun.connect(_postrun, dispatch_uid="metrics_postrun")


# --- Queue depth, read at scrape time -------------------------------------------------------

QUEUES = ("celery",)


class QueueDepthCollector:
    @staticmethod
    def _family() -> GaugeMetricFamily:
        return GaugeMetricFamily(
            "emporion_queue_depth",
            "Work waiting: outbox rows unsent, broker queues.",
            labels=["queue"],
        )

    def describe(self):  # what registering asks for: the names, without reading anything
        yield self._family()

    def collect(self):
        gauge = self._family()
        try:
            from common.models import OutboxMessage

            gauge.add_metric(["outbox"], OutboxMessage.objects.filter(sent_at__isnull=True).count())
        except Exception as exc:  # a scrape never fails on one source  # noqa: BLE001
            logger.warning("metrics: the outbox depth could not be read: %s", exc)
        for queue, depth in _broker_depths():
            gauge.add_metric([queue], depth)
        yield gauge


def _broker_depths() -> list[tuple[str, int]]:
    url = getattr(settings, "CELERY_BROKER_URL", "") or ""
    if not url.startswith(("redis://", "rediss://")):
        return []
    try:
        import redis

        client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        names = sorted(set(QUEUES) | set(getattr(settings, "CELERY_QUEUE_NAMES", ())))
        pipe = client.pipeline(transaction=False)
        for name in names:
            pipe.llen(name)
        return list(zip(names, (int(n) for n in pipe.execute()), strict=True))
    except Exception as exc:  # noqa: BLE001 - the broker is best effort here
        logger.warning("metrics: the broker's queue depths could not be read: %s", exc)
        return []


_collector = QueueDepthCollector()
REGISTRY.register(_collector)


# --- The /metrics view -------------------------------------------------------------------------


def _allowed(request) -> bool:
    token = settings.METRICS_TOKEN
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if (
        token
        and header.startswith("Bearer ")
        and secrets.compare_digest(header[7:].strip().encode(), token.encode())
    ):
        return True
    networks = settings.METRICS_ALLOWED_NETWORKS
    if networks:
        try:  # the address as the rate limits see it (NUM_PROXIES)
            address = ipaddress.ip_address(BaseThrottle().get_ident(request) or "")
        except ValueError:
            return False
        return any(address in ipaddress.ip_network(net, strict=False) for net in networks)
    return False


def _registry():
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        return REGISTRY
    from prometheus_client import multiprocess

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=directory)
    registry.register(_collector)
    return registry


@csrf_exempt  # GET only: a POST answers 405, not a CSRF page
def metrics_view(request):
    """GET /metrics: the text exposition format. Refused: 401 (with a Bearer challenge) when a
    token is configured, else 403; both when nothing is configured (metrics are off)."""
    if request.method not in ("GET", "HEAD"):
        return HttpResponse(status=405, headers={"Allow": "GET, HEAD"})
    if not _allowed(request):
        if settings.METRICS_TOKEN:
            return HttpResponse(
                "A metrics token is required.\n",
                status=401,
                content_type="text/plain",
                headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
            )
        return HttpResponse("Not allowed.\n", status=403, content_type="text/plain")
    return HttpResponse(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)
