"""Demo shipping zones and methods for `manage.py seed_demo` (idempotent by zone name),
written through the services (the routes' rules)."""

from __future__ import annotations

from store.shipping import services
from store.shipping.models import ShippingZone
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
            ("flat_rate", "Courier (next day)", {"cost": "2.50"}),
            (
                "free_shipping",
                "Free delivery",
                {"min_amount": "30", "requires": "min_amount"},
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
            ("flat_rate", "Courier", {"cost": "3.50"}),
            ("free_shipping", "Free delivery", {"min_amount": "50", "requires": "either"}),
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
        [("flat_rate", "International courier", {"cost": "25.00"})],
    ),
]


def seed() -> list[str]:
    lines = []
    for name, order, fallback, locations, methods in ZONES:
        zone = ShippingZone.objects.filter(name=name).first()
        if zone is None:
            regions = [{"type": kind, "code": code} for kind, code in locations]
            zone = services.zone_create(
                fields={
                    "name": name,
                    "sort_order": order,
                    "is_fallback": fallback,
                    "regions": regions,
                }
            )
            for position, (kind, title, settings) in enumerate(methods):
                services.method_create(
                    zone_id=zone.pk,
                    fields={
                        "type": kind,
                        "title": title,
                        "sort_order": position,
                        "settings": settings,
                    },
                )
        titles = ", ".join(zone.methods.values_list("title", flat=True))
        lines.append(f"  Zone {zone.name}: {titles}")
    return lines
