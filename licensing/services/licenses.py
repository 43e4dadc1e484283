"""Creating licences: one for an account (portal, admin), 1 to 100 paid from pack credits
(partners), and any number issued by staff (ops command, admin)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Q, QuerySet

from accounts.models import User
from common.errors import Forbidden, ServiceError, ValidationFailed
from licensing.dates import add_years
from licensing.models import License, LicenseSource, Pack, PackStatus, Product, Tier
from licensing.services._shared import _issue, _now, _prepare_issue
from licensing.services.rules import license_limit_for

MAX_BULK_CREATE = 100


def _get_product(product_id: int | None = None, *, slug: str | None = None) -> Product:
    rows = Product.objects.filter(is_active=True)
    product = rows.filter(slug=slug).first() if slug else rows.filter(pk=product_id).first()
    if product is None:
        field_name = "product" if slug else "product_id"
        raise ValidationFailed({field_name: ["No product with this id can be licensed."]})
    return product


def _lock_account(user: User) -> None:
    """Serialise the writes that count an account's rows (licence limit, pack credits)."""
    User.objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True).first()


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
