"""Shipping reads: the zone of an address and the methods available there, with their cost
and tax (`shipping_for`: the one calculation the cart and POST /shipping/calculate share), and
the staff's reads of zones, methods, countries and counts."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import cache

import pycountry
from django.db.models import Count, Prefetch, Q
from django.db.models.signals import post_delete, post_save
from django.utils import timezone
from django_countries import countries as all_countries

from store.catalog.choices import ProductStatus, ProductType
from store.catalog.models import Product, Variant
from store.common.cache import VersionedCache, cached_copy
from store.common.errors import not_found, rule_broken
from store.common.locations import Location, normalise_postcode, postcode_matches
from store.common.money import to_cents
from store.common.pagination import Page, paginate
from store.coupons import selectors as coupon_selectors
from store.coupons.rules import check_active
from store.orders.models import Order
from store.settings import selectors as store_settings
from store.shipping.calculation import Package, method_cost, package_of
from store.shipping.models import (
    LocationType,
    MethodType,
    ShippingMethod,
    ShippingZone,
    ShippingZoneLocation,
)
from store.tax import selectors as tax_selectors
from store.tax.calculation import tax_cents


@dataclass(frozen=True)
class Quote:
    method: ShippingMethod
    cost: int  # cents, as entered (with or without tax, like product prices)
    tax: int = 0  # cents, the tax on `cost` (shipping_for)
    rates: tuple = ()  # the tax rates `tax` was reckoned with


@dataclass(frozen=True)
class Shipping:
    """What shipping a package to a location costs: the zone and each available method."""

    zone: ShippingZone | None
    quotes: list[Quote]  # the cost charged (nothing with a free-shipping coupon) and its tax
    rates: tuple  # the tax rates of shipping at the tax location


table = VersionedCache("shipping_zones")


def zones() -> list[ShippingZone]:
    """Every zone in matching order, with its locations and enabled methods.

    Kept whole in the cache (three queries to load); any saved or deleted zone, location or
    method drops it (signals), on the spot and again at commit.
    """
    return cached_copy(table, "all", _load_zones)


def invalidate(*args, **kwargs) -> None:
    table.bump()


def connect_invalidation() -> None:
    for model in (ShippingZone, ShippingZoneLocation, ShippingMethod):
        uid = f"store.shipping.zones.{model.__name__}"
        post_save.connect(invalidate, sender=model, dispatch_uid=f"{uid}.save")
        post_delete.connect(invalidate, sender=model, dispatch_uid=f"{uid}.delete")


def _load_zones() -> list[ShippingZone]:
    return list(
        ShippingZone.objects.prefetch_related(
            "locations",
            Prefetch(
                "methods",
                queryset=ShippingMethod.objects.filter(enabled=True).order_by("sort_order", "id"),
            ),
        ).order_by("is_fallback", "sort_order", "id")
    )


def zone_matches(zone: ShippingZone, location: Location) -> bool:
    if zone.is_fallback:
        return True
    locations = list(zone.locations.all())
    if not locations:
        return False
    areas = [loc for loc in locations if loc.type != LocationType.POSTCODE]
    postcodes = [loc.code for loc in locations if loc.type == LocationType.POSTCODE]
    if areas:
        # Zones keep region codes upper-case; an address's free-text region (where the
        # country has no ISO 3166-2 subdivisions) may not be.
        region = f"{location.country}:{location.region.upper()}" if location.region else None
        if not any(
            (a.type == LocationType.COUNTRY and a.code == location.country)
            or (a.type == LocationType.REGION and region is not None and a.code == region)
            for a in areas
        ):
            return False
    if postcodes:
        code = normalise_postcode(location.postcode)
        if not any(postcode_matches(pattern, code) for pattern in postcodes):
            return False
    return True


def zone_for(location: Location, all_zones: list[ShippingZone] | None = None):
    """The first zone, in order, that matches `location` (the fallback last), or None."""
    for zone in zones() if all_zones is None else all_zones:
        if zone_matches(zone, location):
            return zone
    return None


def quotes(zone: ShippingZone | None, package: Package) -> list[Quote]:
    """The zone's methods available for `package`, in order, each with its cost."""
    if zone is None:
        return []
    out = []
    for method in zone.methods.all():
        cost = method_cost(method, package)
        if cost is not None:
            out.append(Quote(method=method, cost=cost))
    return out


def shipping_for(
    location: Location,
    package: Package,
    *,
    tax_location: Location,
    config: dict,
    reverse_charge: bool = False,
) -> Shipping:
    """The zone of `location` and its methods available for `package`, each with the cost
    charged (a free-shipping coupon in the package makes every one cost nothing) and its tax
    at `tax_location` (store settings `config`: tax.shipping_taxable, tax.shipping_tax_class,
    tax.prices_include_tax; `reverse_charge`: an EU business buyer pays none). The cart's
    totals and methods and POST /shipping/calculate all come from here."""
    zone = zone_for(location)
    found = quotes(zone, package)
    tax = config["tax"]
    rates: tuple = ()
    if tax["shipping_taxable"] and found:
        shipping_class = tax["shipping_tax_class"]
        rates = tax_selectors.rates_for(
            tax_location,
            {shipping_class},
            shipping=True,
            config=config,
            reverse_charge=reverse_charge,
        )[shipping_class]
    inclusive = tax["prices_include_tax"]
    out = []
    for quote in found:
        cost = 0 if package.free_shipping_coupon else quote.cost
        applied = rates if quote.method.taxable else ()
        out.append(
            Quote(
                method=quote.method,
                cost=cost,
                tax=tax_cents(cost, applied, inclusive=inclusive),
                rates=applied,
            )
        )
    return Shipping(zone=zone, quotes=out, rates=rates)


def method_exists(method_id: int) -> bool:
    return ShippingMethod.objects.filter(pk=method_id).exists()


# --- Staff reads ----------------------------------------------------------------------------


def _zones_query():
    return ShippingZone.objects.prefetch_related(
        "locations",
        Prefetch("methods", queryset=ShippingMethod.objects.order_by("sort_order", "id")),
    ).order_by("is_fallback", "sort_order", "id")


def zone_page(*, page: int, per_page: int) -> Page:
    """Zones in matching order (the fallback last), with their regions and methods: four
    queries whatever the page holds."""
    return paginate(_zones_query(), page=page, per_page=per_page)


def zone_get(zone_id: int) -> ShippingZone:
    zone = _zones_query().filter(pk=zone_id).first()
    if zone is None:
        raise not_found("shipping_zone", zone_id)
    return zone


def zone_get_id(zone_id: int) -> int:
    if not ShippingZone.objects.filter(pk=zone_id).exists():
        raise not_found("shipping_zone", zone_id)
    return zone_id


def all_zones_ordered() -> list[ShippingZone]:
    return list(_zones_query())


def method_page(zone_id: int, *, page: int, per_page: int) -> Page:
    zone_get_id(zone_id)
    methods = ShippingMethod.objects.filter(zone_id=zone_id).order_by("sort_order", "id")
    return paginate(methods, page=page, per_page=per_page)


def method_get(method_id: int) -> ShippingMethod:
    method = ShippingMethod.objects.filter(pk=method_id).first()
    if method is None:
        raise not_found("shipping_method", method_id)
    return method


def _method_id_of(reference: str) -> int | None:
    """The method id of an order's `shipping_method` ("flat_rate:12")."""
    _kind, _, tail = reference.rpartition(":")
    return int(tail) if tail.isascii() and tail.isdigit() and len(tail) < 19 else None


def shipping_stats() -> dict:
    """Zones, methods by type (enabled or not) and how many orders used each method: three
    queries."""
    zone_counts = ShippingZone.objects.aggregate(
        total=Count("id", distinct=True),
        fallback=Count("id", filter=Q(is_fallback=True), distinct=True),
        empty=Count("id", filter=Q(is_fallback=False, locations__isnull=True), distinct=True),
    )
    by_type = {kind.value: {"total": 0, "enabled": 0, "orders": 0} for kind in MethodType}
    methods: dict[int, dict] = {}
    for row in ShippingMethod.objects.values("id", "type", "title", "enabled", "zone_id"):
        by_type[row["type"]]["total"] += 1
        by_type[row["type"]]["enabled"] += int(row["enabled"])
        methods[row["id"]] = row
    usage: dict[int, dict] = {}
    orders = 0
    rows = (
        Order.objects.exclude(shipping_method="")
        .values("shipping_method")
        .annotate(count=Count("id"))
        .order_by()
    )
    for row in rows:
        orders += row["count"]
        method_id = _method_id_of(row["shipping_method"])
        kind = row["shipping_method"].rpartition(":")[0]
        if kind in by_type:
            by_type[kind]["orders"] += row["count"]
        if method_id is None:
            continue
        entry = usage.setdefault(method_id, {"method_id": method_id, "type": kind, "orders": 0})
        entry["orders"] += row["count"]
    by_method = []
    for method_id, entry in usage.items():
        method = methods.get(method_id)
        by_method.append(
            {
                **entry,
                "title": method["title"] if method else None,
                "zone_id": method["zone_id"] if method else None,
                "exists": method is not None,
            }
        )
    by_method.sort(key=lambda e: (-e["orders"], e["method_id"]))
    enabled = sum(entry["enabled"] for entry in by_type.values())
    return {
        "zones": {
            "total": zone_counts["total"],
            "fallback": bool(zone_counts["fallback"]),
            "without_regions": zone_counts["empty"],
        },
        "methods": {
            "total": len(methods),
            "enabled": enabled,
            "disabled": len(methods) - enabled,
            "by_type": by_type,
        },
        "orders": {"with_shipping": orders, "by_method": by_method[:100]},
    }


# --- Countries ------------------------------------------------------------------------------


@cache
def subdivision_list(country: str) -> tuple[dict, ...]:
    """The country's ISO 3166-2 subdivisions (pycountry), as zones name them (GR:I)."""
    found = pycountry.subdivisions.get(country_code=country) or []
    out = []
    for sub in sorted(found, key=lambda s: s.code):
        code = sub.code.split("-", 1)[1].upper()
        parent = (sub.parent_code or "").split("-", 1)[-1].upper() or None
        out.append(
            {
                "code": code,
                "region": f"{country}:{code}",
                "name": sub.name,
                "type": sub.type,
                "parent": parent,
            }
        )
    return tuple(out)


def country_name(code: str) -> str:
    return str(all_countries.name(code)) or code


def subdivision_name(country: str, code: str) -> str | None:
    return next((s["name"] for s in subdivision_list(country) if s["code"] == code), None)


def country_list(*, codes: list[str] | None, subdivisions: bool) -> list[dict]:
    """ISO 3166-1 countries (django-countries), each with its subdivision count and, when
    asked, its subdivisions (pycountry)."""
    wanted = set(codes) if codes else None
    out = []
    for code, name in all_countries:
        if wanted is not None and code not in wanted:
            continue
        subs = subdivision_list(code)
        out.append(
            {
                "code": code,
                "name": str(name),
                "subdivision_count": len(subs),
                "subdivisions": [dict(s) for s in subs] if subdivisions else None,
            }
        )
    return out


# --- A calculation without a cart (POST /shipping/calculate) -------------------------------


@dataclass(frozen=True)
class Calculation:
    location: Location
    package: Package
    shipping: Shipping
    config: dict


def _line_values(lines: list[dict]) -> list[tuple[int, int, Decimal]]:
    """Each line as (total cents as entered, quantity, unit weight), read as the cart reads
    them (the variant's price and weight, else the product's); refused as the cart refuses
    the product. Two queries."""
    product_ids = {line["product_id"] for line in lines}
    variant_ids = {line["variant_id"] for line in lines if line.get("variant_id")}
    products = Product.objects.filter(pk__in=product_ids, status=ProductStatus.ACTIVE).in_bulk()
    variants = Variant.objects.filter(pk__in=variant_ids).in_bulk() if variant_ids else {}
    out = []
    for line in lines:
        product = products.get(line["product_id"])
        if product is None:
            raise not_found("product", line["product_id"])
        variant_id = line.get("variant_id")
        variant = variants.get(variant_id) if variant_id else None
        if product.type == ProductType.VARIABLE:
            if not variant_id:
                raise rule_broken(
                    f"{product.title} comes in variants: send the variant_id of the one you want.",
                    code="variant_required",
                )
            if variant is None or variant.product_id != product.pk or not variant.enabled:
                raise not_found("variant", variant_id)
        elif variant_id:
            raise rule_broken(
                f"{product.title} has no variants: leave variant_id out.",
                code="not_variable_product",
            )
        price = variant.price if variant is not None else product.price
        if price is None:
            raise rule_broken(f"{product.title} has no price yet.", code="product_not_purchasable")
        weight = variant.weight if variant is not None and variant.weight is not None else None
        weight = weight if weight is not None else product.weight
        quantity = line["quantity"]
        out.append((to_cents(price) * quantity, quantity, weight or Decimal(0)))
    return out


def _free_shipping_coupon(code: str | None) -> bool:
    if not code:
        return False
    coupon = coupon_selectors.coupon_by_code(code)
    if coupon is None:
        raise rule_broken(f"No coupon {code.strip()[:100]!r}.", code="coupon_not_found")
    check_active(coupon, now=timezone.now())
    return coupon.free_shipping


def calculate(*, address: dict, lines: list[dict], coupon: str | None = None) -> Calculation:
    """What shipping `lines` to `address` costs: the same calculation as the cart's
    (shipping_for), for an address (country, state, postcode as the cart stores them) and
    lines ({product_id, variant_id, quantity}) without a cart. A coupon counts for its free
    shipping only (its discount is the cart's to reckon)."""
    config = store_settings.get_all()
    location = Location(address["country"], address.get("state", ""), address.get("postcode", ""))
    package = package_of(_line_values(lines), free_shipping_coupon=_free_shipping_coupon(coupon))
    tax_location = tax_selectors.tax_location(
        country=location.country,
        region=location.region,
        postcode=location.postcode,
        config=config,
    )
    shipping = shipping_for(location, package, tax_location=tax_location, config=config)
    return Calculation(location=location, package=package, shipping=shipping, config=config)
