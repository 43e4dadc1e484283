"""GET /docs/openapi.json (manage_options + the developer setting api_docs_enabled) and
GET /docs/playground, an interactive tester (also api_playground_enabled)."""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import render
from drf_spectacular.utils import extend_schema
from rest_framework.renderers import JSONRenderer

from store.common import nonce as nonces
from store.common.authentication import SessionCookieAuthentication
from store.common.permissions import PUBLIC
from store.common.views import StoreAPIView
from store.docs.views import DescriptionView, description_allowed, require_setting


class OpenApiJSONRenderer(JSONRenderer):
    media_type = "application/json"


class OpenApiView(DescriptionView):
    """The ec/v1 description."""


class PlaygroundView(StoreAPIView):
    """A Swagger UI page for a logged-in administrator's browser (session cookie only).

    The page carries the session's nonce and sends it with every request it makes.
    """

    authentication_classes = [SessionCookieAuthentication]
    access = {"GET": PUBLIC}  # checked in the view, like the description itself

    @extend_schema(exclude=True)
    def get(self, request):
        description_allowed(request)
        require_setting("api_playground_enabled", "API playground")
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
