from decimal import Decimal

from store.shipping.models import ShippingMethod, ShippingZone, ShippingZoneLocation


def make_zone(name="Zone", *, countries=(), regions=(), postcodes=(), order=0, fallback=False):
    zone = ShippingZone.objects.create(name=name, sort_order=order, is_fallback=fallback)
    for kind, codes in (("country", countries), ("region", regions), ("postcode", postcodes)):
        for code in codes:
            ShippingZoneLocation.objects.create(zone=zone, type=kind, code=code)
    return zone


def make_method(zone, type="flat_rate", title=None, **fields) -> ShippingMethod:
    for key in ("cost", "cost_per_item", "min_amount"):
        if isinstance(fields.get(key), (int, float, str)):
            fields[key] = Decimal(str(fields[key]))
    fields.setdefault("sort_order", ShippingMethod.objects.filter(zone=zone).count())
    return ShippingMethod.objects.create(
        zone=zone, type=type, title=title or type.replace("_", " ").title(), **fields
    )
