"""Helpers shared by the licensing use cases (not imported from outside the package): the
clock, field checks, the Business Bundle rule, the id cap, and issuing licences (one INSERT,
license.created published for each)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from django.utils import timezone

from accounts.models import User
from clients.models import Client
from common import audit
from common.errors import Forbidden, NotFound, ServiceError, ValidationFailed
from common.events import DomainEvent, publish_many
from licensing.dates import add_years, iso
from licensing.keys import generate_license_key
from licensing.models import (
    License,
    LicenseStatus,
    Pack,
    Product,
    Subscription,
    SubscriptionStatus,
    Tier,
)
from licensing.services.rules import MAX_BULK_IDS

MAX_TERM_YEARS = 10

# The fields of a licence its audit trail follows (common.audit).
AUDITED_FIELDS = (
    "owner",
    "product",
    "tier",
    "status",
    "source",
    "expires_at",
    "customer",
    "subscription",
    "pack",
    "invoiced_at",
    "revoked_at",
)


def _audit_rows(rows: Iterable[tuple[int, str, dict]], *, action: str, note: str = "") -> None:
    """Record a change of many licences (made by one UPDATE) in the audit trail."""
    audit.record_many(License, rows, action=action, note=note)


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def _check_tier(tier: str) -> str:
    if tier not in Tier.values:
        raise ValidationFailed({"tier": [f"Must be one of: {', '.join(Tier.values)}."]})
    return tier


def _check_expiry(expires_at: datetime | None, now: datetime) -> datetime:
    if expires_at is None:
        return add_years(now, 1)
    if timezone.is_naive(expires_at):
        expires_at = timezone.make_aware(expires_at, UTC)
    if expires_at <= now:
        raise ValidationFailed({"expires_at": ["Must be in the future."]})
    if expires_at > add_years(now, MAX_TERM_YEARS):
        raise ValidationFailed(
            {"expires_at": [f"Must be at most {MAX_TERM_YEARS} years from now."]}
        )
    return expires_at


def _get_customer(owner: User, customer_id: int | None) -> Client | None:
    if customer_id is None:
        return None
    if not owner.is_partner:
        raise Forbidden(
            "Only reseller and agency accounts may assign licences to a customer (customer_id).",
            code="partner_account_required",
        )
    customer = Client.objects.filter(owner=owner, pk=customer_id).first()
    if customer is None:
        raise NotFound("Client not found.", code="client_not_found")
    return customer


def business_subscription_for(
    *, owner: User, customer: Client | None, now: datetime | None = None
) -> Subscription | None:
    """The current Business Bundle subscription covering a licence of `owner` for `customer`:
    one bought for that customer first, else one of the account's own (without customer)."""
    now = _now(now)
    rows = Subscription.objects.filter(
        owner=owner, status=SubscriptionStatus.ACTIVE, current_period_end__gt=now
    )
    if customer is not None:
        match = rows.filter(customer=customer).order_by("-current_period_end", "-id").first()
        if match is not None:
            return match
    return rows.filter(customer__isnull=True).order_by("-current_period_end", "-id").first()


def _require_business_bundle(
    owner: User, customer: Client | None, now: datetime, what: str = "The business tier"
) -> Subscription:
    subscription = business_subscription_for(owner=owner, customer=customer, now=now)
    if subscription is None:
        whom = f" covering client {customer.pk}" if customer is not None else ""
        raise ServiceError(
            f"{what} needs an active Business Bundle subscription{whom}; the account has none.",
            code="business_bundle_required",
        )
    return subscription


def _fresh_keys(count: int) -> list[str]:
    keys: set[str] = set()
    while len(keys) < count:
        wanted = {generate_license_key() for _ in range(count - len(keys))}
        taken = set(
            License.objects.filter(license_key__in=wanted).values_list("license_key", flat=True)
        )
        keys |= wanted - taken
    return list(keys)


def _created_event(license: License) -> DomainEvent:
    return DomainEvent(
        account=license.owner,
        event="license.created",
        data={
            "license_id": license.pk,
            "license_key": license.license_key,
            "tier": license.tier,
            "product_slug": license.product.slug,
            "expires_at": iso(license.expires_at),
        },
    )


def _check_ids(ids: Iterable[int], field_name: str = "ids") -> list[int]:
    ids = list(dict.fromkeys(ids))
    if len(ids) > MAX_BULK_IDS:
        raise ValidationFailed({field_name: [f"At most {MAX_BULK_IDS} ids per call."]})
    return ids


@dataclass
class _Issue:
    owner: User
    product: Product
    tier: str
    expires_at: datetime
    customer: Client | None
    subscription: Subscription | None


def _prepare_issue(
    *,
    owner: User,
    product: Product,
    tier: str,
    expires_at: datetime | None,
    customer_id: int | None,
    now: datetime,
    any_expiry: bool = False,
    require_bundle: bool = True,
) -> _Issue:
    tier = _check_tier(tier)
    if not (any_expiry and expires_at is not None):
        expires_at = _check_expiry(expires_at, now)
    customer = _get_customer(owner, customer_id)
    subscription = None
    if tier == Tier.BUSINESS:
        subscription = (
            _require_business_bundle(owner, customer, now)
            if require_bundle
            else business_subscription_for(owner=owner, customer=customer, now=now)
        )
    return _Issue(owner, product, tier, expires_at, customer, subscription)


def _issue(
    issue: _Issue,
    *,
    count: int,
    source: str,
    now: datetime,
    pack_of: list[Pack] | None = None,
    keys: list[str] | None = None,
    status: str = LicenseStatus.ACTIVE,
) -> list[License]:
    """Create `count` licences (one INSERT) and publish license.created for each."""
    keys = keys or _fresh_keys(count)
    rows = [
        License(
            owner=issue.owner,
            product=issue.product,
            license_key=keys[index],
            tier=issue.tier,
            status=status,
            source=source,
            expires_at=issue.expires_at,
            customer=issue.customer,
            subscription=issue.subscription,
            pack=pack_of[index] if pack_of else None,
            revoked_at=now if status == LicenseStatus.REVOKED else None,
            created_at=now,
        )
        for index in range(count)
    ]
    created = License.objects.bulk_create(rows)
    if any(row.pk is None for row in created):  # a backend that cannot return ids
        by_key = dict(License.objects.filter(license_key__in=keys).values_list("license_key", "pk"))
        for row in created:
            row.pk = row.id = by_key[row.license_key]
    _audit_rows(
        ((row.pk, row.license_key, audit.created_changes(row, AUDITED_FIELDS)) for row in created),
        action="created",
    )
    publish_many(_created_event(row) for row in created)
    return created
