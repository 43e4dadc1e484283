"""Views that every namespace shares: JSON answers for unknown routes and crashes."""

from __future__ import annotations

import logging

from django.views import csrf, defaults
from django.views.decorators.csrf import csrf_exempt

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
