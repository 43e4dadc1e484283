"""Demo data of the ERP's purchasing for `manage.py seed_demo` (idempotent by supplier code),
through the services: a supplier with prices for the demo products and a draft order."""

from __future__ import annotations

from decimal import Decimal

from erp.purchasing import services
from erp.purchasing.models import PurchaseOrder, Supplier
from store.catalog.models import Product

SUPPLIER = {
    "name": "Aegean Textiles S.A.",
    "code": "aegean-textiles",
    "email": "orders@aegean-textiles.example",
    "country": "GR",
    "payment_terms_days": 30,
    "lead_time_days": 5,
}


def seed() -> list[str]:
    supplier = Supplier.objects.filter(code=SUPPLIER["code"]).first()
    if supplier is None:
        supplier = services.supplier_create(fields=dict(SUPPLIER))
    products = list(
        Product.objects.filter(track_inventory=True, type="simple")
        .exclude(regular_price__isnull=True)
        .order_by("pk")[:4]
    )
    priced = set(supplier.prices.values_list("product_id", flat=True))
    for product in products:
        if product.pk not in priced:
            services.supplier_price_create(
                supplier_id=supplier.pk,
                fields={
                    "product_id": product.pk,
                    "variant_id": None,
                    "unit_price": (product.regular_price * Decimal("0.4")).quantize(
                        Decimal("0.01")
                    ),
                    "min_quantity": 1,
                },
            )
    if products and not PurchaseOrder.objects.filter(supplier=supplier).exists():
        services.purchase_order_create(
            fields={
                "supplier_id": supplier.pk,
                "lines": [{"product_id": p.pk, "quantity": 20} for p in products[:2]],
                "notes": "Demo order: send it, then receive it into stock.",
            }
        )
    return [f"ERP purchasing: supplier {supplier.name!r} with {len(products)} prices, a draft PO"]
