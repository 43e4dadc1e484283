"""Property: whatever the sequence of changes, stock is the initial stock minus what the
orders in a non-terminal status hold — and the ledger adds up to it.

Hypothesis draws the initial stock of two items (a simple product and a variant), a few orders
for them, and a random sequence of status moves (allowed or not), bulk moves, deletions and
item changes. After every step, whether it was accepted or refused, the invariant must hold.
"""

from __future__ import annotations

import itertools

import pytest
from django.db.models import Sum
from hypothesis import given, settings
from hypothesis import strategies as st

from common.errors import ServiceError
from store.catalog.models import Variant
from store.inventory import services as inventory
from store.inventory.models import StockMovement
from store.orders import services
from store.orders.choices import TERMINAL, OrderStatus
from store.orders.models import Order, OrderItem
from tests.fixtures.properties import examples
from tests.store.catalog.factories import TermFactory, make_product, make_variant
from tests.store.orders.factories import on_commit

pytestmark = pytest.mark.django_db

_names = itertools.count()

STEP = st.one_of(
    st.tuples(st.just("status"), st.integers(0, 3), st.sampled_from(OrderStatus.values)),
    st.tuples(st.just("bulk"), st.integers(0, 3), st.sampled_from(OrderStatus.values)),
    st.tuples(st.just("delete"), st.integers(0, 3), st.none()),
    st.tuples(st.just("add"), st.integers(0, 3), st.integers(1, 3)),
    st.tuples(st.just("quantity"), st.integers(0, 3), st.integers(1, 5)),
    st.tuples(st.just("remove"), st.integers(0, 3), st.none()),
    st.tuples(st.just("release"), st.integers(0, 3), st.none()),  # a duplicate task
)


def _items():
    n = next(_names)
    lamp = make_product(title=f"Lamp {n}", sku=f"P-LAMP-{n}", track_inventory=True)
    shirt = make_product(title=f"Shirt {n}", type="variable")
    red = make_variant(shirt, TermFactory(), sku=f"P-SHIRT-{n}", track_inventory=True)
    return lamp, red


def _line(item, quantity: int) -> dict:
    if isinstance(item, Variant):
        return {"product_id": item.product_id, "variant_id": item.pk, "quantity": quantity}
    return {"product_id": item.pk, "quantity": quantity}


def _held(item, order_ids) -> int:
    """Units of `item` in the lines of the orders that hold stock."""
    lines = OrderItem.objects.filter(order_id__in=order_ids).exclude(order__status__in=TERMINAL)
    lines = (
        lines.filter(variant=item)
        if isinstance(item, Variant)
        else lines.filter(product=item, variant=None)
    )
    return lines.aggregate(units=Sum("quantity"))["units"] or 0


def _check(items, initial, order_ids) -> None:
    for item, start in zip(items, initial, strict=True):
        item.refresh_from_db()
        assert item.stock_quantity == start - _held(item, order_ids), item
        assert item.stock_quantity >= 0  # no backorders here: never oversold
        movements = StockMovement.objects.filter(
            **(
                {"variant": item}
                if isinstance(item, Variant)
                else {"product": item, "variant": None}
            )
        )
        assert (movements.aggregate(total=Sum("quantity"))["total"] or 0) == item.stock_quantity


def _apply(step, order_ids, items) -> None:
    kind, index, value = step
    order_id = order_ids[index % len(order_ids)]
    if kind == "status":
        services.order_status_set(order_id=order_id, status=value)
    elif kind == "bulk":
        services.orders_bulk(ids=order_ids[: index + 1], action=value)
    elif kind == "delete":
        services.order_delete(order_id=order_id)
    elif kind == "add":
        services.order_item_add(order_id=order_id, fields=_line(items[index % 2], value))
    elif kind == "quantity":
        item = OrderItem.objects.filter(order_id=order_id).order_by("id").first()
        if item is not None:
            services.order_item_update(item_id=item.pk, fields={"quantity": value})
    elif kind == "remove":
        item = OrderItem.objects.filter(order_id=order_id).order_by("-id").first()
        if item is not None:
            services.order_item_delete(item_id=item.pk)
    elif kind == "release":
        services.order_stock_release(order_id=order_id)


@pytest.mark.slow(reason="60 generated histories of up to 25 order steps, each on the database")
@settings(max_examples=examples(60))
@given(
    initial=st.tuples(st.integers(0, 12), st.integers(0, 12)),
    orders=st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from(OrderStatus.values)),
        min_size=1,
        max_size=4,
    ),
    steps=st.lists(STEP, max_size=25),
)
def test_stock_is_the_initial_stock_minus_what_live_orders_hold(initial, orders, steps):
    items = _items()
    for item, quantity in zip(items, initial, strict=True):
        services_stock_set(item, quantity)
    order_ids = []
    for lamps, shirts, status in orders:
        lines = [_line(item, q) for item, q in zip(items, (lamps, shirts), strict=True) if q]
        try:
            with on_commit():
                order = services.order_create(items=lines, status=status)
            order_ids.append(order.pk)
        except ServiceError as refusal:
            codes = refusal.code
            assert codes == "insufficient_stock"
        _check(items, initial, order_ids)
    if not order_ids:
        return
    for step in steps:
        try:
            with on_commit():
                _apply(step, order_ids, items)
        except ServiceError:
            pass  # a refusal changes nothing; the invariant below says so
        _check(items, initial, order_ids)
    assert Order.objects.filter(stock_release_pending=True, pk__in=order_ids).count() == 0


def services_stock_set(item, quantity: int) -> None:
    inventory.stock_set(
        product_id=item.product_id if isinstance(item, Variant) else item.pk,
        variant_id=item.pk if isinstance(item, Variant) else None,
        quantity=quantity,
    )
