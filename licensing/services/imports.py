"""Importing licences from another system (the `licenses import` command): idempotent by key."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from accounts.models import User
from common.errors import ServiceError, ValidationFailed
from licensing.keys import IMPORTED_KEY_PATTERN
from licensing.keys import normalize_license_key as _normalize_key
from licensing.models import License, LicenseStatus, Product
from licensing.services._shared import _issue, _now, _prepare_issue


@dataclass
class ImportRow:
    line: int
    license_key: str
    product: Product
    tier: str
    status: str
    source: str
    expires_at: datetime
    customer_id: int | None


def check_import_key(raw: str) -> str:
    key = _normalize_key(raw)
    if not IMPORTED_KEY_PATTERN.match(key):
        raise ValidationFailed(
            {"license_key": ["Use 8 to 64 letters, digits and hyphens."]},
        )
    return key


def licenses_import(*, owner: User, rows: list[ImportRow], now: datetime | None = None) -> dict:
    """Create the rows whose keys do not exist yet (idempotent by key). A key that exists on
    another account is a refusal and nothing is created. Answers {created, skipped}."""
    now = _now(now)
    keys = [row.license_key for row in rows]
    existing = dict(
        License.objects.filter(license_key__in=keys).values_list("license_key", "owner_id")
    )
    foreign = sorted(key for key, owner_id in existing.items() if owner_id != owner.pk)
    if foreign:
        raise ServiceError(
            "These keys belong to another account: " + ", ".join(foreign[:10]),
            code="license_key_taken",
        )
    created = 0
    with transaction.atomic():
        for row in rows:
            if row.license_key in existing:
                continue
            status = row.status
            if status == LicenseStatus.ACTIVE and row.expires_at <= now:
                status = LicenseStatus.EXPIRED
            issue = _prepare_issue(
                owner=owner,
                product=row.product,
                tier=row.tier,
                expires_at=row.expires_at,
                customer_id=row.customer_id,
                now=now,
                any_expiry=True,
                require_bundle=status == LicenseStatus.ACTIVE,
            )
            _issue(
                issue, count=1, source=row.source, now=now, keys=[row.license_key], status=status
            )
            existing[row.license_key] = owner.pk
            created += 1
    return {"created": created, "skipped": len(rows) - created}
