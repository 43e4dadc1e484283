"""The portal licence list as a streamed JSON array, serialised by plain functions.

The list has no pagination (the spec's plain array), so an account with 100,000 licences gets
them all in one answer: it is produced chunk by chunk (licensing.selectors.license_list_chunks)
and written out as it goes, so a worker's memory stays flat whatever the count. Times are
UTC (settings.TIME_ZONE, the database connections' zone). The bytes are
those `LicenseSerializer(many=True)` rendered by DRF's JSONRenderer would give (same keys in the
same order, same date format, same JSON spelling); tests/licensing/test_license_list_stream.py
compares the two.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from licensing.dates import iso_from_db_text


def license_row(row: tuple) -> dict:
    """One licence of `license_list_chunks` in the shape of LicenseSerializer."""
    (pk, key, product_id, name, slug, tier, status, source, expires, customer, created) = row[:11]
    domains, times = row[11], row[12]
    return {
        "id": pk,
        "license_key": key,
        "product": {"id": product_id, "name": name, "slug": slug},
        "tier": tier,
        "status": status,
        "source": source,
        "expires_at": iso_from_db_text(expires),
        "activations": [
            {"domain": domain, "activated_at": iso_from_db_text(activated_at)}
            for domain, activated_at in zip(domains, times, strict=True)
        ],
        "customer_id": customer,
        "created_at": iso_from_db_text(created),
    }


def _dumps(value) -> str:
    # rest_framework.renderers.JSONRenderer with the project's settings (UNICODE_JSON,
    # COMPACT_JSON, STRICT_JSON): the same text for the same data.
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def json_array(chunks: Iterable[list[tuple]], *, entries: bool = False) -> Iterator[bytes]:
    """`[`, the rows of each chunk, `]`, one bytes piece per chunk: the brackets travel with the
    first and last chunks (one piece held back at a time), so a list of one chunk, the common
    case, is written in one piece. With `entries` the rows' first column is the entry's JSON
    text, written by the database (PostgreSQL)."""
    head, held = b"[", None
    for chunk in chunks:
        if not chunk:
            continue
        if entries:
            body = ",".join(row[0] for row in chunk)
        else:
            body = _dumps([license_row(row) for row in chunk])[1:-1]
        if held is not None:
            yield held
        held = head + body.encode() if head else b"," + body.encode()
        head = b""
    yield (held if held is not None else head) + b"]"
