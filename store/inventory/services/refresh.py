"""The derived stock fields: `stock_quantity` and `stock_status` of products and variants,
recomputed from the levels before each stock change's transaction ends. A tracked item whose
quantity falls to its low-stock threshold publishes `stock.low`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Sum

from common.compiled import CaseUpdate, CompiledByCount
from common.events import STORE as STORE_EVENT
from common.events import DomainEvent, publish_many
from store.catalog import cache as catalog_cache
from store.catalog.cache import invalidate as invalidate_catalog
from store.catalog.choices import ProductStatus, ProductType
from store.catalog.models import Product, Variant
from store.catalog.rules import combine_stock_status, derive_stock_status
from store.inventory.models import StockLevel
from store.settings import selectors as store_settings


@dataclass
class Refreshed:
    """The stock fields after a refresh: {product id: (quantity, status)}, the same for variants."""

    products: dict[int, tuple[int, str]] = field(default_factory=dict)
    variants: dict[int, tuple[int, str]] = field(default_factory=dict)


STOCK_COLUMNS = ("pk", "track_inventory", "allow_backorders", "stock_status", "stock_quantity")
PRODUCT_COLUMNS = (*STOCK_COLUMNS, "type", "status", "sku", "title", "low_stock_threshold")
# Read by every stock change: compiled once per number of products (common.compiled).
_TOTALS = CompiledByCount(
    lambda ids: (
        StockLevel.objects.filter(product_id__in=ids, warehouse__is_active=True)
        .values("product_id", "variant_id")
        .annotate(total=Sum("quantity"))
        .order_by()
        .values_list("product_id", "variant_id", "total")
    )
)
_PRODUCTS = CompiledByCount(
    lambda ids: Product.objects.filter(pk__in=ids).values_list(*PRODUCT_COLUMNS)
)

# The derived fields' UPDATE (bulk_update's CASE), compiled per number of rows.
_PRODUCT_FIELDS = CaseUpdate(Product, ["stock_quantity", "stock_status"])
_VARIANT_FIELDS = CaseUpdate(Variant, ["stock_quantity", "stock_status"])


def stock_fields_refresh(*, product_ids: Iterable[int]) -> Refreshed:
    """Recompute `stock_quantity` and `stock_status` of products and their variants.

    Quantity: the sum of the item's levels in active warehouses. Status: with tracked
    inventory, in stock above zero, else on backorder when allowed, else out of stock; without
    tracking, the status set by hand. A variable product with enabled variants takes the best
    status of those variants and, when any of them is tracked, the sum of their quantities
    (backordered ones count as zero).
    """
    ids = sorted(set(product_ids))
    out = Refreshed()
    if not ids:
        return out
    totals = {(product, variant): total for product, variant, total in _TOTALS.rows(ids)}
    variants_of: dict[int, list[tuple[bool, bool, int, str]]] = defaultdict(list)
    changed: dict[int, set[str]] = defaultdict(set)
    variant_rows: dict[int, tuple[int, str]] = {}
    product_rows: dict[int, tuple[int, str]] = {}
    low = _LowStock()
    products = [dict(zip(PRODUCT_COLUMNS, row, strict=True)) for row in _PRODUCTS.rows(ids)]
    # Only variable products have variants: a refresh of simple ones reads no variant.
    variable = [row["pk"] for row in products if row["type"] == ProductType.VARIABLE]
    variant_rows_read = (
        Variant.objects.filter(product_id__in=variable).values(
            *STOCK_COLUMNS, "product_id", "enabled", "sku", "title"
        )
        if variable
        else []
    )
    for row in variant_rows_read:
        quantity = totals.get((row["product_id"], row["pk"]), 0)
        if row["enabled"]:
            low.note(row, quantity, product_id=row["product_id"], variant_id=row["pk"])
        status = derive_stock_status(
            track=row["track_inventory"],
            quantity=quantity,
            backorders=row["allow_backorders"],
            manual=row["stock_status"],
        )
        if (quantity, status) != (row["stock_quantity"], row["stock_status"]):
            variant_rows[row["pk"]] = (quantity, status)
            _note_change(changed, row["product_id"], row, quantity, status)
        out.variants[row["pk"]] = (quantity, status)
        if row["enabled"]:
            variants_of[row["product_id"]].append(
                (row["track_inventory"], row["allow_backorders"], quantity, status)
            )
    for row in products:
        low.products[row["pk"]] = row
        quantity = totals.get((row["pk"], None), 0)
        if row["type"] == ProductType.SIMPLE:
            low.note(row, quantity, product_id=row["pk"], variant_id=None)
        status = derive_stock_status(
            track=row["track_inventory"],
            quantity=quantity,
            backorders=row["allow_backorders"],
            manual=row["stock_status"],
        )
        enabled = variants_of.get(row["pk"], [])
        if row["type"] == ProductType.VARIABLE and enabled:
            status = combine_stock_status([v[3] for v in enabled])
            if any(v[0] for v in enabled):
                quantity = sum(max(v[2], 0) for v in enabled if v[0])
        if (quantity, status) != (row["stock_quantity"], row["stock_status"]):
            product_rows[row["pk"]] = (quantity, status)
            _note_change(changed, row["pk"], row, quantity, status)
        out.products[row["pk"]] = (quantity, status)
    # one UPDATE (CASE per row) per model, whatever the number of items
    _VARIANT_FIELDS.execute(variant_rows)
    _PRODUCT_FIELDS.execute(product_rows)
    # Only the changed products' cached bodies, and the lists that depend on what changed.
    # (A dimension's token is the lists', not a product's: one bump for all of them.)
    if changed:
        invalidate_catalog(list(changed), set().union(*changed.values()))
    low.publish()
    return out


class _LowStock:
    """stock.low: a tracked item (a simple product, an enabled variant, not
    archived) whose quantity for sale falls from above its low-stock threshold to at or below
    it (the product's threshold, else the store's inventory setting: the dashboard's notion).
    Published once per crossing, in the refresh's transaction; nothing when it only stays low."""

    def __init__(self) -> None:
        self.candidates: list[tuple[dict, int, int, int | None]] = []
        self.products: dict[int, dict] = {}

    def note(self, row: dict, quantity: int, *, product_id: int, variant_id: int | None) -> None:
        if row["track_inventory"] and quantity < row["stock_quantity"]:
            self.candidates.append((row, quantity, product_id, variant_id))

    def publish(self) -> None:
        if not self.candidates:
            return
        default = None
        batch = []
        for row, quantity, product_id, variant_id in self.candidates:
            product = self.products.get(product_id)
            if product is None or product["status"] == ProductStatus.ARCHIVED:
                continue
            threshold = product["low_stock_threshold"]
            if threshold is None:
                if default is None:
                    default = store_settings.get_value("inventory", "low_stock_threshold")
                threshold = default
            if not quantity <= threshold < row["stock_quantity"]:
                continue
            title = product["title"]
            if variant_id is not None and row["title"]:
                title = f"{title} - {row['title']}"
            batch.append(
                DomainEvent(
                    account=None,
                    event="stock.low",
                    scope=STORE_EVENT,
                    data={
                        "product_id": product_id,
                        "variant_id": variant_id,
                        "sku": row["sku"],
                        "title": title,
                        "stock_quantity": quantity,
                        "previous_quantity": row["stock_quantity"],
                        "low_stock_threshold": threshold,
                    },
                )
            )
        publish_many(batch)


def _note_change(changed, product_id: int, row: dict, quantity: int, status: str) -> None:
    dimensions = changed[product_id]
    if quantity != row["stock_quantity"]:
        dimensions.add(catalog_cache.STOCK_QUANTITY)
    if status != row["stock_status"]:
        dimensions.add(catalog_cache.STOCK)
