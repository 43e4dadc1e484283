"""Order lines from what a caller asks for: product, variant, quantity, price, tax, options.

Title, SKU, attributes and price are snapshots of the catalog at the time (a price sent by
the caller, e.g. the cart's, wins over the catalog's).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from store.catalog.choices import ProductType
from store.catalog.models import Product, Variant, VariantAttribute
from store.common.money import money
from store.common.problems import Problems
from store.orders.models import OrderItem


@dataclass
class Line:
    product: Product
    variant: Variant | None
    title: str
    sku: str
    attributes: list[dict]
    options: dict
    quantity: int
    unit_price: Decimal
    tax: Decimal
    # An exact line subtotal from a priced cart (prices entered with tax: the line's amount
    # without tax, which price x quantity cannot always give to the cent).
    subtotal: Decimal | None = None

    def item(self, order) -> OrderItem:
        tax = taxed(order, self.tax)
        subtotal, total = amounts(self.unit_price, self.quantity, tax)
        if self.subtotal is not None:
            subtotal, total = self.subtotal, money(self.subtotal + tax)
        return OrderItem(
            order=order,
            product=self.product,
            variant=self.variant,
            title=self.title,
            sku=self.sku,
            attributes=self.attributes,
            options=self.options,
            quantity=self.quantity,
            unit_price=self.unit_price,
            subtotal=subtotal,
            tax=tax,
            total=total,
        )


def taxed(order, tax) -> Decimal:
    """A tax as the order carries it: none under the EU B2B reverse charge (the order's
    `reverse_charge`, decided at its creation by store.tax's rule, as the cart's)."""
    return Decimal("0.00") if order.reverse_charge else money(tax or 0)


def amounts(unit_price: Decimal, quantity: int, tax: Decimal) -> tuple[Decimal, Decimal]:
    """(subtotal, total) of a line."""
    subtotal = money(unit_price * quantity)
    return subtotal, money(subtotal + tax)


def resolve_lines(entries: list[dict], problems: Problems, *, prefix: str = "items.") -> list[Line]:
    """Look up every product and variant (three queries in all); name each bad entry.

    `prefix` names the parameters in refusals: "items.0." for create, "" for one added item.
    """
    product_ids = {entry["product_id"] for entry in entries}
    variant_ids = {entry["variant_id"] for entry in entries if entry.get("variant_id")}
    products = {p.pk: p for p in Product.objects.filter(pk__in=product_ids)}
    variants = {v.pk: v for v in Variant.objects.filter(pk__in=variant_ids)}
    with_variants = set(
        Variant.objects.filter(product_id__in=product_ids).values_list("product_id", flat=True)
    )
    attributes: dict[int, list[dict]] = {}
    for link in VariantAttribute.objects.filter(variant_id__in=variant_ids).select_related(
        "attribute", "term"
    ):
        attributes.setdefault(link.variant_id, []).append(
            {"attribute": link.attribute.name, "value": link.term.name}
        )
    lines = []
    for index, entry in enumerate(entries):
        at = f"{prefix}{index}." if prefix else ""
        product = products.get(entry["product_id"])
        if product is None:
            problems.add(f"{at}product_id", f"No product with id {entry['product_id']}.")
            continue
        variant = None
        if entry.get("variant_id"):
            variant = variants.get(entry["variant_id"])
            if variant is None or variant.product_id != product.pk:
                problems.add(
                    f"{at}variant_id",
                    f"No variant with id {entry['variant_id']} of product {product.pk}.",
                )
                continue
        elif product.type == ProductType.VARIABLE and product.pk in with_variants:
            problems.add(f"{at}variant_id", "Choose a variant of this variable product.")
            continue
        price = entry.get("price")
        if price is None:
            price = variant.price if variant is not None else product.price
        if price is None:
            problems.add(f"{at}price", "This product has no price; send one.")
            continue
        lines.append(
            Line(
                product=product,
                variant=variant,
                title=(entry.get("title") or (variant.title if variant else "") or product.title)[
                    :255
                ],
                sku=(entry.get("sku") or (variant.sku if variant else "") or product.sku)[:64],
                attributes=attributes.get(variant.pk, []) if variant else [],
                options=entry.get("options") or {},
                quantity=entry.get("quantity", 1),
                unit_price=money(price),
                tax=money(entry.get("tax") or 0),
                subtotal=money(entry["subtotal"]) if entry.get("subtotal") is not None else None,
            )
        )
    return lines
