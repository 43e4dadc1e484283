"""The base of every store view (ec/v1), apart from the portal's defaults.

StoreAPIView gives a view, in one place:
- store authentication: session cookie + X-Platform-Nonce, application passwords over Basic;
- the capability permission (StoreAccess) driven by the view's `access` mapping;
- JSON and multipart bodies (415 for anything else, or a body without Content-Type), JSON out;
- no rate limit (spec: commerce endpoints have no built-in global rate limit);
- errors in the store style (registered for the REST root in settings.API_ERROR_STYLES);
- its OpenAPI operation (StoreAutoSchema).
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from common.api.negotiation import JSONOnlyContentNegotiation
from common.api.parsers import JSONParser, MultiPartParser
from common.api.views import require_content_type
from store.common.authentication import STORE_AUTHENTICATION
from store.common.permissions import StoreAccess
from store.common.schema import StoreAutoSchema


class StoreViewMixin:
    authentication_classes = STORE_AUTHENTICATION
    permission_classes = [StoreAccess]
    parser_classes = [JSONParser, MultiPartParser]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONOnlyContentNegotiation
    throttle_classes: list = []
    schema = StoreAutoSchema()
    #: What each HTTP method needs: PUBLIC, LOGGED_IN or a capability; "*" for the rest.
    #: Methods not covered need manage_options (deny by default).
    access: dict[str, str] = {}
    openapi_tag: str | None = None

    def initial(self, request, *args, **kwargs):
        require_content_type(request)
        super().initial(request, *args, **kwargs)

    def get_authenticate_header(self, request):
        """The 401 challenge: Basic for external clients; not for a browser session.

        A browser shows a password prompt for a Basic challenge, so a same-origin front end
        (it sends the session cookie) gets a challenge naming the nonce header instead.
        """
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            return f'Nonce realm="store", header="{settings.NONCE_HEADER}"'
        return 'Basic realm="store"'

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        fresh = getattr(request._request, "store_fresh_nonce", None)
        if fresh:
            response[settings.NONCE_HEADER] = fresh
        return response


class StoreAPIView(StoreViewMixin, APIView):
    pass
