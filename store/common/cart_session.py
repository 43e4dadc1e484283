"""The cart session (spec: Authentication, point 3): the seam the cart and checkout apps use.

Cart and checkout routes are bound to a session, not to a login. The server sets the cookie
`{prefix}_cart_id`; a client may also hint its cart with `cart_id` in the JSON body, the
`cart_id` query parameter or the `X-Cart-ID` header. When a hint conflicts with the cookie, the
cookie wins, the hint is ignored and the mismatch is only logged (no error).

`cart_token(request)` resolves the token; `issue_cart_token()` and `set_cart_cookie()` create and
send one. The cart app maps the token to its cart row. `CartHintField` (the body's `cart_id`)
and `SESSION_PARAMETERS` (the query parameter and header, for the OpenAPI description) declare
the hints; the base view of the routes bound to the session is store.common.views.CartSessionView.
"""

from __future__ import annotations

import logging
import re
import secrets
from dataclasses import dataclass

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, serializers

logger = logging.getLogger(__name__)

CART_COOKIE = f"{settings.STORE_PREFIX}_cart_id"
CART_HEADER = "X-Cart-ID"
CART_PARAM = "cart_id"
CART_COOKIE_MAX_AGE = 60 * 60 * 24 * 30  # 30 days
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32,64}$")


@dataclass(frozen=True)
class CartToken:
    value: str | None
    source: str | None  # "cookie", "body", "query", "header" or None


def _valid(token) -> bool:
    return isinstance(token, str) and bool(_TOKEN.match(token))


def _hint(request) -> tuple[str | None, str | None]:
    try:
        data = request.data
    except exceptions.APIException:  # an unreadable body hints nothing; the view reports it
        data = None
    if isinstance(data, dict) and _valid(data.get(CART_PARAM)):
        return data[CART_PARAM], "body"
    query = request.query_params.get(CART_PARAM) if hasattr(request, "query_params") else None
    if _valid(query):
        return query, "query"
    header = request.headers.get(CART_HEADER)
    if _valid(header):
        return header, "header"
    return None, None


def cart_token(request) -> CartToken:
    """The cart token of a DRF request: the cookie, else the first valid hint, else none."""
    cookie = request.COOKIES.get(CART_COOKIE)
    hint, source = _hint(request)
    if _valid(cookie):
        if hint is not None and hint != cookie:
            logger.info("cart id hint from %s ignored: the %s cookie wins", source, CART_COOKIE)
        return CartToken(cookie, "cookie")
    if hint is not None:
        return CartToken(hint, source)
    return CartToken(None, None)


def issue_cart_token() -> str:
    return secrets.token_urlsafe(32)


def set_cart_cookie(response, token: str, *, request=None) -> None:
    """HttpOnly, SameSite=Lax; Secure under HTTPS (or whenever SESSION_COOKIE_SECURE is on)."""
    secure = settings.SESSION_COOKIE_SECURE or (request is not None and request.is_secure())
    response.set_cookie(
        CART_COOKIE,
        token,
        max_age=CART_COOKIE_MAX_AGE,
        httponly=True,
        samesite="Lax",
        secure=secure,
    )


# --- Declared hints ------------------------------------------------------------------------------


class CartHintField(serializers.CharField):
    """The body's `cart_id` hint (read by `cart_token`; a body field so it can be declared)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("max_length", 64)
        kwargs.setdefault(
            "help_text",
            "Cart id hint for clients without cookies; the ec_cart_id cookie wins over it.",
        )
        super().__init__(**kwargs)


SESSION_PARAMETERS = [
    OpenApiParameter(
        CART_PARAM,
        str,
        OpenApiParameter.QUERY,
        required=False,
        description="Cart id hint for clients without cookies (also accepted as `cart_id` in "
        "a JSON body and as the X-Cart-ID header). The ec_cart_id cookie wins over it.",
    ),
    OpenApiParameter(
        CART_HEADER,
        str,
        OpenApiParameter.HEADER,
        required=False,
        description="Cart id hint (see cart_id).",
    ),
]
