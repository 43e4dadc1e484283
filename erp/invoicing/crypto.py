"""The authority's credentials at rest: Fernet-encrypted JSON, keyed from SECRET_KEY (its
fallbacks still read), and masked whenever shown."""

from __future__ import annotations

import base64
import hmac
import json

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


def _fernet() -> MultiFernet:
    keys = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    derived = (hmac.new(key.encode(), b"erp-invoicing", "sha256").digest() for key in keys)
    return MultiFernet([Fernet(base64.urlsafe_b64encode(secret)) for secret in derived])


def seal(values: dict[str, str]) -> bytes:
    values = {name: value for name, value in values.items() if value}
    return _fernet().encrypt(json.dumps(values, sort_keys=True).encode()) if values else b""


def unseal(token) -> dict[str, str]:
    """The credentials; {} when none are stored or they no longer open (the secret changed)."""
    token = bytes(token or b"")
    if not token:
        return {}
    try:
        return json.loads(_fernet().decrypt(token))
    except (InvalidToken, ValueError):
        return {}


def mask(value: str) -> str:
    """Never the secret itself: its last four characters when it is long enough to spare them."""
    if not value:
        return ""
    return "****" + value[-4:] if len(value) >= 12 else "****"
