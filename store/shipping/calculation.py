"""What a shipping method costs for a cart (pure functions, no database).

- flat rate: `cost` plus `cost_per_item` for each item (quantity) in the cart;
- free shipping: costs nothing, available when its requirement is met (`requires`: nothing, a
  minimum amount of the items after discounts, a free-shipping coupon, either or both);
- local pickup: `cost` (usually nothing);
- by weight: `cost` plus the cost of the first bracket whose `max_weight` holds the cart's
  weight; a cart heavier than the last bracket cannot use the method.

A free-shipping coupon makes whichever method is chosen cost nothing (the cart applies that).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from store.common.money import parse_money, to_cents
from store.shipping.models import FreeShippingRequires, MethodType


@dataclass(frozen=True)
class Package:
    items_total: int  # cents, the items after discounts, as prices are entered
    item_count: int  # the sum of the quantities
    weight: Decimal  # in the store's weight unit (general.weight_unit)
    free_shipping_coupon: bool = False


def package_of(
    lines: Iterable[tuple[int, int, Decimal]], *, discount: int = 0, free_shipping_coupon=False
) -> Package:
    """The package of some lines, each (total in cents as entered, quantity, unit weight);
    `discount`: the coupons' cut off the items (cents). The cart and POST /shipping/calculate
    both weigh and count with this."""
    lines = list(lines)
    return Package(
        items_total=sum(total for total, _quantity, _weight in lines) - discount,
        item_count=sum(quantity for _total, quantity, _weight in lines),
        weight=sum((weight * quantity for _total, quantity, weight in lines), Decimal(0)),
        free_shipping_coupon=free_shipping_coupon,
    )


def weight_brackets(rates) -> list[tuple[Decimal, int]]:
    """The brackets of a by-weight method as (max_weight, cost in cents), by rising weight.

    ValueError when they are malformed (the admin and the services check with this).
    """
    if not isinstance(rates, list) or not rates:
        raise ValueError('Give at least one bracket: [{"max_weight": "1", "cost": "4.00"}].')
    out = []
    for index, entry in enumerate(rates):
        if not isinstance(entry, dict) or set(entry) != {"max_weight", "cost"}:
            raise ValueError(f"Bracket {index + 1}: give exactly max_weight and cost.")
        try:
            weight = Decimal(str(entry["max_weight"]))
        except (InvalidOperation, ValueError):
            raise ValueError(f"Bracket {index + 1}: max_weight is a number.") from None
        if not weight.is_finite() or weight <= 0:
            raise ValueError(f"Bracket {index + 1}: max_weight is above 0.")
        try:
            cost = parse_money(entry["cost"])
        except ValueError as exc:
            raise ValueError(f"Bracket {index + 1}: the cost {exc}.") from None
        if out and weight <= out[-1][0]:
            raise ValueError("Brackets go by rising max_weight.")
        out.append((weight, to_cents(cost)))
    return out


def free_shipping_available(method, package: Package) -> bool:
    minimum = method.min_amount
    reached = minimum is not None and package.items_total >= to_cents(minimum)
    coupon = package.free_shipping_coupon
    requires = method.requires
    if requires == FreeShippingRequires.MIN_AMOUNT:
        return reached
    if requires == FreeShippingRequires.COUPON:
        return coupon
    if requires == FreeShippingRequires.EITHER:
        return reached or coupon
    if requires == FreeShippingRequires.BOTH:
        return reached and coupon
    return True


def method_cost(method, package: Package) -> int | None:
    """The method's cost in cents for `package`, or None when the method is not available."""
    if not method.enabled:
        return None
    kind = method.type
    if kind == MethodType.FLAT_RATE:
        return to_cents(method.cost) + to_cents(method.cost_per_item) * package.item_count
    if kind == MethodType.FREE_SHIPPING:
        return 0 if free_shipping_available(method, package) else None
    if kind == MethodType.LOCAL_PICKUP:
        return to_cents(method.cost)
    if kind == MethodType.WEIGHT_BASED:
        try:
            brackets = weight_brackets(method.weight_rates)
        except ValueError:
            return None
        for max_weight, cost in brackets:
            if package.weight <= max_weight:
                return to_cents(method.cost) + cost
        return None
    return None
