"""Shipping reads: the zone of an address and the methods available there, with their cost."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch
from django.db.models.signals import post_delete, post_save

from store.common.cache import VersionedCache, cached_copy
from store.common.locations import Location, normalise_postcode, postcode_matches
from store.shipping.calculation import Package, method_cost
from store.shipping.models import (
    LocationType,
    ShippingMethod,
    ShippingZone,
    ShippingZoneLocation,
)


@dataclass(frozen=True)
class Quote:
    method: ShippingMethod
    cost: int  # cents, as entered (with or without tax, like product prices)


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
        region = f"{location.country}:{location.region}" if location.region else None
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


def method_exists(method_id: int) -> bool:
    return ShippingMethod.objects.filter(pk=method_id).exists()
