"""Views that every namespace shares: JSON answers for unknown routes and crashes, health."""

from __future__ import annotations

import logging
import secrets
import time

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.views import csrf, defaults
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api.errors import ApiError, PortalErrorStyle, style_for_path

logger = logging.getLogger(__name__)


@csrf_exempt
def api_not_found(request, *args, **kwargs):
    """The last route of every API prefix: a JSON 404 in that namespace's style.

    Exempt from the CSRF check (like every API view): an unsafe method to an unknown route
    is a 404, not Django's HTML "CSRF verification failed" page.
    """
    style = style_for_path(request.path) or PortalErrorStyle()
    return style.json_response(
        ApiError(404, "no_route", f"No route matches {request.method} {request.path}.")
    )


def handler400(request, exception=None):
    style = style_for_path(request.path)
    if style is None:
        return defaults.bad_request(request, exception)
    return style.json_response(ApiError(400, "bad_request", "Bad request."))


def handler403(request, exception=None):
    style = style_for_path(request.path)
    if style is None:
        return defaults.permission_denied(request, exception)
    return style.json_response(ApiError(403, "permission_denied", "Permission denied."))


def handler404(request, exception=None):
    if style_for_path(request.path) is None:
        return defaults.page_not_found(request, exception)
    return api_not_found(request)


def csrf_failure(request, reason=""):
    """CSRF_FAILURE_VIEW: JSON 403 under an API prefix, Django's page elsewhere."""
    style = style_for_path(request.path)
    if style is None:
        return csrf.csrf_failure(request, reason)
    return style.json_response(
        ApiError(403, "csrf_failed", f"CSRF verification failed: {reason or 'refused'}.")
    )


def handler500(request):
    style = style_for_path(request.path)
    if style is None:
        return defaults.server_error(request)
    return style.json_response(
        ApiError(500, "server_error", "An unexpected error occurred. It has been logged.")
    )


# --- Health -----------------------------------------------------------------------------------


def _check(probe) -> dict:
    started = time.monotonic()
    try:
        detail = probe()
    except Exception as exc:  # noqa: BLE001 - a health check reports any failure
        logger.warning("health check failed: %s", exc)
        return {"status": "down", "error": exc.__class__.__name__}
    result = {"status": "up", "latency_ms": round((time.monotonic() - started) * 1000, 1)}
    if detail:
        result.update(detail)
    return result


def _database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"vendor": connection.vendor}


def _cache() -> dict:
    key, value = "healthz:probe", secrets.token_hex(8)
    cache.set(key, value, 10)
    if cache.get(key) != value:
        raise RuntimeError("cache did not return the value written")
    return {"backend": settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]}


def _broker() -> dict:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"mode": "eager"}
    import redis

    client = redis.Redis.from_url(
        settings.CELERY_BROKER_URL, socket_connect_timeout=2, socket_timeout=2
    )
    try:
        client.ping()
    finally:
        client.close()
    return {"mode": "redis"}


class HealthView(APIView):
    """Liveness and readiness: 200 while the database answers, 503 when it does not.

    A cache or broker outage is reported (`status: degraded`) but does not fail the probe: the
    service still answers most requests without them.
    """

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(exclude=True)
    def get(self, request):
        checks = {"database": _check(_database), "cache": _check(_cache), "broker": _check(_broker)}
        if checks["database"]["status"] != "up":
            status = "down"
        elif any(check["status"] != "up" for check in checks.values()):
            status = "degraded"
        else:
            status = "ok"
        return Response(
            {"status": status, "checks": checks},
            status=503 if status == "down" else 200,
            headers={"Cache-Control": "no-store"},
        )
