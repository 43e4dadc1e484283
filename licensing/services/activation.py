"""The public licence API's writes: activating and deactivating a licence on a domain (by
licence key), and staff removing activations."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction

from common import audit
from common.errors import Forbidden, NotFound, ServiceError
from common.events import DomainEvent, publish, publish_many
from licensing import domains
from licensing.keys import normalize_license_key as _normalize_key
from licensing.models import Activation, License, LicenseStatus
from licensing.services._shared import _audit_rows, _now


def _public_license(license_key: str, *, lock: bool) -> License:
    key = _normalize_key(license_key)
    rows = License.objects.select_related("product", "owner")
    if lock:
        rows = rows.select_for_update(of=("self",))
    license = rows.filter(license_key=key).first() if key else None
    if license is None:
        raise NotFound("No licence with this key.", code="license_not_found")
    return license


def _check_product(license: License, product: str | None) -> None:
    if product and product.strip().lower() != license.product.slug:
        raise ServiceError(
            f"This licence is for {license.product.slug}, not {product.strip().lower()}.",
            code="product_mismatch",
        )


def refuse_unusable(license: License, now: datetime) -> None:
    """A revoked or expired licence may not be activated or download anything."""
    status = license.effective_status(now)
    if status == LicenseStatus.REVOKED:
        raise Forbidden("This licence has been revoked.", code="license_revoked")
    if status == LicenseStatus.EXPIRED:
        raise Forbidden(
            f"This licence expired on {license.expires_at:%Y-%m-%d}; renew it to continue.",
            code="license_expired",
        )


@dataclass
class ActivationResult:
    license: License
    activation: Activation
    created: bool
    used: int = 0
    limit: int = 0
    activations: list[Activation] = field(default_factory=list)


def license_activate(
    *, license_key: str, domain: str, product: str | None = None, now: datetime | None = None
) -> ActivationResult:
    """Activate a licence on a domain. Development hosts do not count against the tier's
    limit. Activating a domain twice changes nothing and answers the first activation."""
    now = _now(now)
    domain = domains.normalize_domain(domain)
    with transaction.atomic():
        license = _public_license(license_key, lock=True)
        _check_product(license, product)
        refuse_unusable(license, now)
        current = list(license.activations.all())
        limit = license.product.max_domains(license.tier)
        counted = [a for a in current if not a.is_development]
        existing = next((a for a in current if a.domain == domain), None)
        if existing is not None:
            return ActivationResult(license, existing, False, len(counted), limit, current)
        development = domains.is_development_host(domain)
        if not development and len(counted) >= limit:
            names = ", ".join(a.domain for a in counted)
            raise Forbidden(
                f"This {license.tier} licence is already active on {len(counted)} of its "
                f"{limit} domain{'s' if limit != 1 else ''} ({names}); deactivate one first.",
                code="too_many_domains",
            )
        activation = Activation.objects.create(
            license=license, domain=domain, is_development=development, activated_at=now
        )
        audit.record(license, action="activated", changes={"domain": [None, domain]})
        publish(
            account=license.owner,
            event="license.activated",
            data={
                "license_key": license.license_key,
                "domain": domain,
                "tier": license.tier,
                "product_slug": license.product.slug,
            },
        )
    used = len(counted) + (0 if development else 1)
    return ActivationResult(license, activation, True, used, limit, [*current, activation])


def license_deactivate(*, license_key: str, domain: str) -> License:
    """Free a domain of a licence (whatever the licence's status)."""
    domain = domains.normalize_domain(domain)
    with transaction.atomic():
        license = _public_license(license_key, lock=True)
        deleted, _ = Activation.objects.filter(license=license, domain=domain).delete()
        if not deleted:
            raise NotFound(
                f"This licence is not activated on {domain}.", code="domain_not_activated"
            )
        audit.record(license, action="deactivated", changes={"domain": [domain, None]})
        publish(
            account=license.owner,
            event="license.deactivated",
            data={"license_key": license.license_key, "domain": domain},
        )
    return license


def activation_delete(*, activation_ids: Iterable[int]) -> int:
    """Staff: deactivate the given activations (each publishes license.deactivated)."""
    with transaction.atomic():
        rows = list(
            Activation.objects.filter(pk__in=list(activation_ids))
            .select_related("license__owner")
            .order_by("pk")
        )
        Activation.objects.filter(pk__in=[row.pk for row in rows]).delete()
        _audit_rows(
            (
                (row.license_id, row.license.license_key, {"domain": [row.domain, None]})
                for row in rows
            ),
            action="deactivated",
        )
        publish_many(
            DomainEvent(
                account=row.license.owner,
                event="license.deactivated",
                data={"license_key": row.license.license_key, "domain": row.domain},
            )
            for row in rows
        )
    return len(rows)
