"""The core namespace's OpenAPI description (settings.CORE_SPECTACULAR_SETTINGS, served at
GET /{REST_ROOT}/{CORE_NS}/v1/docs/openapi.json): the debug routes."""

from __future__ import annotations

from django.conf import settings


def only_core_paths(endpoints):
    """The core namespace only, without its own docs routes."""
    prefix = f"/{settings.REST_ROOT}/{settings.CORE_NS}/v1/"
    return [
        endpoint
        for endpoint in endpoints
        if endpoint[0].startswith(prefix) and not endpoint[0].startswith(prefix + "docs/")
    ]
