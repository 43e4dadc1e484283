"""How store callers prove who they are (spec: Authentication).

1. Same origin: the logged-in session cookie plus the REST nonce in `X-Platform-Nonce`
   (StoreSessionAuthentication). Without the nonce the cookie is ignored (logged out); a wrong
   nonce is 403 `invalid_nonce`.
2. External clients: an application password over HTTP Basic (the foundation's
   accounts.authentication.AppPasswordAuthentication).
3. Cart and checkout: bound to the cart session cookie, not to a login
   (store.common.cart_session; the cart app builds on it).
"""

from __future__ import annotations

from django.conf import settings
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication

from accounts.authentication import AppPasswordAuthentication
from store.common import nonce as nonces

NONCE_HEADER = settings.NONCE_HEADER


def _session_user(request):
    user = getattr(request._request, "user", None)
    if user is None or not user.is_authenticated or not user.is_active:
        return None
    return user


class StoreSessionAuthentication(BaseAuthentication):
    """The logged-in session cookie, valid only together with the nonce header."""

    def authenticate(self, request):
        sent = request.headers.get(NONCE_HEADER)
        if sent is None:
            return None  # a cookie alone counts as logged out
        user = _session_user(request)
        if user is None:
            return None  # no session: the nonce means nothing, other credentials may follow
        result = nonces.verify_nonce(request._request, sent.strip())
        if not result:
            raise exceptions.PermissionDenied(
                f"The {NONCE_HEADER} header does not match this session (it may have expired: "
                "fetch a new one from GET /auth/nonce).",
                code="invalid_nonce",
            )
        if result == nonces.PREVIOUS:
            request._request.store_fresh_nonce = nonces.create_nonce(request._request)
        return (user, None)


class SessionCookieAuthentication(BaseAuthentication):
    """The session cookie alone: only for GET /auth/nonce, which hands out the nonce."""

    def authenticate(self, request):
        user = _session_user(request)
        return (user, None) if user is not None else None


STORE_AUTHENTICATION = [StoreSessionAuthentication, AppPasswordAuthentication]
