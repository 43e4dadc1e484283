"""The view every namespace's GET .../docs/openapi.json mounts (the store's in store.docs.api,
the theme's and the core namespace's in their own urls, with their own `document`) and the gate
they share: manage_options (403 for anyone else, logged in or not), then the store setting
developer.api_docs_enabled (403 `api_docs_disabled`)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.response import Response

from store.common.capabilities import MANAGE_OPTIONS, has_capability
from store.common.permissions import PUBLIC
from store.common.views import StoreAPIView
from store.docs.schema import STORE, schema_document
from store.settings import selectors as store_settings


def require_setting(setting: str, label: str) -> None:
    if not store_settings.get_value("developer", setting):
        raise exceptions.PermissionDenied(
            f"The {label} is turned off (store setting developer.{setting}).",
            code=f"{setting.removesuffix('_enabled')}_disabled",
        )


def require_administrator(request) -> None:
    """Spec: without manage_options the answer is 403, for anonymous callers too."""
    if not has_capability(request.user, MANAGE_OPTIONS):
        raise exceptions.PermissionDenied(
            "The API description is for administrators (manage_options).",
            code="insufficient_capability",
        )


def description_allowed(request) -> None:
    """The gate of every GET .../docs/openapi.json: manage_options, then the store setting
    developer.api_docs_enabled; 403 otherwise."""
    require_administrator(request)
    require_setting("api_docs_enabled", "API description")


class DescriptionView(StoreAPIView):
    """GET a namespace's OpenAPI description: `document` names its drf-spectacular settings
    (store.docs.schema.STORE, THEME or CORE)."""

    access = {"GET": PUBLIC}  # checked in the view: 403 for everyone without manage_options
    document = STORE

    @extend_schema(exclude=True)
    def get(self, request):
        description_allowed(request)
        return Response(schema_document(self.document), headers={"Cache-Control": "no-store"})
