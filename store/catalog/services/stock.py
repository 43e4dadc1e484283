"""The catalog's stock goes through the inventory (store.inventory.services).

Products and variants carry `stock_quantity` and `stock_status`, but only the inventory
writes them: a quantity sent to a catalog write becomes a stock movement in the default
warehouse, a stock status sent for an item without tracked inventory is set there, and both
fields are recomputed from the stock levels in the same transaction.
"""

from __future__ import annotations

from store.catalog.choices import StockStatus
from store.catalog.models import Product, Variant
from store.catalog.rules import derive_stock_status
from store.common.errors import invalid_params
from store.inventory import services as inventory


def stock_write(
    *,
    product: Product,
    variant: Variant | None = None,
    quantity: int | None = None,
    manual_status: str | None = None,
    user=None,
) -> None:
    """Apply a quantity (the item's total for sale) and, for untracked items, a manual status.
    The stock fields are not recomputed here: the caller follows with `stock_refresh`, once."""
    item = variant if variant is not None else product
    reference = inventory.Reference(
        type="variant" if variant is not None else "product",
        id=str(item.pk),
        actor=user,
        note="Set in the catalog",
    )
    variant_id = variant.pk if variant is not None else None
    if quantity is not None:
        inventory.stock_set(
            product_id=product.pk,
            variant_id=variant_id,
            quantity=quantity,
            reference=reference,
            refresh=False,
        )
    if manual_status and not item.track_inventory and manual_status != item.stock_status:
        inventory.stock_status_set(
            product_id=product.pk, variant_id=variant_id, status=manual_status, refresh=False
        )


def stock_initial(item: Product | Variant, manual_status: str | None = None) -> None:
    """The stock fields of an item about to be created without a quantity: it has no stock
    levels yet (nor, a product, variants), so they are what `stock_refresh` would compute, set
    on the unsaved instance with no query. A manual status is refused as the inventory's
    `stock_status_set` refuses it."""
    if manual_status and manual_status not in StockStatus.values:
        raise invalid_params({"stock_status": [f"Not a stock status: {manual_status!r}."]})
    item.stock_quantity = 0
    item.stock_status = derive_stock_status(
        track=item.track_inventory,
        quantity=0,
        backorders=item.allow_backorders,
        manual=manual_status or item.stock_status,
    )


def stock_refresh(*, product: Product, variant: Variant | None = None) -> None:
    """Recompute the stock fields of a product and its variants; update the given instances."""
    refreshed = inventory.stock_fields_refresh(product_ids=[product.pk])
    if product.pk in refreshed.products:
        product.stock_quantity, product.stock_status = refreshed.products[product.pk]
    if variant is not None and variant.pk in refreshed.variants:
        variant.stock_quantity, variant.stock_status = refreshed.variants[variant.pk]
