"""Provider credentials at rest: Fernet-encrypted JSON, keyed from SECRET_KEY (its fallbacks
still read, as the outbox's payloads), and masked whenever shown."""

from __future__ import annotations

from functools import partial

from common import sealed

PURPOSE = "payments-credentials"
seal = partial(sealed.seal, purpose=PURPOSE)
unseal = partial(sealed.unseal, purpose=PURPOSE)


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
