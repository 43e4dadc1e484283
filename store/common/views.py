"""The base of every store view (ec/v1), apart from the portal's defaults.

StoreAPIView gives a view, in one place:
- store authentication: session cookie + X-Platform-Nonce, application passwords over Basic;
- the capability permission (StoreAccess) driven by the view's `access` mapping;
- JSON and multipart bodies (415 for anything else, or a body without Content-Type), JSON out;
- no rate limit (spec: commerce endpoints have no built-in global rate limit), except the
  scopes a view names per method in `throttle_scopes` (common.api.throttling);
- Idempotency-Key on every POST (common.api.views.IdempotencyMixin, as the portal), scoped to
  the account when logged in, else to the cart session, else to the client address;
- errors in the store style (registered for the REST root in settings.API_ERROR_STYLES);
- its OpenAPI operation (StoreAutoSchema).
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from common import idempotency
from common.api.negotiation import JSONOnlyContentNegotiation
from common.api.parsers import JSONParser, MultiPartParser
from common.api.throttling import ScopedRateThrottle, caller_identity
from common.api.views import IdempotencyMixin, require_content_type
from store.common.authentication import STORE_AUTHENTICATION
from store.common.cart_session import CART_COOKIE, CART_HEADER, cart_token, set_cart_cookie
from store.common.permissions import PUBLIC, StoreAccess
from store.common.schema import StoreAutoSchema


def idempotency_scope(request) -> str:
    """Whose Idempotency-Key it is (see docs/decisions/store-api.md, Idempotency).

    The account when logged in. A guest's is the cart session: its token is a 256-bit secret
    only that shopper holds, so no other guest can reach their keys or stored answers (kept
    as a hash: the scope does not reveal the token). Without a cart session (a guest's first
    write) the client address, where the key itself, random, is what keeps it apart.
    """
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"account:{user.pk}"
    token = cart_token(request).value
    if token:
        return "cart:" + hashlib.sha256(token.encode()).hexdigest()
    return caller_identity(request)


class StoreViewMixin(IdempotencyMixin):
    authentication_classes = STORE_AUTHENTICATION
    permission_classes = [StoreAccess]
    parser_classes = [JSONParser, MultiPartParser]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONOnlyContentNegotiation
    throttle_classes: list = []
    #: Rate-limit scopes by HTTP method ({"POST": "checkout_start"}; "*" for every method);
    #: the rates are settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] (THROTTLE_RATE_<SCOPE>).
    throttle_scopes: dict[str, str] = {}
    throttle_scope: str | None = None
    idempotency_kept_headers = (*idempotency.KEPT_HEADERS, "Cache-Control")
    schema = StoreAutoSchema()
    #: What each HTTP method needs: PUBLIC, LOGGED_IN or a capability; "*" for the rest.
    #: Methods not covered need manage_options (deny by default).
    access: dict[str, str] = {}
    openapi_tag: str | None = None

    @classmethod
    def throttle_scope_for(cls, method: str) -> str | None:
        return cls.throttle_scopes.get(method.upper(), cls.throttle_scopes.get("*"))

    def get_throttles(self):
        scope = self.throttle_scope_for(self.request.method)
        if scope is None:
            return super().get_throttles()
        self.throttle_scope = scope
        return [ScopedRateThrottle()]

    def idempotency_scope(self, request) -> str:
        return idempotency_scope(request)

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


# The base of the cart's, the shopper's coupons' and the checkout's routes: `session(request)`
# is what their services take; `answer()` sends a body with `Cache-Control: no-store` and, for
# a cart that is not the cookie's (a cart just made, or a customer's), the cookie and the
# `X-Cart-ID` header. (The docstring is what the OpenAPI description shows for a route that
# has no description of its own.)
class CartSessionView(StoreAPIView):
    """Public routes bound to the cart session.

    A replayed answer (Idempotency-Key) sets the cart cookie again: a guest whose first write
    made the cart, and who retries because the answer was lost, has no cookie yet.
    """

    access = {"*": PUBLIC}
    idempotency_kept_headers = (*StoreAPIView.idempotency_kept_headers, CART_HEADER)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        token = (
            response.get(CART_HEADER) if response.has_header(idempotency.REPLAYED_HEADER) else None
        )
        if token and request.COOKIES.get(CART_COOKIE) != token:
            set_cart_cookie(response, token, request=request)
        return response

    def session(self, request) -> dict:
        return {"token": cart_token(request).value, "user": request.user}

    def answer(self, request, cart, body: dict, *, status: int = 200) -> Response:
        response = Response(body, status=status)
        response["Cache-Control"] = "no-store"
        if cart is not None and request.COOKIES.get(CART_COOKIE) != cart.token:
            set_cart_cookie(response, cart.token, request=request)
            response[CART_HEADER] = cart.token
        return response
