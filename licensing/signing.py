"""Ed25519 signatures on verify answers, so an installed copy can trust a cached verdict offline.

The private key comes from settings.LICENSE_SIGNING_KEY (base64 of the 32-byte seed, or a
PKCS#8 PEM). When it is unset, a stable key is derived from SECRET_KEY with HMAC-SHA256, so
verdicts stay verifiable across restarts; production should set its own key (rotating
SECRET_KEY would otherwise rotate the licence key too).

A signed answer carries `payload` (base64 of canonical JSON: sorted keys, no blanks, UTF-8) and
`signature` (base64 of the Ed25519 signature over the payload's bytes). A client verifies the
signature over the decoded payload bytes with the published public key, then parses them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from functools import cache

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

ALGORITHM = "ed25519"


def _derived_seed(secret_key: str) -> bytes:
    return hmac.new(secret_key.encode(), b"emporion:license-signing:ed25519", "sha256").digest()


def load_private_key(raw: str, *, secret_key: str) -> Ed25519PrivateKey:
    """The key `raw` names; derived from `secret_key` when `raw` is empty."""
    raw = (raw or "").strip()
    if not raw:
        return Ed25519PrivateKey.from_private_bytes(_derived_seed(secret_key))
    if raw.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_private_key(raw.encode(), password=None)
        except (ValueError, TypeError):
            key = None
        if not isinstance(key, Ed25519PrivateKey):
            raise ImproperlyConfigured(
                "LICENSE_SIGNING_KEY is a PEM but not an unencrypted Ed25519 private key."
            )
        return key
    try:
        seed = base64.b64decode(raw + "=" * (-len(raw) % 4), altchars=b"-_", validate=False)
    except (binascii.Error, ValueError):
        seed = b""
    if len(seed) != 32:
        raise ImproperlyConfigured(
            "LICENSE_SIGNING_KEY must be base64 of a 32-byte Ed25519 seed (for example: "
            "python3 -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())') "
            "or a PKCS#8 PEM."
        )
    return Ed25519PrivateKey.from_private_bytes(seed)


@cache
def _keys(raw: str, secret_key: str) -> tuple[Ed25519PrivateKey, bytes]:
    private = load_private_key(raw, secret_key=secret_key)
    public = private.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    return private, public


def private_key() -> Ed25519PrivateKey:
    return _keys(settings.LICENSE_SIGNING_KEY, settings.SECRET_KEY)[0]


def public_key_bytes() -> bytes:
    return _keys(settings.LICENSE_SIGNING_KEY, settings.SECRET_KEY)[1]


def key_id() -> str:
    """Names the key (first 16 hex digits of the SHA-256 of the raw public key)."""
    return hashlib.sha256(public_key_bytes()).hexdigest()[:16]


def public_key_info() -> dict:
    public = private_key().public_key()
    pem = public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()
    return {
        "algorithm": ALGORITHM,
        "key_id": key_id(),
        "public_key": base64.b64encode(public_key_bytes()).decode(),
        "public_key_pem": pem,
    }


def canonical_json(data: dict) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sign(data: dict) -> dict:
    """`{algorithm, key_id, payload, signature}` for `data` (JSON-safe)."""
    payload = canonical_json(data)
    signature = private_key().sign(payload)
    return {
        "algorithm": ALGORITHM,
        "key_id": key_id(),
        "payload": base64.b64encode(payload).decode(),
        "signature": base64.b64encode(signature).decode(),
    }
