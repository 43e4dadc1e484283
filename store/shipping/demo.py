"""Demo shipping zones and methods for `manage.py seed_demo` (idempotent by zone name)."""

from __future__ import annotations

from decimal import Decimal

from store.shipping.models import ShippingMethod, ShippingZone, ShippingZoneLocation
from store.tax.selectors import eu_vat_table

# The other EU member states, from the EU VAT data the project ships.
EU = [e["country"] for e in eu_vat_table()["countries"] if e["country"] != "GR"]

ZONES = [
    (
        "Attica",
        1,
        False,
        [("region", "GR:I")],
        [
            ("flat_rate", "Courier (next day)", {"cost": Decimal("2.50")}),
            (
                "free_shipping",
                "Free delivery",
                {"min_amount": Decimal("30"), "requires": "min_amount"},
            ),
            ("local_pickup", "Pick up at our Athens shop", {}),
        ],
    ),
    (
        "Greece",
        2,
        False,
        [("country", "GR")],
        [
            ("flat_rate", "Courier", {"cost": Decimal("3.50")}),
            ("free_shipping", "Free delivery", {"min_amount": Decimal("50"), "requires": "either"}),
        ],
    ),
    (
        "European Union",
        3,
        False,
        [("country", code) for code in EU],
        [
            (
                "weight_based",
                "Parcel by weight",
                {
                    "weight_rates": [
                        {"max_weight": "1", "cost": "7.00"},
                        {"max_weight": "5", "cost": "12.00"},
                        {"max_weight": "20", "cost": "25.00"},
                    ]
                },
            ),
        ],
    ),
    (
        "Rest of the world",
        0,
        True,
        [],
        [("flat_rate", "International courier", {"cost": Decimal("25.00")})],
    ),
]


def seed() -> list[str]:
    lines = []
    for name, order, fallback, locations, methods in ZONES:
        zone, created = ShippingZone.objects.get_or_create(
            name=name, defaults={"sort_order": order, "is_fallback": fallback}
        )
        if created:
            for kind, code in locations:
                ShippingZoneLocation.objects.create(zone=zone, type=kind, code=code)
            for position, (kind, title, fields) in enumerate(methods):
                ShippingMethod.objects.create(
                    zone=zone, type=kind, title=title, sort_order=position, **fields
                )
        titles = ", ".join(zone.methods.values_list("title", flat=True))
        lines.append(f"  Zone {zone.name}: {titles}")
    return lines
