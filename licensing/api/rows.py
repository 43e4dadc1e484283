"""The portal licence list as a streamed JSON array, serialised by plain functions.

The list has no pagination (the spec's plain array), so an account with 100,000 licences gets
them all in one answer: it is produced chunk by chunk (licensing.selectors.license_list_chunks)
and written out as it goes, so a worker's memory stays flat whatever the count. The bytes are
those `LicenseSerializer(many=True)` rendered by DRF's JSONRenderer would give (same keys in the
same order, same date format, same JSON spelling); tests/licensing/test_license_list_stream.py
compares the two.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime, tzinfo

from licensing.models import LicenseStatus

_ACTIVE = LicenseStatus.ACTIVE.value
_EXPIRED = LicenseStatus.EXPIRED.value


def iso_datetime(value: datetime, tz: tzinfo) -> str:
    """DRF's DateTimeField with DATETIME_FORMAT "iso-8601": in the current time zone, with a
    "Z" for UTC."""
    text = value.astimezone(tz).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def license_row(row: dict, *, now: datetime, tz: tzinfo) -> dict:
    """One licence of `license_list_chunks` in the shape of LicenseSerializer."""
    status = row["status"]
    if status == _ACTIVE and row["expires_at"] <= now:
        status = _EXPIRED  # License.effective_status
    return {
        "id": row["id"],
        "license_key": row["license_key"],
        "product": {
            "id": row["product_id"],
            "name": row["product__name"],
            "slug": row["product__slug"],
        },
        "tier": row["tier"],
        "status": status,
        "source": row["source"],
        "expires_at": iso_datetime(row["expires_at"], tz),
        "activations": [
            {"domain": domain, "activated_at": iso_datetime(activated_at, tz)}
            for domain, activated_at in row["activations"]
        ],
        "customer_id": row["customer_id"],
        "created_at": iso_datetime(row["created_at"], tz),
    }


def _dumps(value) -> str:
    # rest_framework.renderers.JSONRenderer with the project's settings (UNICODE_JSON,
    # COMPACT_JSON, STRICT_JSON): the same text for the same data.
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def json_array(chunks: Iterable[list[dict]], *, now: datetime, tz: tzinfo) -> Iterator[bytes]:
    """`[`, the rows of each chunk, `]`: one bytes piece per chunk."""
    yield b"["
    first = True
    for chunk in chunks:
        if not chunk:
            continue
        body = _dumps([license_row(row, now=now, tz=tz) for row in chunk])[1:-1]
        yield (body if first else "," + body).encode()
        first = False
    yield b"]"
