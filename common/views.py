"""Views that every namespace shares: JSON answers for unknown routes and crashes."""

from __future__ import annotations

import logging

from django.views import defaults

from common.api.errors import ApiError, PortalErrorStyle, style_for_path

logger = logging.getLogger(__name__)


def api_not_found(request, *args, **kwargs):
    """The last route of every API prefix: a JSON 404 in that namespace's style."""
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


def handler500(request):
    style = style_for_path(request.path)
    if style is None:
        return defaults.server_error(request)
    return style.json_response(
        ApiError(500, "server_error", "An unexpected error occurred. It has been logged.")
    )
