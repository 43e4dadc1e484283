"""The history of orders and payments: who changed what, through the API, the admin, the
checkout's beat task and plain code (commands, the shell), shown on their admin pages."""

from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from common.models import AuditEntry
from store.checkout import tasks as checkout_tasks
from store.orders import services
from store.orders.models import Order, Payment
from tests.admin_forms import csrf_client, post_action, post_form
from tests.fixtures.store import API
from tests.store.checkout.helpers import DECLINED, Shop, complete, started
from tests.store.orders.factories import line, make_order, on_commit, stocked

pytestmark = pytest.mark.django_db


def history(obj):
    return list(
        AuditEntry.objects.filter(
            content_type__model=type(obj)._meta.model_name, object_id=obj.pk
        ).order_by("id")
    )


@pytest.fixture
def order():
    return make_order(line(stocked(title="Lamp", price="50.00", stock=5), 1))


def test_creating_in_code_is_recorded_as_system(order):
    [entry] = history(order)
    assert (entry.action, entry.actor, entry.actor_label, entry.via) == (
        "created",
        None,
        "system",
        "system",
    )
    assert entry.changes["status"] == [None, "pending"]
    assert entry.changes["total"] == [None, "50.00"]


def test_an_api_status_move_is_recorded_with_the_account(manager_client, manager, order):
    with on_commit():
        response = manager_client.patch(
            f"{API}/orders/{order.pk}/status", {"status": "on_hold"}, format="json"
        )
    assert response.status_code == 200, response.content
    entry = history(order)[-1]
    assert (entry.action, entry.actor, entry.via) == ("changed", manager, "api")
    assert entry.changes == {"status": ["pending", "on_hold"]}
    assert entry.context == f"PATCH {API}/orders/{order.pk}/status"


def test_an_api_payment_is_recorded_on_the_payment_and_the_order(manager_client, manager, order):
    response = manager_client.post(
        f"{API}/orders/{order.pk}/payments",
        {"amount": "20.00", "transaction_id": "tx-1"},
        format="json",
    )
    assert response.status_code == 201, response.content
    payment = Payment.objects.get()
    [entry] = history(payment)
    assert (entry.action, entry.actor, entry.via) == ("created", manager, "api")
    assert entry.changes["amount"] == [None, "20.00"]
    assert entry.changes["transaction_id"] == [None, "tx-1"]
    on_order = history(order)[-1]
    assert on_order.changes == {
        "payment_status": ["unpaid", "partially_paid"],
        "amount_paid": ["0.00", "20.00"],
    }
    assert on_order.note == f"Payment {payment.pk} recorded."
    response = manager_client.patch(
        f"{API}/payments/{payment.pk}", {"amount": "25.00"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert history(payment)[-1].changes == {"amount": ["20.00", "25.00"]}


def test_an_admin_status_move_is_recorded_with_the_staff_member(admin_user, order):
    with on_commit():
        post_action(
            csrf_client(admin_user),
            reverse("admin:store_orders_order_changelist"),
            "mark_cancelled",
            [order.pk],
        )
    order.refresh_from_db()
    assert order.status == "cancelled"
    entry = history(order)[-1]
    assert (entry.action, entry.actor, entry.actor_label, entry.via) == (
        "changed",
        admin_user,
        admin_user.email,
        "admin",
    )
    assert entry.changes == {"status": ["pending", "cancelled"]}


def test_an_admin_address_change_is_recorded_field_by_field(admin_user, order):
    browser = csrf_client(admin_user)
    url = reverse("admin:store_orders_order_change", args=[order.pk])
    response = post_form(browser, url, shipping_city="Athens", shipping_country="GR")
    assert response.status_code == 302, response.content.decode()[:2000]
    entry = history(order)[-1]
    assert (entry.actor, entry.via) == (admin_user, "admin")
    assert entry.changes == {
        "shipping_address.city": [None, "Athens"],
        "shipping_address.country": [None, "GR"],
    }
    html = browser.get(url).content.decode()
    assert "shipping_address.city: — -&gt; Athens" in html


def test_deleting_a_payment_in_the_admin_goes_through_the_service(admin_user, order):
    payment = services.payment_create(order_id=order.pk, fields={"amount": "50.00"})
    order.refresh_from_db()
    assert order.payment_status == "paid"
    browser = csrf_client(admin_user)
    url = reverse("admin:store_orders_payment_change", args=[payment.pk])
    assert "amount: — -&gt; 50.00" in browser.get(url).content.decode()  # its history
    delete = reverse("admin:store_orders_payment_delete", args=[payment.pk])
    response = post_form(browser, delete)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert not Payment.objects.exists()
    order.refresh_from_db()
    assert (order.payment_status, str(order.amount_paid)) == ("unpaid", "0.00")
    entry = history(payment)[-1]
    assert (entry.action, entry.actor, entry.via) == ("deleted", admin_user, "admin")
    assert history(order)[-1].changes["payment_status"] == ["paid", "unpaid"]


def test_the_checkout_and_its_beat_are_recorded(anon):
    shop = Shop()
    checkout = started(anon, shop)
    assert complete(anon, checkout["id"], payment_data=DECLINED).status_code == 402
    order = Order.objects.get()
    created = history(order)[0]
    assert (created.action, created.actor_label, created.via) == ("created", "anonymous", "api")
    with time_machine.travel(timezone.now() + timedelta(minutes=61), tick=False), on_commit():
        checkout_tasks.cancel_unpaid_orders.apply()
    entry = history(order)[-1]
    assert (entry.actor_label, entry.via, entry.context) == (
        "system",
        "task",
        "store_checkout.cancel_unpaid_orders",
    )
    assert entry.changes == {"status": ["pending", "cancelled"]}


def test_a_refused_change_leaves_no_entry(manager_client, order):
    with on_commit():
        services.order_status_set(order_id=order.pk, status="cancelled")
    before = history(order)
    response = manager_client.patch(
        f"{API}/orders/{order.pk}/status", {"status": "completed"}, format="json"
    )
    assert response.status_code == 409
    assert history(order) == before


def test_the_order_body_shows_the_latest_status_changes_oldest_first(manager_client, order):
    from store.orders.models import OrderStatusChange
    from store.orders.selectors import HISTORY_SHOWN

    start = timezone.now()
    OrderStatusChange.objects.bulk_create(
        OrderStatusChange(
            order=order,
            field="status",
            from_value="processing",
            to_value="on_hold",
            note=f"move {n}",
            created_at=start + timedelta(seconds=n),
        )
        for n in range(HISTORY_SHOWN + 5)
    )
    body = manager_client.get(f"{API}/orders/{order.pk}").json()
    notes = [h["note"] for h in body["status_history"]]
    assert len(notes) == HISTORY_SHOWN == 100
    assert notes[0] == "move 5"
    assert notes[-1] == f"move {HISTORY_SHOWN + 4}"
