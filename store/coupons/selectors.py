"""Coupon reads: by code (any case), their terms, live uses against the limits, admin lists."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Prefetch, Q, QuerySet
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.utils import timezone

from accounts.models import normalize_email
from store.catalog.models import Category, Product
from store.common.accounts import logged_in
from store.common.cache import VersionedCache, cached_copy
from store.common.errors import not_found
from store.coupons.models import Coupon, CouponUse, CouponUseStatus
from store.coupons.rules import CouponTerms, refused

ORDERBY = {
    "id": "id",
    "code": "code",
    "date": "created_at",
    "expires_at": "expires_at",
    "usage_count": "usage_count",
    "amount": "amount",
}


@dataclass(frozen=True)
class Customer:
    """Who uses a coupon, for the per-customer limit: an account, an e-mail address, or both."""

    user_id: int | None = None
    email: str = ""

    @classmethod
    def of(cls, user=None, email: str | None = None) -> Customer:
        account = logged_in(user)
        user_id = account.pk if account is not None else None
        address = normalize_email(email or (account.email if account is not None else ""))
        return cls(user_id=user_id, email=address)

    @property
    def known(self) -> bool:
        return self.user_id is not None or bool(self.email)


def with_restrictions(queryset: QuerySet[Coupon]) -> QuerySet[Coupon]:
    only_pk = Product.objects.only("pk")
    only_cat = Category.objects.only("pk")
    return queryset.prefetch_related(
        Prefetch("products", queryset=only_pk),
        Prefetch("excluded_products", queryset=only_pk),
        Prefetch("categories", queryset=only_cat),
        Prefetch("excluded_categories", queryset=only_cat),
    )


def coupon_by_code(code: str) -> Coupon | None:
    text = (code or "").strip()
    if not text:
        return None
    return with_restrictions(Coupon.objects.filter(code__iexact=text)).first()


def coupon_get(coupon_id: int) -> Coupon:
    coupon = with_restrictions(Coupon.objects.filter(pk=coupon_id)).first()
    if coupon is None:
        raise not_found("coupon", coupon_id)
    return coupon


def terms_of(coupon: Coupon) -> CouponTerms:
    return CouponTerms(
        id=coupon.pk,
        code=coupon.code,
        discount_type=coupon.discount_type,
        amount=coupon.amount,
        free_shipping=coupon.free_shipping,
        enabled=coupon.enabled,
        expires_at=coupon.expires_at,
        minimum_amount=coupon.minimum_amount,
        maximum_amount=coupon.maximum_amount,
        individual_use=coupon.individual_use,
        exclude_sale_items=coupon.exclude_sale_items,
        product_ids=frozenset(p.pk for p in coupon.products.all()),
        excluded_product_ids=frozenset(p.pk for p in coupon.excluded_products.all()),
        category_ids=frozenset(c.pk for c in coupon.categories.all()),
        excluded_category_ids=frozenset(c.pk for c in coupon.excluded_categories.all()),
        description=coupon.description,
    )


terms_cache = VersionedCache("coupon_terms")


def cached_terms(coupons: list[Coupon]) -> dict[int, CouponTerms]:
    """The terms of `coupons` by id: from the cache, else loaded (four queries) and kept.

    Any saved or deleted coupon, or changed product/category restriction, drops them all;
    bulk updates call `invalidate_terms`.
    """
    if not coupons:
        return {}
    ids = sorted({coupon.pk for coupon in coupons})

    def load() -> dict[int, CouponTerms]:
        loaded = with_restrictions(Coupon.objects.filter(pk__in=ids))
        return {coupon.pk: terms_of(coupon) for coupon in loaded}

    return cached_copy(terms_cache, "ids:" + ",".join(map(str, ids)), load)


def invalidate_terms(*args, **kwargs) -> None:
    terms_cache.bump()


def connect_invalidation() -> None:
    post_save.connect(invalidate_terms, sender=Coupon, dispatch_uid="store.coupons.terms.save")
    post_delete.connect(invalidate_terms, sender=Coupon, dispatch_uid="store.coupons.terms.delete")
    for name in ("products", "excluded_products", "categories", "excluded_categories"):
        m2m_changed.connect(
            invalidate_terms,
            sender=getattr(Coupon, name).through,
            dispatch_uid=f"store.coupons.terms.{name}",
        )


def live_uses(now: datetime | None = None) -> Q:
    """Uses that count against the limits: confirmed ones, and holds that have not run out."""
    now = now or timezone.now()
    return Q(status=CouponUseStatus.CONFIRMED) | Q(status=CouponUseStatus.HELD, held_until__gt=now)


def customer_filter(customer: Customer) -> Q:
    condition = Q(pk__in=[])
    if customer.user_id is not None:
        condition |= Q(user_id=customer.user_id)
    if customer.email:
        condition |= Q(email=customer.email) | Q(user__email=customer.email)
    return condition


def check_usage(
    coupon: Coupon,
    *,
    customer: Customer,
    exclude_reference: str | None = None,
    now: datetime | None = None,
) -> None:
    """Refuse a coupon whose overall or per-customer limit is used up (live uses count)."""
    if coupon.usage_limit is None and (coupon.usage_limit_per_user is None or not customer.known):
        return
    uses = CouponUse.objects.filter(coupon=coupon).filter(live_uses(now))
    if exclude_reference is not None:
        uses = uses.exclude(order_reference=exclude_reference)
    if coupon.usage_limit is not None and uses.count() >= coupon.usage_limit:
        raise refused(
            "coupon_usage_limit_reached", f"Coupon {coupon.code!r} has reached its usage limit."
        )
    per_user = coupon.usage_limit_per_user
    if (
        per_user is not None
        and customer.known
        and uses.filter(customer_filter(customer)).count() >= per_user
    ):
        raise refused(
            "coupon_user_usage_limit_reached",
            f"You have already used coupon {coupon.code!r} the most times allowed ({per_user}).",
        )


def coupon_list(
    *,
    search: str | None = None,
    status: str | None = None,
    discount_type: str | None = None,
    orderby: str = "id",
    order: str = "DESC",
    now: datetime | None = None,
) -> QuerySet[Coupon]:
    now = now or timezone.now()
    queryset = Coupon.objects.all()
    if search:
        queryset = queryset.filter(Q(code__icontains=search) | Q(description__icontains=search))
    if discount_type:
        queryset = queryset.filter(discount_type=discount_type)
    if status == "active":
        queryset = queryset.filter(enabled=True).filter(
            Q(expires_at__isnull=True) | Q(expires_at__gt=now)
        )
    elif status == "expired":
        queryset = queryset.filter(expires_at__lte=now)
    elif status == "disabled":
        queryset = queryset.filter(enabled=False)
    field = ORDERBY[orderby]
    prefix = "-" if order.upper() == "DESC" else ""
    return with_restrictions(queryset.order_by(f"{prefix}{field}", f"{prefix}id"))
