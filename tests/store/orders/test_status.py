"""The three status endpoints: allowed moves, refusals, and the stock side effects."""

import pytest

from store.inventory.models import StockMovement
from store.orders.choices import TERMINAL, TRANSITIONS, OrderStatus
from store.orders.models import Order, OrderStatusChange
from tests.fixtures.store import API, error
from tests.store.orders.factories import line, make_order, on_commit, stock_of, stocked

pytestmark = pytest.mark.django_db

STATUSES = OrderStatus.values
ALLOWED = [(a, b) for a in STATUSES for b in STATUSES if b in TRANSITIONS[a]]
REFUSED = [(a, b) for a in STATUSES for b in STATUSES if a != b and b not in TRANSITIONS[a]]


def status_url(order, kind="status") -> str:
    return f"{API}/orders/{order.pk}/{kind}"


def put(client, order, body, kind="status", method="patch"):
    with on_commit():
        return getattr(client, method)(status_url(order, kind), body, format="json")


def test_the_written_down_moves():
    """The matrix of docs/decisions/store-orders-payments.md; a change here must change the
    decisions too."""
    assert len(ALLOWED) == 39
    assert set(REFUSED) == {
        ("processing", "pending"),
        ("shipped", "pending"),
        ("shipped", "on_hold"),
        ("completed", "pending"),
        ("completed", "on_hold"),
        ("completed", "shipped"),
        ("completed", "failed"),
        ("cancelled", "shipped"),
        ("cancelled", "completed"),
        ("cancelled", "failed"),
        ("refunded", "shipped"),
        ("refunded", "completed"),
        ("refunded", "cancelled"),
        ("refunded", "failed"),
        ("failed", "shipped"),
        ("failed", "completed"),
        ("failed", "refunded"),
    }
    # Every terminal status can be left, and every status can be cancelled or refunded
    # except from another terminal one where noted.
    assert all(TRANSITIONS[t] - TERMINAL for t in TERMINAL)


@pytest.mark.parametrize(("old", "new"), ALLOWED, ids=[f"{a}->{b}" for a, b in ALLOWED])
def test_every_allowed_move_with_its_stock_effect(manager_client, manager, old, new):
    lamp = stocked(stock=10)
    order = make_order(line(lamp, 3), status=old)
    before = stock_of(lamp)
    assert before == (10 if old in TERMINAL else 7)
    response = put(manager_client, order, {"status": new, "note": "Because."})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == new
    assert body["status_history"][-1] == {
        **body["status_history"][-1],
        "field": "status",
        "from": old,
        "to": new,
        "note": "Because.",
        "actor": manager.email,
    }
    assert stock_of(lamp) == (10 if new in TERMINAL else 7)


@pytest.mark.parametrize(("old", "new"), REFUSED, ids=[f"{a}->{b}" for a, b in REFUSED])
def test_every_other_move_is_refused_and_changes_nothing(manager_client, old, new):
    lamp = stocked(stock=10)
    order = make_order(line(lamp, 3), status=old)
    before = stock_of(lamp)
    body = error(put(manager_client, order, {"status": new}), 409, "invalid_status_transition")
    assert old in body["message"]
    assert new in body["message"]
    order.refresh_from_db()
    assert order.status == old
    assert OrderStatusChange.objects.filter(order=order).count() == 1
    assert stock_of(lamp) == before


def test_put_and_patch_both_move(manager_client):
    order = make_order()
    assert put(manager_client, order, {"status": "on_hold"}, method="put").json()["status"] == (
        "on_hold"
    )
    assert put(manager_client, order, {"status": "processing"}).json()["status"] == "processing"


def test_the_same_status_again_changes_nothing(manager_client):
    lamp = stocked(stock=5)
    order = make_order(line(lamp, 2), status="cancelled")
    assert put(manager_client, order, {"status": "cancelled"}).status_code == 200
    assert OrderStatusChange.objects.filter(order=order).count() == 1
    assert stock_of(lamp) == 5


@pytest.mark.parametrize("body", [{}, {"status": None}, {"status": ""}, {"note": "x"}])
def test_a_status_change_without_status_is_400_missing_status(manager_client, body):
    order = make_order()
    error(put(manager_client, order, body), 400, "missing_status")
    order.refresh_from_db()
    assert order.status == "pending"


def test_an_unknown_status_is_400(manager_client):
    order = make_order()
    body = error(put(manager_client, order, {"status": "lost"}), 400, "invalid_param")
    assert set(body["data"]["params"]) == {"status"}


def test_statuses_are_matched_without_regard_to_case(manager_client):
    order = make_order()
    assert put(manager_client, order, {"status": "Processing"}).json()["status"] == "processing"


def test_leaving_a_terminal_status_without_enough_stock_is_refused(manager_client):
    lamp = stocked(stock=3)
    cancelled = make_order(line(lamp, 3), status="cancelled")
    make_order(line(lamp, 2))  # takes 2 of the 3
    body = error(
        put(manager_client, cancelled, {"status": "processing"}), 409, "insufficient_stock"
    )
    assert "1 available, 3 wanted" in body["message"]
    cancelled.refresh_from_db()
    assert cancelled.status == "cancelled"
    assert stock_of(lamp) == 1
    assert OrderStatusChange.objects.filter(order=cancelled).count() == 1


def test_cancel_refund_fail_restore_and_reopening_reduces_again(manager_client):
    lamp = stocked(stock=10)
    order = make_order(line(lamp, 4))
    reasons = []
    for terminal in ("cancelled", "pending", "refunded", "processing", "failed", "on_hold"):
        put(manager_client, order, {"status": terminal})
        assert stock_of(lamp) == (10 if terminal in TERMINAL else 6), terminal
    reasons = list(
        StockMovement.objects.filter(reference_type="order")
        .order_by("id")
        .values_list("reason", "quantity")
    )
    assert reasons == [
        ("order_placed", -4),
        ("order_cancelled", 4),
        ("order_reopened", -4),
        ("order_refunded", 4),
        ("order_reopened", -4),
        ("order_failed", 4),
        ("order_reopened", -4),
    ]


def test_variants_and_several_lines_move_together(manager_client):
    from tests.store.catalog.factories import TermFactory, make_product, make_variant

    shirt = make_product(title="Shirt", type="variable")
    red = make_variant(shirt, TermFactory(), stock_quantity=5)
    mug = stocked(title="Mug", stock=4)
    order = make_order(line(red, 2), line(mug, 1), line(mug, 2))
    assert (stock_of(red), stock_of(mug), stock_of(shirt)) == (3, 1, 3)
    put(manager_client, order, {"status": "cancelled"})
    assert (stock_of(red), stock_of(mug), stock_of(shirt)) == (5, 4, 5)


def test_the_payment_status_endpoint(manager_client, manager):
    order = make_order(line(stocked()))
    error(put(manager_client, order, {}, "payment-status"), 400, "missing_payment_status")
    body = error(put(manager_client, order, {"payment_status": "free"}, "payment-status"), 400)
    assert set(body["data"]["params"]) == {"payment_status"}
    body = put(
        manager_client, order, {"payment_status": "paid", "note": "Cash"}, "payment-status"
    ).json()
    assert body["payment_status"] == "paid"
    assert body["paid_at"] is not None
    assert body["status_history"][-1]["field"] == "payment_status"
    assert (body["status_history"][-1]["from"], body["status_history"][-1]["to"]) == (
        "unpaid",
        "paid",
    )
    assert body["status"] == "pending"  # the order status does not move with it


def test_the_fulfillment_status_endpoint(manager_client):
    order = make_order(line(stocked()))
    error(put(manager_client, order, {}, "fulfillment-status"), 400, "missing_fulfillment_status")
    body = put(
        manager_client, order, {"fulfillment_status": "fulfilled"}, "fulfillment-status", "put"
    ).json()
    assert body["fulfillment_status"] == "fulfilled"
    assert body["status_history"][-1]["to"] == "fulfilled"


def test_status_endpoints_of_a_missing_order_are_404(manager_client):
    for kind, body in (
        ("status", {"status": "processing"}),
        ("payment-status", {"payment_status": "paid"}),
        ("fulfillment-status", {"fulfillment_status": "fulfilled"}),
    ):
        error(
            manager_client.patch(f"{API}/orders/999/{kind}", body, format="json"),
            404,
            "order_not_found",
        )


def test_status_endpoints_need_the_orders_capability(anon, customer_client):
    lamp = stocked(stock=5)
    order = make_order(line(lamp, 2))
    for client, status in ((anon, 401), (customer_client, 403)):
        for kind, body in (
            ("status", {"status": "cancelled"}),
            ("payment-status", {"payment_status": "paid"}),
            ("fulfillment-status", {"fulfillment_status": "fulfilled"}),
        ):
            error(put(client, order, body, kind), status)
    order = Order.objects.get(pk=order.pk)
    assert (order.status, order.payment_status, order.fulfillment_status) == (
        "pending",
        "unpaid",
        "unfulfilled",
    )
    assert stock_of(lamp) == 3
