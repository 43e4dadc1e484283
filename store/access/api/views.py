from django.conf import settings
from rest_framework.response import Response

from store.common import nonce as nonces
from store.common.authentication import SessionCookieAuthentication
from store.common.permissions import LOGGED_IN
from store.common.schema import store_schema
from store.common.views import StoreAPIView

from . import serializers as s


class NonceView(StoreAPIView):
    """The REST nonce of the caller's logged-in session (session cookie only)."""

    authentication_classes = [SessionCookieAuthentication]
    access = {"GET": LOGGED_IN}
    openapi_tag = "Authentication"

    @store_schema(
        summary="Get the REST nonce of the logged-in session",
        responses={200: s.NonceSerializer},
        description="A same-origin front end calls this once after log-in (with the session "
        f"cookie only) and then sends the answer in `{settings.NONCE_HEADER}` with every "
        "request. A cross-site page cannot read the answer. 401 without a logged-in session.",
    )
    def get(self, request):
        return Response(
            nonces.nonce_answer(request._request), headers={"Cache-Control": "no-store"}
        )
