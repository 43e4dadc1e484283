"""Provider credentials at rest: Fernet-encrypted JSON, keyed from SECRET_KEY (its fallbacks
still read, as the outbox's payloads), and masked whenever shown."""

from __future__ import annotations

import base64
import hmac
import json

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


def _fernet() -> MultiFernet:
    keys = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return MultiFernet(
        [
            Fernet(
                base64.urlsafe_b64encode(
                    hmac.new(key.encode(), b"payments-credentials", "sha256").digest()
                )
            )
            for key in keys
        ]
    )


def seal(values: dict) -> bytes:
    return _fernet().encrypt(json.dumps(values, separators=(",", ":")).encode())


def unseal(token) -> dict:
    """The credentials; {} when none were stored or the key that sealed them is gone."""
    if not token:
        return {}
    try:
        return json.loads(_fernet().decrypt(bytes(token)))
    except (InvalidToken, ValueError):
        return {}


def mask(value: str) -> str:
    """`sk_live_…abcd`: the prefix up to its last underscore (when short) and the last four
    characters; a short secret shows nothing but the ellipsis."""
    value = str(value or "")
    if not value:
        return ""
    if len(value) < 12:
        return "…"
    cut = value.rfind("_", 0, 12)
    prefix = value[: cut + 1] if cut > 0 else ""
    return f"{prefix}…{value[-4:]}"
