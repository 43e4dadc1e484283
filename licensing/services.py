"""Licensing use cases: every write with a rule, called by the portal and public API views, the
admin actions, the management commands and the Celery tasks alike.

Each function validates first and raises a `common.errors` refusal (with a stable `code`)
before it changes anything; multi-row writes are one transaction. Licence events are published
(`common.events.publish`) inside the transaction that makes the change, so a rollback sends
nothing.

Row locks are taken in primary-key order (licences, packs, orders) so that concurrent bulk
calls cannot deadlock.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import User
from clients.models import Client
from common.errors import Forbidden, NotFound, ServiceError, ValidationFailed
from common.events import DomainEvent, publish, publish_many
from licensing import domains
from licensing.dates import add_years, iso
from licensing.keys import ALPHABET, IMPORTED_KEY_PATTERN, generate_license_key
from licensing.keys import normalize_license_key as _normalize_key
from licensing.models import (
    Activation,
    Component,
    License,
    LicenseSource,
    LicenseStatus,
    Pack,
    PackStatus,
    Product,
    Release,
    RenewalOrder,
    RenewalOrderItem,
    RenewalOrderStatus,
    Subscription,
    SubscriptionStatus,
    Tier,
)
from licensing.payments import get_provider

MAX_BULK_CREATE = 100
MAX_BULK_IDS = 100
MAX_TERM_YEARS = 10
TIER_RANK = {Tier.STARTER: 0, Tier.BUSINESS: 1}
REVOCABLE = (LicenseStatus.ACTIVE, LicenseStatus.EXPIRED)


# --- Small helpers ----------------------------------------------------------------------------


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def license_limit_for(user: User) -> int:
    """Licences `user` may hold (nfr excluded); -1 means unlimited (resellers, agencies)."""
    return -1 if user.is_partner else settings.LICENSE_LIMIT_DEVELOPER


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


def _get_product(product_id: int | None = None, *, slug: str | None = None) -> Product:
    rows = Product.objects.filter(is_active=True)
    product = rows.filter(slug=slug).first() if slug else rows.filter(pk=product_id).first()
    if product is None:
        field_name = "product" if slug else "product_id"
        raise ValidationFailed({field_name: ["No product with this id can be licensed."]})
    return product


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


def _lock_account(user: User) -> None:
    """Serialise the writes that count an account's rows (licence limit, pack credits)."""
    User.objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True).first()


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


def visible_licenses(user: User) -> QuerySet[License]:
    """Every licence `user` may see or change: its own, which include its sub-clients'."""
    return License.objects.filter(owner=user)


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


def _check_ids(ids: Iterable[int], field_name: str = "ids") -> list[int]:
    ids = list(dict.fromkeys(ids))
    if len(ids) > MAX_BULK_IDS:
        raise ValidationFailed({field_name: [f"At most {MAX_BULK_IDS} ids per call."]})
    return ids


# --- Usage ------------------------------------------------------------------------------------


def _check_license_limit(owner: User, adding: int) -> None:
    limit = license_limit_for(owner)
    if limit < 0:
        return
    total = License.objects.filter(owner=owner).exclude(source=LicenseSource.NFR).count()
    if total + adding > limit:
        raise ServiceError(
            f"The account holds {total} of its {limit} licences (licences not for resale "
            "excepted); revoke and permanently delete one, or upgrade to a reseller or agency "
            "account.",
            code="license_limit_reached",
        )


# --- Creating licences ------------------------------------------------------------------------


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
    publish_many(_created_event(row) for row in created)
    return created


def license_check_new(
    *,
    owner: User,
    product: Product,
    tier: str = Tier.STARTER,
    expires_at: datetime | None = None,
    customer_id: int | None = None,
    now: datetime | None = None,
) -> None:
    """Refuse what license_create would refuse (limit aside), creating nothing (admin forms)."""
    _prepare_issue(
        owner=owner,
        product=product,
        tier=tier,
        expires_at=expires_at,
        customer_id=customer_id,
        now=_now(now),
    )


def license_create(
    *,
    owner: User,
    product_id: int | None = None,
    product: Product | None = None,
    tier: str = Tier.STARTER,
    expires_at: datetime | None = None,
    customer_id: int | None = None,
    source: str = LicenseSource.INDIVIDUAL,
    enforce_limit: bool = True,
    now: datetime | None = None,
) -> License:
    """One licence. Developers are held to LICENSE_LIMIT_DEVELOPER (nfr licences excepted)."""
    now = _now(now)
    if source not in LicenseSource.values:
        raise ValidationFailed({"source": [f"Must be one of: {', '.join(LicenseSource.values)}."]})
    product = product or _get_product(product_id)
    issue = _prepare_issue(
        owner=owner,
        product=product,
        tier=tier,
        expires_at=expires_at,
        customer_id=customer_id,
        now=now,
    )
    with transaction.atomic():
        if enforce_limit and source != LicenseSource.NFR:
            _lock_account(owner)
            _check_license_limit(owner, 1)
        return _issue(issue, count=1, source=source, now=now)[0]


@dataclass
class BulkCreateResult:
    licenses: list[License]
    pack_credits_remaining: int


def _usable_packs(owner: User, now: datetime) -> QuerySet[Pack]:
    return Pack.objects.filter(owner=owner, status=PackStatus.ACTIVE).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now)
    )


def license_bulk_create(
    *,
    owner: User,
    product_id: int,
    count: int,
    tier: str = Tier.STARTER,
    expires_at: datetime | None = None,
    customer_id: int | None = None,
    now: datetime | None = None,
) -> BulkCreateResult:
    """1 to 100 licences paid from the account's pack credits, all or nothing.

    Credits are taken from the packs that lapse first (then the oldest).
    """
    now = _now(now)
    if not owner.is_partner:
        raise Forbidden(
            "Bulk creation is for reseller and agency accounts.", code="partner_account_required"
        )
    if not isinstance(count, int) or not 1 <= count <= MAX_BULK_CREATE:
        raise ValidationFailed({"count": [f"Must be between 1 and {MAX_BULK_CREATE}."]})
    issue = _prepare_issue(
        owner=owner,
        product=_get_product(product_id),
        tier=tier,
        expires_at=expires_at,
        customer_id=customer_id,
        now=now,
    )
    with transaction.atomic():
        packs = list(_usable_packs(owner, now).select_for_update().order_by("pk"))
        available = sum(pack.remaining for pack in packs)
        if available < count:
            raise ServiceError(
                f"Creating {count} licences needs {count} pack credits; the account has "
                f"{available} ({count - available} short). Nothing was created.",
                code="insufficient_pack_credits",
            )
        far_future = add_years(now, 1000)
        packs.sort(key=lambda p: (p.expires_at or far_future, p.purchased_at, p.pk))
        pack_of: list[Pack] = []
        used_packs: list[Pack] = []
        for pack in packs:
            taking = min(pack.remaining, count - len(pack_of))
            if taking <= 0:
                continue
            pack.used += taking
            if pack.used == pack.size:
                pack.status = PackStatus.EXHAUSTED
            pack_of += [pack] * taking
            used_packs.append(pack)
        Pack.objects.bulk_update(used_packs, ["used", "status"])
        created = _issue(
            issue, count=count, source=LicenseSource.BULK_PACK, now=now, pack_of=pack_of
        )
    return BulkCreateResult(created, available - count)


def licenses_issue(
    *,
    owner: User,
    product: Product,
    count: int,
    tier: str = Tier.STARTER,
    expires_at: datetime | None = None,
    customer_id: int | None = None,
    source: str = LicenseSource.INDIVIDUAL,
    now: datetime | None = None,
) -> list[License]:
    """Staff issuing `count` licences (ops command, admin): no limit and no pack credits.

    One transaction; chunks of 100 rows per INSERT.
    """
    now = _now(now)
    if count < 1:
        raise ValidationFailed({"count": ["Must be at least 1."]})
    if source not in LicenseSource.values:
        raise ValidationFailed({"source": [f"Must be one of: {', '.join(LicenseSource.values)}."]})
    issue = _prepare_issue(
        owner=owner,
        product=product,
        tier=tier,
        expires_at=expires_at,
        customer_id=customer_id,
        now=now,
    )
    created: list[License] = []
    with transaction.atomic():
        while len(created) < count:
            chunk = min(MAX_BULK_CREATE, count - len(created))
            created += _issue(issue, count=chunk, source=source, now=now)
    return created


# --- Changing licences ------------------------------------------------------------------------


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
        if tier == Tier.BUSINESS:
            license.subscription = _require_business_bundle(
                license.owner, license.customer, now, "Moving to the business tier"
            )
        else:
            license.subscription = None
        license.tier = tier
        license.save(update_fields=["tier", "subscription", "updated_at"])
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
    if license.tier == Tier.BUSINESS:
        license.subscription = _require_business_bundle(
            license.owner, license.customer, now, "Reactivating a business-tier licence"
        )
    license.status, license.revoked_at = LicenseStatus.ACTIVE, None
    license.save(update_fields=["status", "revoked_at", "subscription", "updated_at"])


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
        license.delete()
    return key


def licenses_delete(*, queryset: QuerySet[License]) -> int:
    """Delete the revoked, never-invoiced licences of `queryset`; answers how many."""
    with transaction.atomic():
        ids = list(
            _plain(queryset)
            .filter(status=LicenseStatus.REVOKED, invoiced_at__isnull=True)
            .select_for_update(of=("self",))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        License.objects.filter(pk__in=ids).delete()
    return len(ids)


def licenses_bulk_delete(*, user: User, ids: Iterable[int]) -> int:
    ids = _check_ids(ids)
    return licenses_delete(queryset=visible_licenses(user).filter(pk__in=ids))


def licenses_extend(
    *, queryset: QuerySet[License], years: int = 1, now: datetime | None = None
) -> int:
    """Staff: move expiry `years` on from the later of now and the current expiry; an expired
    licence becomes active again. Revoked licences are skipped."""
    now = _now(now)
    done = 0
    with transaction.atomic():
        for license in (
            _plain(queryset)
            .filter(status__in=REVOCABLE)
            .select_for_update(of=("self",))
            .order_by("pk")
        ):
            license.expires_at = add_years(max(now, license.expires_at), years)
            license.status = LicenseStatus.ACTIVE
            license.save(update_fields=["expires_at", "status", "updated_at"])
            done += 1
    return done


def licenses_mark_invoiced(*, queryset: QuerySet[License], now: datetime | None = None) -> int:
    return _plain(queryset).filter(invoiced_at__isnull=True).update(invoiced_at=_now(now))


# --- Activation (public API) ------------------------------------------------------------------


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
        publish_many(
            DomainEvent(
                account=row.license.owner,
                event="license.deactivated",
                data={"license_key": row.license.license_key, "domain": row.domain},
            )
            for row in rows
        )
    return len(rows)


# --- Renewals ---------------------------------------------------------------------------------


def _order_code() -> str:
    return "RN-" + "".join(secrets.choice(ALPHABET) for _ in range(10))


def _return_url(provider_name: str) -> str:
    if settings.RENEWAL_RETURN_URL:
        return settings.RENEWAL_RETURN_URL
    if provider_name == "sandbox":
        return ""
    return f"{settings.FRONTEND_URL}/renewals/complete"


def renewal_order_create(
    *, user: User, license_ids: Iterable[int], base_url: str, now: datetime | None = None
) -> RenewalOrder:
    """Price a one-year renewal of the caller's licences among `license_ids` (others are
    skipped) into a pending order and open a checkout with the payment provider."""
    now = _now(now)
    ids = _check_ids(license_ids, "license_ids")
    if not ids:
        raise ValidationFailed({"license_ids": ["Give at least one licence id."]})
    licenses = list(
        visible_licenses(user)
        .filter(pk__in=ids)
        .select_related("product", "customer")
        .order_by("pk")
    )
    if not licenses:
        raise NotFound("None of these licences is yours.", code="license_not_found")
    revoked = [lic.license_key for lic in licenses if lic.status == LicenseStatus.REVOKED]
    if revoked:
        raise ServiceError(
            "Revoked licences cannot be renewed; reactivate them first: " + ", ".join(revoked),
            code="license_revoked",
        )
    for license in licenses:
        if license.tier == Tier.BUSINESS:
            _require_business_bundle(
                user,
                license.customer,
                now,
                f"Renewing business-tier licence {license.license_key}",
            )
    amount = sum((lic.product.yearly_price(lic.tier) for lic in licenses), Decimal("0.00"))
    if amount <= 0:
        raise ServiceError(
            "These licences have no renewal price; nothing to pay.", code="nothing_to_pay"
        )
    provider = get_provider()
    code = _order_code()
    while RenewalOrder.objects.filter(code=code).exists():
        code = _order_code()
    checkout = provider.create_checkout(
        order_code=code,
        description=f"Renewal of {len(licenses)} licence{'s' if len(licenses) != 1 else ''} "
        f"({code})",
        amount=amount,
        currency=settings.LICENSE_CURRENCY,
        base_url=base_url,
        return_url=_return_url(provider.name),
    )
    with transaction.atomic():
        order = RenewalOrder.objects.create(
            owner=user,
            code=code,
            amount=amount,
            currency=settings.LICENSE_CURRENCY,
            provider=provider.name,
            provider_reference=checkout.reference,
            checkout_url=checkout.url,
            created_at=now,
        )
        RenewalOrderItem.objects.bulk_create(
            RenewalOrderItem(
                order=order,
                license=lic,
                license_key=lic.license_key,
                product=lic.product,
                tier=lic.tier,
                price=lic.product.yearly_price(lic.tier),
                previous_expires_at=lic.expires_at,
            )
            for lic in licenses
        )
    return order


def _already_confirmed(order: RenewalOrder, transaction_id: str) -> RenewalOrder:
    if order.transaction_id == transaction_id:
        return order
    raise ServiceError(
        f"Order {order.code} was already paid with another transaction.",
        code="renewal_already_confirmed",
    )


def renewal_confirm(
    *, user: User, order_code: str, transaction_id: str, now: datetime | None = None
) -> RenewalOrder:
    """Check the transaction with the payment provider; when it paid this order in full,
    extend each licence one year from the later of now and its expiry, once. Confirming again
    with the same transaction answers the same result and changes nothing."""
    now = _now(now)
    order_code, transaction_id = order_code.strip().upper(), transaction_id.strip()
    order = RenewalOrder.objects.filter(owner=user, code=order_code).first()
    if order is None:
        raise NotFound("Renewal order not found.", code="renewal_order_not_found")
    if order.status == RenewalOrderStatus.PAID:
        return _already_confirmed(order, transaction_id)
    check = get_provider(order.provider).check_transaction(transaction_id=transaction_id)
    if check is None:
        raise ServiceError(
            "The payment provider knows no such transaction; nothing was changed.",
            code="transaction_not_found",
        )
    if check.order_code != order.code:
        raise ServiceError(
            f"Transaction {transaction_id} does not belong to order {order.code}; nothing was "
            "changed.",
            code="transaction_mismatch",
        )
    if not check.paid:
        raise ServiceError(
            f"Transaction {transaction_id} is not paid; nothing was changed.",
            code="payment_not_completed",
        )
    if check.amount != order.amount or (check.currency or "").upper() != order.currency:
        raise ServiceError(
            f"Transaction {transaction_id} paid {check.amount} {check.currency}, not "
            f"{order.amount} {order.currency}; nothing was changed.",
            code="transaction_mismatch",
        )
    try:
        with transaction.atomic():
            order = RenewalOrder.objects.select_for_update().get(pk=order.pk)
            if order.status == RenewalOrderStatus.PAID:  # a concurrent confirm won
                return _already_confirmed(order, transaction_id)
            items = list(order.items.all())
            license_ids = [item.license_id for item in items if item.license_id]
            licenses = {
                lic.pk: lic
                for lic in License.objects.select_for_update()
                .filter(pk__in=license_ids)
                .order_by("pk")
            }
            for item in items:
                license = licenses.get(item.license_id)
                if license is None:
                    continue
                license.expires_at = add_years(max(now, license.expires_at), 1)
                if license.status == LicenseStatus.EXPIRED:
                    license.status = LicenseStatus.ACTIVE
                license.invoiced_at = license.invoiced_at or now
                item.new_expires_at = license.expires_at
            License.objects.bulk_update(
                licenses.values(), ["expires_at", "status", "invoiced_at", "updated_at"]
            )
            RenewalOrderItem.objects.bulk_update(items, ["new_expires_at"])
            order.status = RenewalOrderStatus.PAID
            order.transaction_id = transaction_id
            order.paid_at = now
            order.save(update_fields=["status", "transaction_id", "paid_at"])
    except IntegrityError:
        raise ServiceError(
            f"Transaction {transaction_id} has already confirmed another order.",
            code="transaction_mismatch",
        ) from None
    return order


# --- Subscriptions and expiry -----------------------------------------------------------------


def subscription_expire(*, subscription_id: int, now: datetime | None = None) -> int | None:
    """End a subscription now: its active licences expire and license.expired is published
    with the count. Answers that count, or None when it was not active (nothing changed)."""
    now = _now(now)
    with transaction.atomic():
        subscription = (
            Subscription.objects.select_for_update(of=("self",))
            .select_related("owner")
            .filter(pk=subscription_id, status=SubscriptionStatus.ACTIVE)
            .first()
        )
        if subscription is None:
            return None
        subscription.status = SubscriptionStatus.EXPIRED
        subscription.expired_at = now
        subscription.save(update_fields=["status", "expired_at"])
        expired = License.objects.filter(
            subscription=subscription, status=LicenseStatus.ACTIVE
        ).update(status=LicenseStatus.EXPIRED, updated_at=now)
        publish(
            account=subscription.owner,
            event="license.expired",
            data={
                "customer_id": subscription.customer_id,
                "licenses_revoked": expired,
                "subscription_id": subscription.pk,
            },
        )
    return expired


@dataclass
class ExpiryResult:
    subscriptions: int = 0
    licenses: int = 0
    packs: int = 0


def expire_due(*, now: datetime | None = None, progress=None) -> ExpiryResult:
    """Move what is past its end to expired: subscriptions (with their licences), licences
    past `expires_at`, and packs past their `expires_at`. Running it again changes nothing.

    Licences expiring by date publish one license.expired per owner and customer, with
    `subscription_id` null.
    """
    now = _now(now)
    result = ExpiryResult()
    due = list(
        Subscription.objects.filter(
            status=SubscriptionStatus.ACTIVE, current_period_end__lte=now
        ).values_list("pk", flat=True)
    )
    for subscription_id in progress(due) if progress else due:
        expired = subscription_expire(subscription_id=subscription_id, now=now)
        if expired is not None:
            result.subscriptions += 1
            result.licenses += expired
    with transaction.atomic():
        rows = list(
            License.objects.filter(status=LicenseStatus.ACTIVE, expires_at__lte=now)
            .select_for_update(of=("self",))
            .select_related("owner")
            .order_by("pk")
        )
        License.objects.filter(pk__in=[row.pk for row in rows]).update(
            status=LicenseStatus.EXPIRED, updated_at=now
        )
        groups: dict[tuple[int, int | None], list[License]] = defaultdict(list)
        for row in rows:
            groups[(row.owner_id, row.customer_id)].append(row)
        publish_many(
            DomainEvent(
                account=members[0].owner,
                event="license.expired",
                data={
                    "customer_id": customer_id,
                    "licenses_revoked": len(members),
                    "subscription_id": None,
                },
            )
            for (_owner_id, customer_id), members in groups.items()
        )
        result.licenses += len(rows)
        result.packs = Pack.objects.filter(
            status=PackStatus.ACTIVE, expires_at__isnull=False, expires_at__lte=now
        ).update(status=PackStatus.EXPIRED)
    return result


# --- Sub-clients ------------------------------------------------------------------------------


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


# --- Import -----------------------------------------------------------------------------------


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


# --- Releases and components ------------------------------------------------------------------


def _file_digest(file_field) -> tuple[int, str]:
    digest, size = hashlib.sha256(), 0
    file_field.open("rb")
    try:
        for chunk in file_field.chunks():
            digest.update(chunk)
            size += len(chunk)
    finally:
        file_field.close()
    return size, digest.hexdigest()


def release_save(*, release: Release) -> Release:
    """Store a release (admin upload): its file's size and SHA-256 are recorded."""
    from licensing.versions import parse_version

    parse_version(release.version, field="version")
    with transaction.atomic():
        release.save()
        release.file_size, release.sha256 = _file_digest(release.file)
        release.save(update_fields=["file_size", "sha256"])
    return release


def component_save(*, component: Component) -> Component:
    """Store a component (admin upload): size, SHA-256 and update time are recorded."""
    from licensing.versions import parse_version

    parse_version(component.version, field="version")
    with transaction.atomic():
        component.updated_at = timezone.now()
        component.save()
        component.file_size, component.sha256 = _file_digest(component.file)
        component.save(update_fields=["file_size", "sha256"])
    return component
