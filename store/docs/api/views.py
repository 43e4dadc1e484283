"""GET /docs/openapi.json (manage_options + the developer setting api_docs_enabled) and
GET /docs/playground, an interactive tester (also api_playground_enabled)."""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import render
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from store.common import nonce as nonces
from store.common.authentication import SessionCookieAuthentication
from store.common.capabilities import MANAGE_OPTIONS, has_capability
from store.common.permissions import PUBLIC
from store.common.views import StoreAPIView
from store.docs.schema import store_schema_document
from store.settings import selectors as store_settings


class OpenApiJSONRenderer(JSONRenderer):
    media_type = "application/json"


def _require(setting: str, label: str) -> None:
    if not store_settings.get_value("developer", setting):
        raise exceptions.PermissionDenied(
            f"The {label} is turned off (store setting developer.{setting}).",
            code=f"{setting.removesuffix('_enabled')}_disabled",
        )


def _require_administrator(request) -> None:
    """Spec: without manage_options the answer is 403, for anonymous callers too."""
    if not has_capability(request.user, MANAGE_OPTIONS):
        raise exceptions.PermissionDenied(
            "The API description is for administrators (manage_options).",
            code="insufficient_capability",
        )


class OpenApiView(StoreAPIView):
    access = {"GET": PUBLIC}  # checked in the view: 403 for everyone without manage_options

    @extend_schema(exclude=True)
    def get(self, request):
        _require_administrator(request)
        _require("api_docs_enabled", "API description")
        return Response(store_schema_document(), headers={"Cache-Control": "no-store"})


class PlaygroundView(StoreAPIView):
    """A Swagger UI page for a logged-in administrator's browser (session cookie only).

    The page carries the session's nonce and sends it with every request it makes.
    """

    authentication_classes = [SessionCookieAuthentication]
    access = {"GET": PUBLIC}  # checked in the view, like the description itself

    @extend_schema(exclude=True)
    def get(self, request):
        _require_administrator(request)
        _require("api_docs_enabled", "API description")
        _require("api_playground_enabled", "API playground")
        response = render(
            request._request,
            "store_docs/playground.html",
            {
                "schema_url": f"/{settings.REST_ROOT}/ec/v1/docs/openapi.json",
                "nonce": nonces.create_nonce(request._request),
                "nonce_header": settings.NONCE_HEADER,
            },
        )
        response["Cache-Control"] = "no-store"
        response["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "script-src 'self' 'unsafe-inline'"
        )
        return response
