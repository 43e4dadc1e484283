"""The core namespace's OpenAPI description (settings.CORE_SPECTACULAR_SETTINGS, served at
GET /{REST_ROOT}/{CORE_NS}/v1/docs/openapi.json): the debug routes."""

from __future__ import annotations

from django.conf import settings

from store.common.schema import namespace_endpoints


def only_core_paths(endpoints):
    """The core namespace only, without its own docs routes."""
    return namespace_endpoints(endpoints, settings.CORE_NS)
