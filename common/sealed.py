"""Secrets at rest (provider credentials, the outbox's task arguments): JSON sealed with Fernet
under a key derived from SECRET_KEY for one purpose, its fallbacks still read (rotating the
secret keeps what was sealed readable), and masked whenever shown."""

from __future__ import annotations

import base64
import functools
import hmac
import json

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


def keyring(purpose: str) -> MultiFernet:
    """The Fernet keys of `purpose`: the first from SECRET_KEY, then one per fallback."""
    return _keyring((settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])), purpose)


@functools.lru_cache(maxsize=16)
def _keyring(keys: tuple[str, ...], purpose: str) -> MultiFernet:
    derived = (hmac.new(key.encode(), purpose.encode(), "sha256").digest() for key in keys)
    return MultiFernet([Fernet(base64.urlsafe_b64encode(secret)) for secret in derived])


def seal(values: dict, *, purpose: str) -> bytes:
    """`values` without its empty ones, sealed; b"" when nothing is left."""
    values = {name: value for name, value in values.items() if value}
    if not values:
        return b""
    return keyring(purpose).encrypt(json.dumps(values, sort_keys=True).encode())


def unseal(token, *, purpose: str) -> dict:
    """What was sealed; {} when nothing was, or it no longer opens (the secret changed)."""
    token = bytes(token or b"")
    if not token:
        return {}
    try:
        return json.loads(keyring(purpose).decrypt(token))
    except (InvalidToken, ValueError):
        return {}


def mask(value: str) -> str:
    """Never the secret itself: its last four characters when it is long enough to spare them."""
    if not value:
        return ""
    return "****" + value[-4:] if len(value) >= 12 else "****"


def is_mask_of(value, stored: str, *, mask=mask) -> bool:
    """Whether `value` is what `mask` shows of `stored`: a form sending back the masked value
    it was shown, which must keep the stored secret rather than replace it with the mask."""
    return bool(value) and bool(stored) and value == mask(stored)
