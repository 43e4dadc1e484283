"""The REST nonce that turns a logged-in session cookie into store credentials.

A same-origin front end sends the session cookie (automatic) plus the nonce in the
`X-Platform-Nonce` header (explicit). A cross-site page can make the browser send the cookie but
cannot read the nonce, so a cookie without the nonce counts as logged out (spec: Authentication).

The nonce is an HMAC (keyed by SECRET_KEY) of the user, the session key and a 12-hour tick: it
is valid for 12 to 24 hours, changes when the session does (log-in rotates the session key,
log-out ends it) and cannot be computed without the server's key. A nonce of the previous tick is
still accepted; the answer then carries a fresh one in the same header.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac
from rest_framework import serializers

from common.api.fields import IntegerField

TICK_SECONDS = 12 * 3600
_SALT = "store.common.nonce"

CURRENT, PREVIOUS = 1, 2


def _tick(now: float | None = None) -> int:
    return int((now if now is not None else time.time()) // TICK_SECONDS)


def _nonce(user_id, session_key: str, tick: int) -> str:
    return salted_hmac(_SALT, f"{user_id}|{session_key}|{tick}", algorithm="sha256").hexdigest()[
        :32
    ]


def session_key_of(django_request) -> str | None:
    session = getattr(django_request, "session", None)
    return getattr(session, "session_key", None)


def create_nonce(django_request) -> str | None:
    """The current nonce of the request's logged-in session, or None without one."""
    user = getattr(django_request, "user", None)
    key = session_key_of(django_request)
    if user is None or not user.is_authenticated or not key:
        return None
    return _nonce(user.pk, key, _tick())


def verify_nonce(django_request, nonce: str) -> int:
    """CURRENT or PREVIOUS when `nonce` belongs to the request's session, else 0."""
    user = getattr(django_request, "user", None)
    key = session_key_of(django_request)
    if user is None or not user.is_authenticated or not key or not nonce:
        return 0
    tick = _tick()
    if constant_time_compare(nonce, _nonce(user.pk, key, tick)):
        return CURRENT
    if constant_time_compare(nonce, _nonce(user.pk, key, tick - 1)):
        return PREVIOUS
    return 0


def expires_in(now: float | None = None) -> int:
    """Seconds the current nonce is certainly valid (the rest of its tick)."""
    now = now if now is not None else time.time()
    return TICK_SECONDS - int(now) % TICK_SECONDS


def nonce_answer(django_request) -> dict:
    """What a same-origin front end needs after log-in (GET /auth/nonce, the checkout's log-in
    and account creation): `{nonce, header, expires_in, user: {id, email, name}}`."""
    user = django_request.user
    return {
        "nonce": create_nonce(django_request),
        "header": settings.NONCE_HEADER,
        "expires_in": expires_in(),
        "user": {"id": user.pk, "email": user.email, "name": user.name},
    }


# The nonce part of an answer (`nonce_answer`), declared for the OpenAPI description.
class NonceAnswerSerializer(serializers.Serializer):
    nonce = serializers.CharField(
        help_text=f"Send it in the {settings.NONCE_HEADER} header (the one named by `header`), "
        "with the session cookie."
    )
    header = serializers.CharField()
    expires_in = IntegerField(
        help_text="Seconds the nonce is certainly valid (it may last up to 12 hours longer)."
    )
