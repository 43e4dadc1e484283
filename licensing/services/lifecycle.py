"""Changing licences: tier, revoke, reactivate, delete, extend, mark invoiced, and ending a
sub-client's licences before the client is deleted.

Row locks are taken in primary-key order so that concurrent bulk calls cannot deadlock."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import QuerySet

from accounts.models import User
from clients.models import Client
from common import audit
from common.errors import NotFound, ServiceError, ValidationFailed
from common.events import DomainEvent, publish_many
from licensing.dates import add_years
from licensing.models import (
    Activation,
    License,
    LicenseStatus,
    Subscription,
    SubscriptionStatus,
    Tier,
)
from licensing.services._shared import (
    AUDITED_FIELDS,
    _audit_rows,
    _check_expiry,
    _check_ids,
    _check_tier,
    _now,
    _require_business_bundle,
)
from licensing.services.expiry import subscription_expire
from licensing.services.rules import visible_licenses

REVOCABLE = (LicenseStatus.ACTIVE, LicenseStatus.EXPIRED)


def _locked_license(user: User, license_id: int) -> License:
    license = (
        visible_licenses(user)
        .select_for_update(of=("self",))
        .select_related("product", "owner")
        .filter(pk=license_id)
        .first()
    )
    if license is None:
        raise NotFound("License not found.", code="license_not_found")
    return license


def _plain(queryset: QuerySet[License]) -> QuerySet[License]:
    """The rows of a caller's queryset (perhaps DISTINCT, ordered, joined) as a plain one that
    can be locked with SELECT ... FOR UPDATE."""
    return License.objects.filter(pk__in=queryset.order_by().values("pk"))


def _refuse_unless_active(license: License, now: datetime, action: str) -> None:
    status = license.effective_status(now)
    if status == LicenseStatus.REVOKED:
        raise ServiceError(
            f"License {license.license_key} is revoked; reactivate it before you {action}.",
            code="license_revoked",
        )
    if status == LicenseStatus.EXPIRED:
        raise ServiceError(
            f"License {license.license_key} expired on {license.expires_at:%Y-%m-%d}; renew it "
            f"before you {action}.",
            code="license_expired",
        )


@dataclass
class TierChange:
    license: License
    old_tier: str
    new_tier: str
    changed: bool


def license_change_tier(
    *, user: User, license_id: int, tier: str, now: datetime | None = None
) -> TierChange:
    """starter <-> business; business needs a current Business Bundle subscription."""
    now = _now(now)
    tier = _check_tier(tier)
    with transaction.atomic():
        license = _locked_license(user, license_id)
        old_tier = license.tier
        _refuse_unless_active(license, now, "change its tier")
        if old_tier == tier:
            return TierChange(license, old_tier, tier, changed=False)
        trail = audit.track(license, AUDITED_FIELDS)
        if tier == Tier.BUSINESS:
            license.subscription = _require_business_bundle(
                license.owner, license.customer, now, "Moving to the business tier"
            )
        else:
            license.subscription = None
        license.tier = tier
        license.save(update_fields=["tier", "subscription", "updated_at"])
        trail.record(action="tier changed")
    return TierChange(license, old_tier, tier, changed=True)


def _revoke_locked(licenses: list[License], now: datetime) -> dict[int, list[str]]:
    """Revoke rows already locked and known to be active or expired: deactivate every domain
    and publish license.revoked with the domains. Answers the domains of each licence."""
    if not licenses:
        return {}
    ids = [license.pk for license in licenses]
    domains_of: dict[int, list[str]] = defaultdict(list)
    for license_id, domain in (
        Activation.objects.filter(license_id__in=ids)
        .order_by("domain")
        .values_list("license_id", "domain")
    ):
        domains_of[license_id].append(domain)
    Activation.objects.filter(license_id__in=ids).delete()
    License.objects.filter(pk__in=ids).update(
        status=LicenseStatus.REVOKED, revoked_at=now, updated_at=now
    )
    _audit_rows(
        (
            (
                license.pk,
                license.license_key,
                audit.diff(
                    audit.snapshot(license, ("status", "revoked_at")),
                    {"status": LicenseStatus.REVOKED, "revoked_at": audit.jsonable(now)},
                ),
            )
            for license in licenses
        ),
        action="revoked",
        note=_domains_note(domains_of, licenses),
    )
    for license in licenses:
        license.status, license.revoked_at = LicenseStatus.REVOKED, now
    publish_many(
        DomainEvent(
            account=license.owner,
            event="license.revoked",
            data={
                "license_key": license.license_key,
                "deactivated_domains": domains_of.get(license.pk, []),
            },
        )
        for license in licenses
    )
    return domains_of


def _domains_note(domains_of: dict[int, list[str]], licenses: list[License]) -> str:
    if len(licenses) != 1 or not domains_of.get(licenses[0].pk):
        return ""
    return "Deactivated on " + ", ".join(domains_of[licenses[0].pk])


def licenses_revoke(*, queryset: QuerySet[License], now: datetime | None = None) -> int:
    """Revoke every active or expired licence of `queryset` (already scoped by the caller);
    answers how many were revoked. Revoked ones are skipped."""
    now = _now(now)
    with transaction.atomic():
        rows = list(
            _plain(queryset)
            .filter(status__in=REVOCABLE)
            .select_for_update(of=("self",))
            .select_related("owner")
            .order_by("pk")
        )
        _revoke_locked(rows, now)
    return len(rows)


def license_revoke(*, user: User, license_id: int, now: datetime | None = None) -> License:
    """DELETE /portal/licenses/{id}: revoke one licence of the caller."""
    now = _now(now)
    with transaction.atomic():
        license = _locked_license(user, license_id)
        if license.status == LicenseStatus.REVOKED:
            raise ServiceError(
                f"License {license.license_key} is already revoked.", code="license_not_active"
            )
        license.deactivated_domains = _revoke_locked([license], now).get(license.pk, [])
    return license


def licenses_bulk_revoke(*, user: User, ids: Iterable[int], now: datetime | None = None) -> int:
    """Revoke the caller's licences among `ids` (at most 100); others are skipped, uncounted."""
    ids = _check_ids(ids)
    return licenses_revoke(queryset=visible_licenses(user).filter(pk__in=ids), now=now)


def _reactivate_locked(license: License, now: datetime) -> None:
    if license.status != LicenseStatus.REVOKED:
        raise ServiceError(
            f"License {license.license_key} is {license.effective_status(now)}; only a revoked "
            "licence can be reactivated.",
            code="license_not_revoked",
        )
    if license.expires_at <= now:
        raise ServiceError(
            f"License {license.license_key} expired on {license.expires_at:%Y-%m-%d}; an "
            "expired licence cannot be reactivated.",
            code="license_expired",
        )
    trail = audit.track(license, AUDITED_FIELDS)
    if license.tier == Tier.BUSINESS:
        license.subscription = _require_business_bundle(
            license.owner, license.customer, now, "Reactivating a business-tier licence"
        )
    license.status, license.revoked_at = LicenseStatus.ACTIVE, None
    license.save(update_fields=["status", "revoked_at", "subscription", "updated_at"])
    trail.record(action="reactivated")


def license_reactivate(*, user: User, license_id: int, now: datetime | None = None) -> License:
    """A revoked, unexpired licence becomes active again, free of charge. Its domains stay
    deactivated (revocation removed them)."""
    now = _now(now)
    with transaction.atomic():
        license = _locked_license(user, license_id)
        _reactivate_locked(license, now)
    return license


def licenses_reactivate(*, queryset: QuerySet[License], now: datetime | None = None) -> int:
    """Staff: reactivate those of `queryset` that may be; answers how many were."""
    now = _now(now)
    done = 0
    with transaction.atomic():
        for license in (
            _plain(queryset)
            .filter(status=LicenseStatus.REVOKED, expires_at__gt=now)
            .select_for_update(of=("self",))
            .select_related("owner", "customer")
            .order_by("pk")
        ):
            try:
                with transaction.atomic():
                    _reactivate_locked(license, now)
            except ServiceError:
                continue
            done += 1
    return done


def _refuse_unless_deletable(license: License) -> None:
    if license.status != LicenseStatus.REVOKED:
        raise ServiceError(
            f"License {license.license_key} is {license.status}; only a revoked licence can be "
            "deleted permanently. Revoke it first.",
            code="license_not_revoked",
        )
    if license.invoiced_at is not None:
        raise ServiceError(
            f"License {license.license_key} has been invoiced and is kept for the records; it "
            "cannot be deleted permanently.",
            code="license_invoiced",
        )


def license_delete(*, user: User, license_id: int) -> str:
    """Remove a revoked, never-invoiced licence for good; answers its key."""
    with transaction.atomic():
        license = _locked_license(user, license_id)
        _refuse_unless_deletable(license)
        key = license.license_key
        _audit_rows([(license.pk, key, {})], action="deleted")
        license.delete()
    return key


def licenses_delete(*, queryset: QuerySet[License]) -> int:
    """Delete the revoked, never-invoiced licences of `queryset`; answers how many."""
    with transaction.atomic():
        rows = list(
            _plain(queryset)
            .filter(status=LicenseStatus.REVOKED, invoiced_at__isnull=True)
            .select_for_update(of=("self",))
            .order_by("pk")
            .values_list("pk", "license_key")
        )
        _audit_rows(((pk, key, {}) for pk, key in rows), action="deleted")
        License.objects.filter(pk__in=[pk for pk, _key in rows]).delete()
    return len(rows)


def licenses_bulk_delete(*, user: User, ids: Iterable[int]) -> int:
    ids = _check_ids(ids)
    return licenses_delete(queryset=visible_licenses(user).filter(pk__in=ids))


def licenses_extend(
    *, queryset: QuerySet[License], years: int = 1, now: datetime | None = None
) -> int:
    """Staff: move expiry `years` on from the later of now and the current expiry; an expired
    licence becomes active again. Revoked licences are skipped."""
    now = _now(now)
    changed = []
    with transaction.atomic():
        for license in (
            _plain(queryset)
            .filter(status__in=REVOCABLE)
            .select_for_update(of=("self",))
            .order_by("pk")
        ):
            trail = audit.track(license, ("status", "expires_at"))
            license.expires_at = add_years(max(now, license.expires_at), years)
            license.status = LicenseStatus.ACTIVE
            license.save(update_fields=["expires_at", "status", "updated_at"])
            changed.append((license.pk, license.license_key, trail.changes()))
        _audit_rows(changed, action="extended")
    return len(changed)


def licenses_mark_invoiced(*, queryset: QuerySet[License], now: datetime | None = None) -> int:
    """Staff: stamp the not yet invoiced licences of `queryset` as invoiced now."""
    now = _now(now)
    with transaction.atomic():
        rows = list(
            _plain(queryset)
            .filter(invoiced_at__isnull=True)
            .select_for_update(of=("self",))
            .order_by("pk")
            .values_list("pk", "license_key")
        )
        License.objects.filter(pk__in=[pk for pk, _key in rows]).update(invoiced_at=now)
        stamp = audit.jsonable(now)
        _audit_rows(
            ((pk, key, {"invoiced_at": [None, stamp]}) for pk, key in rows), action="invoiced"
        )
    return len(rows)


def license_staff_check(
    *,
    license: License,
    expires_at: datetime | None,
    invoiced_at: datetime | None,
    now: datetime | None = None,
) -> None:
    """Refuse what license_staff_update would refuse, changing nothing (the admin's form)."""
    now = _now(now)
    if expires_at is not None and expires_at != license.expires_at:
        _check_expiry(expires_at, now)
    if invoiced_at is None and license.invoiced_at is not None:
        raise ValidationFailed(
            {"invoiced_at": ["An invoiced licence is kept for the records; it stays invoiced."]}
        )
    if invoiced_at is not None and invoiced_at > now:
        raise ValidationFailed({"invoiced_at": ["Cannot be in the future."]})


def license_staff_update(
    *,
    license_id: int,
    expires_at: datetime | None,
    invoiced_at: datetime | None,
    now: datetime | None = None,
) -> License:
    """Staff editing a licence (the admin's form): a new expiry, in the future and at most
    MAX_TERM_YEARS away (an expired licence becomes active again, a revoked one stays
    revoked), and the invoice date, which can be set or moved but neither removed (an invoiced
    licence is kept for the records) nor put in the future."""
    now = _now(now)
    with transaction.atomic():
        license = License.objects.select_for_update().filter(pk=license_id).first()
        if license is None:
            raise NotFound("License not found.", code="license_not_found")
        license_staff_check(
            license=license, expires_at=expires_at, invoiced_at=invoiced_at, now=now
        )
        trail = audit.track(license, AUDITED_FIELDS)
        if expires_at is not None and expires_at != license.expires_at:
            license.expires_at = _check_expiry(expires_at, now)
            if license.status == LicenseStatus.EXPIRED:
                license.status = LicenseStatus.ACTIVE
        license.invoiced_at = invoiced_at
        if trail.changes():
            license.save(update_fields=["expires_at", "status", "invoiced_at", "updated_at"])
            trail.record()
    return license


def client_licenses_end(*, client: Client, now: datetime | None = None) -> int:
    """Before a client is deleted: revoke (and deactivate) each of its licences and end the
    subscriptions bought for it. Answers how many licences were revoked."""
    now = _now(now)
    revoked = licenses_revoke(queryset=License.objects.filter(customer=client), now=now)
    for subscription_id in Subscription.objects.filter(
        customer=client, status=SubscriptionStatus.ACTIVE
    ).values_list("pk", flat=True):
        subscription_expire(subscription_id=subscription_id, now=now)
    return revoked
