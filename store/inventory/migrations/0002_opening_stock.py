"""The default warehouse, and the stock products and variants had before the ledger existed.

Each tracked item with a stock quantity gets a level in the default warehouse and an
`initial_stock` movement, so the ledger accounts for every unit from the start.
"""

from django.db import migrations


def opening_stock(apps, schema_editor):
    Warehouse = apps.get_model("store_inventory", "Warehouse")
    StockLevel = apps.get_model("store_inventory", "StockLevel")
    StockMovement = apps.get_model("store_inventory", "StockMovement")
    Product = apps.get_model("store_catalog", "Product")
    Variant = apps.get_model("store_catalog", "Variant")
    warehouse = Warehouse.objects.filter(is_default=True).first()
    if warehouse is None:
        warehouse = Warehouse.objects.create(
            name="Main warehouse", code="main", is_default=True, is_active=True
        )
    items = [
        (row["pk"], None, row["sku"], row["stock_quantity"])
        for row in Product.objects.exclude(stock_quantity=0).values("pk", "sku", "stock_quantity")
        if not Variant.objects.filter(product_id=row["pk"], track_inventory=True).exists()
    ]
    items += [
        (row["product_id"], row["pk"], row["sku"], row["stock_quantity"])
        for row in Variant.objects.exclude(stock_quantity=0).values(
            "pk", "product_id", "sku", "stock_quantity"
        )
    ]
    for product_id, variant_id, sku, quantity in items:
        level = StockLevel.objects.create(
            warehouse=warehouse, product_id=product_id, variant_id=variant_id, quantity=quantity
        )
        StockMovement.objects.create(
            level=level,
            warehouse=warehouse,
            product_id=product_id,
            variant_id=variant_id,
            sku=sku,
            quantity=quantity,
            quantity_after=quantity,
            reason="initial_stock",
            reference_type="migration",
            reference_id="store_inventory.0001",
            idempotency_key=f"opening:{product_id}:{variant_id or 0}",
        )


class Migration(migrations.Migration):
    dependencies = [("store_inventory", "0001_initial")]

    operations = [migrations.RunPython(opening_stock, migrations.RunPython.noop)]
