"""The reports on their rollups: closing days, the rebuild command, changes of closed orders, the
greatest title, and the customer writes the rollups follow outside the order services."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command

from store.customers import selectors as customer_selectors
from store.customers import services as customer_services
from store.orders import services as order_services
from store.reports import rollups
from store.reports import selectors as report_selectors
from store.reports.models import CustomerRollup, CustomerTally, OrderRollup, ReportWatermark
from store.reports.tasks import close_days
from tests.accounts.factories import UserFactory
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
TODAY = NOW.date()


@pytest.fixture(autouse=True)
def _frozen_clock():
    with time_machine.travel(NOW, tick=False):
        yield


def on_day(days_ago: int, **fields):
    """An order placed `days_ago` days before today (the clock moved, so every write sees it)."""
    with time_machine.travel(NOW - timedelta(days=days_ago), tick=False):
        return make_order(line(fields.pop("product")), **fields)


# --- Closing days and rebuilding -----------------------------------------------------------------


def test_closing_counts_the_days_before_and_a_second_close_changes_nothing():
    lamp = stocked(stock=100)
    on_day(3, product=lamp, status="completed")
    on_day(0, product=lamp, status="completed")
    assert rollups.close_days(TODAY) == TODAY
    assert ReportWatermark.objects.get().closed_until == TODAY
    day_rows = OrderRollup.objects.filter(level=0)
    assert list(day_rows.values_list("start", "orders")) == [
        (rollups.day_number(TODAY - timedelta(days=3)), 1)
    ]
    every_level = OrderRollup.objects.values_list("level", flat=True).order_by("level")
    assert list(every_level) == list(range(13))
    before = list(OrderRollup.objects.order_by("pk").values_list("pk", "orders"))
    assert rollups.close_days(TODAY) == TODAY
    assert rollups.close_days(TODAY - timedelta(days=1)) == TODAY  # never goes back
    assert list(OrderRollup.objects.order_by("pk").values_list("pk", "orders")) == before
    assert close_days() == TODAY.isoformat()  # the nightly task, eager here


def test_the_rebuild_command_recounts_from_the_rows():
    lamp = stocked(stock=100)
    order = on_day(5, product=lamp, status="processing")
    rollups.close_days(TODAY)
    OrderRollup.objects.update(orders=99)  # e.g. rows written around the services
    out = StringIO()
    call_command("rebuild_report_rollups", stdout=out)
    assert "days before 2026-06-15 closed" in out.getvalue()
    assert set(OrderRollup.objects.values_list("orders", flat=True)) == {1}
    assert CustomerTally.objects.filter(customer_id=order.customer_id).exists() is False


def test_a_change_of_a_closed_order_moves_its_figures_at_once():
    lamp = stocked(stock=100, price="10.00")
    order = on_day(2, product=lamp, status="processing")
    rollups.close_days(TODAY)
    period = report_selectors.period_for("7d", today=TODAY)

    def totals():
        stats = report_selectors.dashboard_stats(period=period, currency="EUR", default_threshold=2)
        return stats["totals"]["orders"], stats["totals"]["refunds"], stats["top_products"]

    assert totals()[0] == 1
    order_services.payment_create(
        order_id=order.pk, fields={"amount": order.total, "status": "completed"}
    )
    order_services.payment_create(
        order_id=order.pk, fields={"kind": "refund", "amount": "3.00", "status": "completed"}
    )
    assert totals()[:2] == (1, Decimal("-3.00"))
    order_services.order_status_set(order_id=order.pk, status="cancelled")
    assert totals() == (0, Decimal("0.00"), [])


def test_the_greatest_title_is_taken_over_the_rollups_and_the_rows():
    lamp = stocked(title="Lamp", stock=100)
    old = on_day(3, product=lamp, status="processing")
    order_services.order_item_update(
        item_id=old.items.get().pk, fields={"title": "Lamp (old name)"}
    )
    order_services.order_status_set(order_id=old.pk, status="completed")
    rollups.close_days(TODAY)
    make_order(line(lamp, 2, title="Lamp"), status="completed")  # today: from the rows
    period = report_selectors.period_for("7d", today=TODAY)
    stats = report_selectors.dashboard_stats(period=period, currency="EUR", default_threshold=2)
    assert stats["top_products"] == [
        {
            "product_id": lamp.pk,
            "title": "Lamp (old name)",
            "quantity": 3,
            "revenue": Decimal("30.00"),
            "orders": 2,
        }
    ]


# --- Customers: writes outside the order services ------------------------------------------------


def _counts(query=None) -> dict:
    return customer_selectors.customers_stats(query or {})


def test_customers_saved_deleted_and_unlinked_are_counted_where_they_belong():
    lamp = stocked(stock=100)
    user = UserFactory()
    with time_machine.travel(NOW - timedelta(days=40), tick=False):
        shopper = customer_services.customer_create(
            fields={"email": "shopper@example.com", "user_id": user.pk}
        )
        guest = customer_services.customer_create(fields={"email": "guest@example.com"})
        customer_services.customer_create(fields={"email": "gone@example.com"})
    rollups.close_days(TODAY)
    assert sum(CustomerRollup.objects.filter(level=0).values_list("customers", flat=True)) == 3
    assert (_counts()["registered"], _counts()["with_orders"]) == (1, 0)

    make_order(line(lamp), customer=guest)  # today: the guest now has orders
    user.delete()  # the account goes: the customer is a guest
    assert (_counts()["registered"], _counts()["with_orders"]) == (0, 1)
    customer_services.customer_delete(customer_id=guest.pk)  # has orders: anonymised
    gone = customer_selectors.customer_by_email("gone@example.com")
    customer_services.customer_delete(customer_id=gone.pk)  # none: deleted
    counts = _counts()
    assert (counts["total"], counts["anonymised"], counts["with_orders"]) == (2, 1, 1)
    assert _counts({"status": "active"})["total"] == 1
    assert CustomerTally.objects.filter(customer_id=shopper.pk, registered=False).exists()
    with_rows_only = ReportWatermark.objects.all()
    with_rows_only.delete()
    assert _counts() == counts


def test_new_customers_of_the_day_thirty_days_ago_count_from_its_time():
    day = (NOW - timedelta(days=30)).date()
    for hour, email in ((6, "early@example.com"), (18, "late@example.com")):
        with time_machine.travel(datetime(day.year, day.month, day.day, hour, tzinfo=UTC)):
            customer_services.customer_create(fields={"email": email})
    rollups.close_days(TODAY)
    assert _counts()["new_last_30_days"] == 1  # NOW - 30 days is noon: the late one
    assert _counts()["total"] == 2


def test_a_write_outside_a_batch_is_refused_loudly():
    order = make_order(line(stocked()))
    from store.orders.services.common import order_for_update

    with pytest.raises(RuntimeError, match="batched"):
        order_for_update(order.pk)


def test_before_the_first_close_the_reports_read_the_rows():
    lamp = stocked(stock=100)
    on_day(3, product=lamp, status="completed")
    assert rollups.closed_until() is None
    assert OrderRollup.objects.count() == 0
    period = report_selectors.period_for("7d", today=TODAY)
    stats = report_selectors.dashboard_stats(period=period, currency="EUR", default_threshold=2)
    assert stats["totals"]["orders"] == 1


def test_blocks_cover_a_range_with_few_rows():
    first, last = rollups.day_number(date(2025, 6, 16)), rollups.day_number(date(2026, 6, 14))
    found = rollups.blocks(first, last)
    covered = [day for level, start in found for day in range(start, start + (1 << level))]
    assert covered == list(range(first, last + 1))
    assert len(found) <= 2 * 13
    for level, start in found:
        assert start % (1 << level) == 0
    assert rollups.blocks(5, 4) == []
