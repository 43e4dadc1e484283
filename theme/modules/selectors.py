"""The modules' reads: which modules are on, and each module's lists (bounded queries)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db.models import Count, Prefetch, Sum
from django.utils import timezone

from store.catalog.choices import ProductStatus, StockStatus
from store.catalog.models import Product
from store.common.cache import cached_copy
from store.common.errors import not_found
from store.coupons import selectors as coupon_selectors
from theme.modules.models import (
    Bundle,
    BundleItem,
    CustomerGroup,
    CustomerGroupMember,
    PointsEntry,
    Promotion,
    Quote,
    QuoteItem,
    RecentlyViewed,
)

# The promotion rules and group discounts are read on every cart pricing: they live in the
# coupon terms' family, whose version token the cart reads in its one get_many of version
# tokens (store.cart.services.pricing.pricing_cache_keys), so they cost no extra round trip.
# A write of either bumps that family (coupon terms are read again too: small and rare).
PROMOTIONS = GROUPS = coupon_selectors.terms_cache
CENT = Decimal("0.01")


def module_active(name: str) -> bool:
    """Whether module `name` is on (settings.THEME_MODULES)."""
    return name in settings.THEME_MODULES


# --- Recently viewed ----------------------------------------------------------------------------


def recently_viewed(*, user, token: str | None) -> list[RecentlyViewed]:
    if user is not None and user.is_authenticated:
        rows = RecentlyViewed.objects.filter(user=user)
    elif token:
        rows = RecentlyViewed.objects.filter(user__isnull=True, session_token=token)
    else:
        return []
    return list(rows.select_related("product")[: settings.THEME_RECENTLY_VIEWED_MAX])


# --- Bundles ------------------------------------------------------------------------------------


def bundles(*, offset: int, limit: int) -> tuple[list[Bundle], int]:
    rows = Bundle.objects.filter(active=True)
    items = BundleItem.objects.select_related("product").order_by("pk")
    page = list(rows.prefetch_related(Prefetch("items", queryset=items))[offset : offset + limit])
    return page, rows.count()


def bundle_prices(bundle: Bundle) -> dict[str, Decimal]:
    """The sum of the items' prices and the bundle's price after its discount."""
    regular = sum(
        ((item.product.price or Decimal(0)) * item.quantity for item in bundle.items.all()),
        Decimal(0),
    )
    price = (regular * (100 - bundle.discount_percent) / 100).quantize(CENT)
    return {"regular_price": regular.quantize(CENT), "price": price, "saving": regular - price}


# --- Points -------------------------------------------------------------------------------------


def points_balance(user) -> int:
    return PointsEntry.objects.filter(user=user).aggregate(total=Sum("points"))["total"] or 0


def points_transactions(user, *, offset: int, limit: int) -> tuple[list[PointsEntry], int]:
    rows = PointsEntry.objects.filter(user=user).select_related("order")
    return list(rows[offset : offset + limit]), rows.count()


# --- Promotions ---------------------------------------------------------------------------------


def _load_promotions() -> tuple[dict, ...]:
    return tuple(
        {
            "id": p.pk,
            "name": p.name,
            "description": p.description,
            "kind": p.kind,
            "value": p.value,
            "min_subtotal": p.min_subtotal,
            "starts_at": p.starts_at,
            "ends_at": p.ends_at,
            "priority": p.priority,
        }
        for p in Promotion.objects.filter(active=True).order_by("priority", "pk")
    )


def active_promotions(now=None) -> list[dict]:
    """The active rules in their dates, by priority (from the cache: no query when warm)."""
    now = now or timezone.now()
    return [
        rule
        for rule in cached_copy(PROMOTIONS, "theme_promotions", _load_promotions)
        if (rule["starts_at"] is None or rule["starts_at"] <= now)
        and (rule["ends_at"] is None or rule["ends_at"] > now)
    ]


def promotions_for(base: Decimal, now=None) -> list[tuple[dict, Decimal]]:
    """The rules that apply to a cart whose discounted subtotal is `base`, each with its cut,
    in priority order; together they never cut more than `base`."""
    out = []
    left = max(base, Decimal(0))
    for rule in active_promotions(now):
        if base <= 0 or base < rule["min_subtotal"] or left <= 0:
            continue
        if rule["kind"] == "percent":
            cut = (base * min(rule["value"], Decimal(100)) / 100).quantize(CENT)
        else:
            cut = rule["value"]
        cut = min(cut, left)
        if cut > 0:
            out.append((rule, cut))
            left -= cut
    return out


# --- Quotes -------------------------------------------------------------------------------------


def quotes(*, offset: int, limit: int, status: str | None = None) -> tuple[list[Quote], int]:
    rows = Quote.objects.all()
    if status:
        rows = rows.filter(status=status)
    items = Prefetch("items", queryset=QuoteItem.objects.select_related("product"))
    return list(rows.prefetch_related(items)[offset : offset + limit]), rows.count()


# --- Product names and labels -------------------------------------------------------------------


def product_names(ids: list[int]) -> dict[int, str]:
    rows = Product.objects.filter(pk__in=ids, status=ProductStatus.ACTIVE).values_list(
        "pk", "title"
    )
    return dict(rows)


def active_product(product_id: int) -> Product:
    product = Product.objects.filter(pk=product_id, status=ProductStatus.ACTIVE).first()
    if product is None:
        raise not_found("product", product_id)
    return product


def product_labels(product: Product, now=None) -> list[dict]:
    now = now or timezone.now()
    labels = []
    if now - product.created_at <= timedelta(days=settings.THEME_LABEL_NEW_DAYS):
        labels.append({"code": "new", "label": "New"})
    if product.on_sale:
        labels.append({"code": "sale", "label": "Sale"})
    if product.stock_status == StockStatus.OUT_OF_STOCK:
        labels.append({"code": "out_of_stock", "label": "Out of stock"})
    elif product.track_inventory:
        threshold = product.low_stock_threshold
        if threshold is None:
            threshold = settings.THEME_LABEL_LOW_STOCK
        if product.stock_quantity <= threshold:
            labels.append({"code": "low_stock", "label": "Low stock"})
    return labels


# --- B2B groups ---------------------------------------------------------------------------------


def groups(*, offset: int, limit: int) -> tuple[list[CustomerGroup], int]:
    rows = CustomerGroup.objects.annotate(member_count=Count("memberships"))
    return list(rows[offset : offset + limit]), CustomerGroup.objects.count()


def group_of(user) -> CustomerGroup | None:
    if user is None or not user.is_authenticated:
        return None
    return CustomerGroup.objects.filter(memberships__user=user).first()


def _load_group_discounts() -> dict[int, Decimal]:
    rows = CustomerGroupMember.objects.filter(group__discount_percent__gt=0).values_list(
        "user_id", "group__discount_percent"
    )
    return dict(rows)


def group_discount(user_id: int) -> Decimal:
    """The percent off of `user_id`'s group (0 without one): one map of every member with a
    discount, from the cache when warm (one query per change of any group otherwise)."""
    return cached_copy(GROUPS, "theme_group_discounts", _load_group_discounts).get(
        user_id, Decimal(0)
    )
