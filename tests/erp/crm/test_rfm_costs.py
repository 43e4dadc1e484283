"""What RFM costs an order write and a /crm/rfm page.

- An order save pays the rollup only when what the order counts changed: one statement (an
  upsert adding the difference), two when the order that leaves may have been its
  customer's last; the rule read in Python (`is_paid`) is the rule in SQL (`paid_q`).
- When the listener does not know what the order counted before (deferred fields, an
  instance made in Python that updates a row), it recounts; a rollup behind the orders
  (a bulk load) is recounted rather than left negative.
- /crm/rfm answers from a ranking (boundaries and label counts) computed in one query and
  cached per currency until a committed change of that currency's rollup; what it answers
  is what the window functions answer (`rfm_rows`), page by page, for every ordering and
  segment.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import given, settings
from hypothesis import strategies as st

from erp.crm import listeners, rollups, selectors
from erp.crm.choices import RfmLabel
from erp.crm.models import CustomerRfm
from store.customers.models import Customer
from store.orders import services as order_services
from store.orders.choices import OrderStatus, PaymentStatus
from store.orders.models import Order
from tests.erp.crm.conftest import BASE, make_customer, paid_order
from tests.erp.crm.test_rfm_rollups import recounted, rollup_rows
from tests.fixtures.properties import examples

pytestmark = pytest.mark.django_db


def rollup_statements(captured) -> list[str]:
    return [q["sql"] for q in captured if "erp_crm_customerrfm" in q["sql"]]


def row(customer) -> tuple:
    found = CustomerRfm.objects.get(customer=customer, currency="EUR")
    return found.frequency, found.monetary, found.last_order_at


# --- The rule -----------------------------------------------------------------------------------


def test_the_rule_in_python_is_the_rule_in_sql():
    customer = make_customer()
    pairs = list(itertools.product(OrderStatus.values, PaymentStatus.values))
    for status, payment in pairs:
        paid_order(customer, status=status, payment=payment)
    in_sql = set(
        Order.objects.filter(rollups.paid_q(), customer=customer).values_list(
            "status", "payment_status"
        )
    )
    in_python = {pair for pair in pairs if rollups.is_paid(*pair)}
    assert in_sql == in_python
    assert ("completed", "unpaid") in in_python
    assert ("cancelled", "paid") not in in_python


# --- What an order write costs ------------------------------------------------------------------


def test_a_status_move_pays_the_rollup_only_when_the_order_enters_or_leaves():
    customer = make_customer()
    older = paid_order(customer, "20.00", days_ago=9)
    latest = paid_order(customer, "30.00", days_ago=1, status="processing")
    waiting = paid_order(customer, "40.00", days_ago=3, status="pending", payment="unpaid")

    def move(order, status) -> list[str]:
        with CaptureQueriesContext(connection) as captured:
            order_services.order_status_set(order_id=order.pk, status=status)
        return rollup_statements(captured)

    assert move(latest, "shipped") == []  # paid: counted before and after
    assert move(latest, "completed") == []
    assert row(customer) == (2, Decimal("50.00"), latest.created_at)
    assert len(move(waiting, "completed")) == 1  # enters: one upsert
    assert row(customer) == (3, Decimal("90.00"), latest.created_at)
    assert len(move(older, "cancelled")) == 1  # leaves, not the last: one upsert
    assert row(customer) == (2, Decimal("70.00"), latest.created_at)
    assert len(move(latest, "refunded")) == 2  # leaves, the last: the last taken again
    assert row(customer) == (1, Decimal("40.00"), waiting.created_at)
    assert rollup_rows() == recounted()


def test_a_move_to_another_customer_and_currency_changes_both_rows_in_one_statement():
    first, second = make_customer("a@example.com"), make_customer("b@example.com")
    paid_order(first, "5.00", days_ago=0)
    order = paid_order(first, "10.00", days_ago=4)
    with CaptureQueriesContext(connection) as captured:
        order_services.order_update(order_id=order.pk, fields={"customer_id": second.pk})
    assert len(rollup_statements(captured)) == 1
    assert row(first)[:2] == (1, Decimal("5.00"))
    assert row(second) == (1, Decimal("10.00"), order.created_at)
    order_services.order_update(order_id=order.pk, fields={"currency": "USD"})
    assert row(second)[:2] == (0, Decimal("0.00"))
    assert CustomerRfm.objects.get(customer=second, currency="USD").frequency == 1
    assert rollup_rows() == recounted()


def test_an_order_read_with_deferred_fields_is_recounted(django_assert_num_queries):
    customer = make_customer()
    order = paid_order(customer, "10.00")
    paid_order(customer, "7.00", days_ago=3)
    with django_assert_num_queries(1):  # reading fetches no deferred field
        (partial,) = Order.objects.only("id", "status").filter(pk=order.pk)
    assert partial.__dict__[listeners.READ_AS][0] is listeners.UNLOADED
    partial.status = OrderStatus.CANCELLED
    partial.save(update_fields=["status"])
    assert row(customer)[:2] == (1, Decimal("7.00"))
    assert rollup_rows() == recounted()


def test_an_instance_made_in_python_that_updates_a_row_is_recounted():
    customer = make_customer()
    order = paid_order(customer, "10.00")
    copy = Order(**{f.attname: getattr(order, f.attname) for f in Order._meta.concrete_fields})
    # the row changes after the copy was made: the copy's values are not the row's
    order_services.order_status_set(order_id=order.pk, status=OrderStatus.CANCELLED)
    assert row(customer)[0] == 0
    copy.status = OrderStatus.CANCELLED
    copy.save()
    assert row(customer)[0] == 0  # not counted out twice
    assert rollup_rows() == recounted()


def test_a_rollup_behind_the_orders_is_recounted_not_made_negative():
    customer = make_customer()
    paid_order(customer, "10.00")
    order = paid_order(customer, "6.00", days_ago=2)
    CustomerRfm.objects.all().delete()  # as after a bulk load, before the rebuild command
    order_services.order_status_set(order_id=order.pk, status=OrderStatus.CANCELLED)
    assert row(customer)[:2] == (1, Decimal("10.00"))
    assert rollup_rows() == recounted()


# --- /crm/rfm answers what the window functions answer ----------------------------------------


def reference(currency: str, ordering: str, segment: str | None) -> list[tuple]:
    """The rows, scores and labels of the window functions, filtered and ordered in Python."""
    rows = []
    for found in selectors.rfm_rows(currency=currency):
        scores = {
            "recency": selectors.rfm_score(found["r_rank"]),
            "frequency": selectors.rfm_score(found["f_rank"]),
            "monetary": selectors.rfm_score(found["m_rank"]),
        }
        label = selectors.rfm_label(scores["recency"], scores["frequency"])
        if segment is None or label == segment:
            rows.append((found, scores, label))
    column = {"recency": "last_order_at"}.get(ordering.lstrip("-"), ordering.lstrip("-"))
    descending = ordering.startswith("-") != (ordering.lstrip("-") == "recency")
    rows.sort(key=lambda r: r[0]["customer_id"])
    rows.sort(key=lambda r: r[0][column], reverse=descending)
    return [(r[0]["customer_id"], r[1], r[2]) for r in rows]


def answered(currency: str, ordering: str, segment: str | None, per_page: int) -> tuple:
    query = {"page": 1, "per_page": per_page, "ordering": ordering, "segment": segment}
    first = selectors.rfm_page(query, currency=currency)
    items = []
    for page in range(1, first.total // per_page + 2):
        found = selectors.rfm_page({**query, "page": page}, currency=currency)
        assert found.total == first.total
        items += [(i["customer_id"], i["scores"], i["segment"]) for i in found.items]
    return first.total, items


CUSTOMER = st.lists(  # each customer's paid orders: (days ago, total), from few values: ties
    st.tuples(st.sampled_from((0, 1, 5, 30, 90)), st.sampled_from(("10.00", "25.50", "99.99"))),
    min_size=0,
    max_size=4,
)


@settings(max_examples=examples(12), deadline=None)
@given(
    customers=st.lists(CUSTOMER, min_size=0, max_size=12),
    per_page=st.integers(1, 6),
    segment=st.sampled_from((None, *RfmLabel.values)),
)
def test_rfm_pages_answer_what_the_window_functions_answer(customers, per_page, segment):
    now = datetime(2026, 5, 1, 12, tzinfo=UTC)
    with transaction.atomic():
        for index, orders in enumerate(customers):
            customer = Customer.objects.create(email=f"w{index}@example.com")
            for number, (days, total) in enumerate(orders):
                Order.objects.create(
                    order_key=f"w-{index}-{number}",
                    order_number=f"W{index}-{number}",
                    customer=customer,
                    status="completed",
                    payment_status="paid",
                    currency="EUR",
                    total=Decimal(total),
                    created_at=now - timedelta(days=days, seconds=number),
                )
        for ordering in selectors.RFM_ORDERINGS:  # every ordering, one segment (or none) drawn
            expected = reference("EUR", ordering, segment)
            assert answered("EUR", ordering, segment, per_page) == (len(expected), expected)
        transaction.set_rollback(True)


# --- The cached ranking ------------------------------------------------------------------------


def ranking_queries(captured) -> int:
    return sum("PERCENT_RANK" in q["sql"] for q in captured)


def get(client, **params) -> tuple[dict, int, int]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(f"{BASE}/crm/rfm", params)
    assert response.status_code == 200, response.content
    return response.json(), ranking_queries(captured), len(captured)


def committed_customers(django_capture_on_commit_callbacks, count: int, start: int = 0) -> None:
    with django_capture_on_commit_callbacks(execute=True):  # as if each write committed
        for index in range(start, start + count):
            customer = make_customer(f"k{index}@example.com")
            for days in range(index % 3 + 1):
                paid_order(customer, "10.00", days_ago=days * 7 + index)


def test_the_ranking_is_cached_until_a_committed_change_of_its_currency(
    seller_client, django_capture_on_commit_callbacks
):
    committed_customers(django_capture_on_commit_callbacks, 4)
    body, ranked, _ = get(seller_client)
    assert (body["total"], ranked) == (4, 1)
    again, ranked, _ = get(seller_client, segment="lost")
    assert ranked == 0
    assert again["total"] == len([r for r in body["customers"] if r["segment"] == "lost"])
    with django_capture_on_commit_callbacks(execute=True):  # another currency: kept
        paid_order(make_customer("usd@example.com"), "5.00", currency="USD")
    assert get(seller_client)[1] == 0
    committed_customers(django_capture_on_commit_callbacks, 1, start=4)
    body, ranked, _ = get(seller_client)
    assert (body["total"], ranked) == (5, 1)


def test_a_transactions_own_changes_are_read_from_the_rows_and_never_cached(
    seller_client, django_capture_on_commit_callbacks
):
    committed_customers(django_capture_on_commit_callbacks, 3)
    assert get(seller_client)[0]["total"] == 3
    with transaction.atomic():
        paid_order(make_customer("new@example.com"), "99.00")  # not committed
        body, ranked, _ = get(seller_client)
        assert (body["total"], ranked) == (4, 1)
        assert get(seller_client)[1] == 1  # still pending: not read from the cache
        transaction.set_rollback(True)
    body, ranked, _ = get(seller_client)
    assert (body["total"], ranked) == (3, 0)  # the rolled-back rows were never cached


def test_without_a_cache_the_ranking_is_computed_each_time(
    seller_client, settings, django_capture_on_commit_callbacks
):
    committed_customers(django_capture_on_commit_callbacks, 3)
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    for _ in range(2):
        body, ranked, _ = get(seller_client)
        assert (body["total"], ranked) == (3, 1)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"per_page": 100},
        {"ordering": "recency", "page": 2, "per_page": 2},
        {"ordering": "frequency", "segment": "(the first customer's)"},
    ],
)
def test_a_cached_rfm_page_costs_the_same_queries_for_any_number_of_customers(
    seller_client, params, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    committed_customers(django_capture_on_commit_callbacks, 6)
    if "segment" in params:
        params["segment"] = get(seller_client)[0]["customers"][0]["segment"]
    get(seller_client, **params)
    body, ranked, few = get(seller_client, **params)
    assert body["customers"]  # a page with rows: its query and its customers' are counted
    assert ranked == 0
    committed_customers(django_capture_on_commit_callbacks, 40, start=6)
    get(seller_client, **params)
    with django_assert_max_num_queries(few):
        assert get(seller_client, **params)[1] == 0
    # at most: credentials, capability, gate (2), store settings, the page and its customers
    assert few <= 7
