"""Error bodies, one style per namespace.

A single exception handler turns every exception into (status, code, message, field errors,
headers); the *style* of the namespace that served the request decides the body's shape and the
status of invalid input:

- portal (`/api/`): `{"detail", "code", "errors"?}`, invalid fields 422 (spec: Errors);
- store (`/{REST_ROOT}/`): `{"code", "message", "data": {"status", "params"?}}`, invalid
  parameters 400 (spec: commerce Errors), added by the store apps.

The database unreachable (refused, timed out, no pooled connection, a connection lost) is
503 `service_unavailable` with Retry-After in every namespace: the request may succeed in a
moment, and nothing about it is a crash.

Styles are registered by path prefix in settings.API_ERROR_STYLES; the longest prefix wins.
"""

from __future__ import annotations

import logging
import math
import sqlite3
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cache

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.db.models import ProtectedError, RestrictedError
from django.http import Http404, JsonResponse
from django.utils.module_loading import import_string
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

from common.errors import ServiceError, ValidationFailed, summarise_errors

logger = logging.getLogger(__name__)


@dataclass
class ApiError:
    status: int
    code: str
    message: str
    errors: dict[str, list[str]] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    kind: str = "error"  # "validation" for invalid field values


class ErrorStyle(ABC):
    """How one namespace spells its errors."""

    validation_status = 422

    @abstractmethod
    def body(self, error: ApiError) -> dict:
        """The JSON body for `error`."""

    def status_for(self, error: ApiError) -> int:
        return self.validation_status if error.kind == "validation" else error.status

    def response(self, error: ApiError) -> Response:
        status = self.status_for(error)
        error.status = status
        return Response(self.body(error), status=status, headers=error.headers or None)

    def json_response(self, error: ApiError) -> JsonResponse:
        """For answers made outside DRF (unknown routes, crashes)."""
        status = self.status_for(error)
        error.status = status
        response = JsonResponse(self.body(error), status=status)
        for name, value in error.headers.items():
            response[name] = value
        return response


class PortalErrorStyle(ErrorStyle):
    validation_status = 422

    def body(self, error: ApiError) -> dict:
        body: dict = {"detail": error.message, "code": error.code}
        if error.errors:
            body["errors"] = error.errors
        return body


@cache
def _styles() -> list[tuple[str, ErrorStyle]]:
    registered = {"/api/": "common.api.errors.PortalErrorStyle"}
    registered.update(getattr(settings, "API_ERROR_STYLES", {}))
    styles = [(prefix, import_string(path)()) for prefix, path in registered.items()]
    return sorted(styles, key=lambda item: len(item[0]), reverse=True)


def style_for_path(path: str) -> ErrorStyle | None:
    """The error style of the API namespace `path` belongs to, or None outside the APIs."""
    for prefix, style in _styles():
        if path.startswith(prefix):
            return style
    return None


# --- Turning exceptions into ApiError ---------------------------------------------------------


def _flatten(detail, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested ValidationError detail as {"field" or "items.0.field": [messages]}."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            for sub_key, messages in _flatten(value, name).items():
                out.setdefault(sub_key, []).extend(messages)
    elif isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            out[prefix or "non_field_errors"] = [str(item) for item in detail]
        else:
            for index, value in enumerate(detail):
                name = f"{prefix}.{index}" if prefix else str(index)
                for sub_key, messages in _flatten(value, name).items():
                    out.setdefault(sub_key, []).extend(messages)
    else:
        out[prefix or "non_field_errors"] = [str(detail)]
    return out


def _first_code(codes) -> str:
    while isinstance(codes, (list, dict)):
        if not codes:
            return "error"
        codes = next(iter(codes.values())) if isinstance(codes, dict) else codes[0]
    return str(codes)


# Seconds a client is told to wait while the database is unreachable: about a load balancer's
# probe interval, after which the service may be back.
DATABASE_RETRY_AFTER = 5

# SQLite's OperationalError also says "no such table": a fault of the deployment, not an outage.
_SQLITE_UNAVAILABLE = ("database is locked", "unable to open database", "disk i/o error")


def database_unavailable(exc: BaseException) -> ApiError | None:
    """503 `service_unavailable` when `exc` says the database cannot be reached or used now;
    None for any other exception."""
    if isinstance(exc, OperationalError):
        cause = exc.__cause__
        if isinstance(cause, sqlite3.OperationalError) and not str(cause).lower().startswith(
            _SQLITE_UNAVAILABLE
        ):
            return None
    elif not isinstance(exc, InterfaceError):  # a connection already closed
        return None
    logger.warning("database unavailable: %s: %s", exc.__class__.__name__, exc)
    return ApiError(
        503,
        "service_unavailable",
        "The service is unavailable for a moment: its database cannot be reached. "
        "Try again shortly.",
        headers={"Retry-After": str(DATABASE_RETRY_AFTER)},
    )


def to_api_error(exc: Exception) -> ApiError | None:
    """Classify `exc`; None means it is a crash, not a refusal."""
    unavailable = database_unavailable(exc)
    if unavailable is not None:
        return unavailable
    if isinstance(exc, ServiceError):
        kind = "validation" if isinstance(exc, ValidationFailed) else "error"
        return ApiError(exc.status_code, exc.code, exc.detail, exc.errors, dict(exc.headers), kind)
    if isinstance(exc, RequestDataTooBig):
        return ApiError(413, "request_too_large", "The request body is too large.")
    if isinstance(exc, ProtectedError | RestrictedError):
        # A row other records still point at (e.g. an order an ERP invoice was made from):
        # a refusal naming them, never a crash.
        held_by = sorted(
            {obj._meta.verbose_name for obj in exc.args[1]} if len(exc.args) > 1 else []
        )
        return ApiError(
            409,
            "in_use",
            "It cannot be deleted: other records refer to it"
            + (f" ({', '.join(held_by)})." if held_by else "."),
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    if not isinstance(exc, exceptions.APIException):
        return None

    headers: dict[str, str] = {}
    auth_header = getattr(exc, "auth_header", None)
    if auth_header:
        headers["WWW-Authenticate"] = auth_header
    wait = getattr(exc, "wait", None)
    if wait is not None:
        headers["Retry-After"] = str(max(1, math.ceil(wait)))

    if isinstance(exc, exceptions.ValidationError):
        errors = _flatten(exc.detail)
        return ApiError(400, "invalid", summarise_errors(errors), errors, headers, "validation")

    detail = exc.detail
    code = _first_code(exc.get_codes())
    if isinstance(detail, dict):  # simplejwt: {"detail", "code", "messages"}
        code = str(detail.get("code", code))
        detail = detail.get("detail", detail)
    if isinstance(exc, exceptions.Throttled):
        seconds = headers.get("Retry-After")
        message = "Too many requests." + (f" Try again in {seconds} seconds." if seconds else "")
    else:
        message = str(detail)
    return ApiError(exc.status_code, code, message, None, headers)


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's EXCEPTION_HANDLER: one handler, the body shaped by the request's namespace."""
    request = context.get("request")
    style = style_for_path(request.path if request is not None else "") or PortalErrorStyle()
    error = to_api_error(exc)
    if error is None:
        return None  # a crash: ApiErrorMiddleware logs it and answers a JSON 500
    set_rollback()
    return style.response(error)
