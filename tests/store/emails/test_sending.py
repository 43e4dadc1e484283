"""Every e-mail the store sends goes through its templates, is recorded, and leaves once."""

from __future__ import annotations

import smtplib

import pytest
from django.core import mail
from django.db import transaction

from accounts import services as account_services
from common import outbox
from common.models import OutboxMessage
from config.celery import app as celery_app
from store.customers.services import customer_for_user
from store.emails import services as email_services
from store.emails import types
from store.emails.models import SentEmail
from store.orders import services as order_services
from store.orders.choices import OrderSource
from store.orders.models import OrderStatusChange
from store.settings import services as settings_services
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API
from tests.store.checkout.helpers import Shop, complete, started
from tests.store.emails.helpers import TEMPLATES, an_order, log

pytestmark = pytest.mark.django_db


@pytest.fixture
def shop(db):
    settings_services.settings_update(section="general", values={"store_email": "shop@example.com"})
    return Shop()


def test_a_placed_order_sends_both_e_mails_through_the_templates(
    anon, shop, staff, django_capture_on_commit_callbacks
):
    staff.patch(
        f"{TEMPLATES}/order_confirmation",
        {"body_html": "<p>Merci {{ customer.first_name }} for {{ order.number }}</p>"},
    )
    settings_services.settings_update(
        section="emails", values={"sender_name": "Lamps & Co", "sender_address": "hi@lamps.test"}
    )
    checkout = started(anon, shop)
    with django_capture_on_commit_callbacks(execute=True):
        body = complete(anon, checkout["id"]).json()
    number = body["order_number"]
    assert [m.to for m in mail.outbox] == [["ana@example.com"], ["shop@example.com"]]
    confirmation, notice = mail.outbox
    assert confirmation.from_email == "Lamps & Co <hi@lamps.test>"
    assert confirmation.subject == f"Your Emporion Store order {number} is confirmed"
    html, kind = confirmation.alternatives[0]
    assert kind == "text/html"
    assert f"<p>Merci Ana for {number}</p>" in html
    assert html.startswith("<!DOCTYPE html>")
    # The text part of a customised HTML body is that body's text.
    assert confirmation.body == f"Merci Ana for {number}\n"
    assert notice.subject == f"New order {number}: 65.72 EUR (paid)"
    assert log() == [
        ("order_confirmation", "ana@example.com", "sent"),
        ("new_order", "shop@example.com", "sent"),
    ]
    row = SentEmail.objects.get(type="order_confirmation")
    assert (row.order_id, row.subject, row.error) == (body["order_id"], confirmation.subject, "")
    assert row.sent_at is not None


def test_a_type_that_is_off_is_not_sent(anon, shop, staff, django_capture_on_commit_callbacks):
    assert staff.patch(f"{TEMPLATES}/new_order", {"enabled": False}).status_code == 200
    checkout = started(anon, shop)
    with django_capture_on_commit_callbacks(execute=True):
        complete(anon, checkout["id"])
    assert [m.to for m in mail.outbox] == [["ana@example.com"]]
    assert log() == [("order_confirmation", "ana@example.com", "sent")]


def test_a_rolled_back_change_sends_and_records_nothing(db, django_capture_on_commit_callbacks):
    order = an_order("pending")

    def move_then_fail():
        with transaction.atomic():
            order_services.order_status_set(order_id=order.pk, status="completed")
            raise RuntimeError("rolled back")

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        move_then_fail()
    assert mail.outbox == []
    assert not SentEmail.objects.exists()


STATUS_MAILS = [
    ("pending", "on_hold", "order_on_hold", "is on hold"),
    ("pending", "processing", "order_processing", "is being prepared"),
    ("processing", "completed", "order_completed", "is complete"),
    ("processing", "cancelled", "order_cancelled", "was cancelled"),
    ("processing", "refunded", "order_refunded", "was refunded"),
]


@pytest.mark.parametrize(("old", "new", "slug", "words"), STATUS_MAILS)
def test_a_status_move_sends_its_e_mail(
    db, manager_client, old, new, slug, words, django_capture_on_commit_callbacks
):
    order = an_order(old)
    with django_capture_on_commit_callbacks(execute=True):
        response = manager_client.put(f"{API}/orders/{order.pk}/status", {"status": new})
    assert response.status_code == 200, response.content
    [message] = mail.outbox
    assert message.to == ["ana@example.com"]
    assert message.subject == f"Your Emporion Store order {order.order_number} {words}"
    assert f"/order-received/{order.pk}?key={order.order_key}" in message.body
    assert log() == [(slug, "ana@example.com", "sent")]
    assert SentEmail.objects.get().order_id == order.pk


@pytest.mark.parametrize(("old", "new"), [("pending", "failed"), ("processing", "shipped")])
def test_other_moves_send_nothing(db, manager_client, old, new, django_capture_on_commit_callbacks):
    order = an_order(old)
    with django_capture_on_commit_callbacks(execute=True):
        assert manager_client.put(f"{API}/orders/{order.pk}/status", {"status": new}).status_code
    assert mail.outbox == []
    assert not SentEmail.objects.exists()


def test_the_checkouts_own_moves_and_switched_off_types_send_nothing(
    db, django_capture_on_commit_callbacks
):
    order = an_order("pending")
    with django_capture_on_commit_callbacks(execute=True):
        order_services.order_status_set(
            order_id=order.pk, status="processing", source=OrderSource.CHECKOUT
        )
    assert mail.outbox == []
    settings_services.settings_update(
        section="emails", values={"disabled_types": ["order_completed"]}
    )
    with django_capture_on_commit_callbacks(execute=True):
        order_services.order_status_set(order_id=order.pk, status="completed")
    assert mail.outbox == []
    assert not SentEmail.objects.exists()


def test_an_order_without_an_address_sends_nothing(db, django_capture_on_commit_callbacks):
    order = an_order("pending", billing_address={"first_name": "No", "email": ""})
    with django_capture_on_commit_callbacks(execute=True):
        order_services.order_status_set(order_id=order.pk, status="processing")
    assert mail.outbox == []
    assert not SentEmail.objects.exists()


def test_a_customised_template_that_fails_with_real_data_falls_back_to_the_default(
    db, staff, django_capture_on_commit_callbacks
):
    # Passes the save check (the sample order has two lines); this order has one.
    source = "{{ 10 // (order.items|length - 1) }} items"
    assert staff.patch(f"{TEMPLATES}/order_completed", {"body_text": source}).status_code == 200
    order = an_order("processing")
    with django_capture_on_commit_callbacks(execute=True):
        order_services.order_status_set(order_id=order.pk, status="completed")
    [message] = mail.outbox
    assert "Thank you for shopping with us." in message.body
    row = SentEmail.objects.get()
    assert row.status == "sent"
    assert "The customised template failed" in row.note
    assert "ZeroDivisionError" in row.note


def test_the_task_sends_once_and_records_a_failure(db, monkeypatch):
    order = an_order("processing")
    order_services.order_status_set(order_id=order.pk, status="completed")  # queued, no commit
    render_status_emails()
    row = SentEmail.objects.get()
    kwargs = {
        "email_id": row.pk,
        "sender": "shop@example.com",
        "to": row.recipient,
        "subject": row.subject,
        "text": "body",
        "html": "<p>body</p>",
    }

    def broken(self, fail_silently=False):
        raise smtplib.SMTPServerDisconnected("the server went away")

    with monkeypatch.context() as patched:
        patched.setattr("django.core.mail.EmailMultiAlternatives.send", broken)
        with pytest.raises(smtplib.SMTPServerDisconnected):
            email_services.email_deliver(**kwargs)
    row.refresh_from_db()
    assert row.status == "failed"
    assert row.error == "SMTPServerDisconnected: the server went away"
    assert row.attempts == 1
    assert row.failed_at is not None
    assert mail.outbox == []
    # The retry (run here as a worker would) sends it; a redelivery sends nothing more.
    task = celery_app.tasks["store_emails.send"]
    assert task.apply(kwargs=kwargs).get() is True
    assert task.apply(kwargs=kwargs).get() is False
    assert len(mail.outbox) == 1
    assert mail.outbox[0].alternatives[0][0] == "<p>body</p>"
    row.refresh_from_db()
    assert (row.status, row.error, row.attempts) == ("sent", "", 2)
    assert row.sent_at is not None


def test_the_task_of_a_deleted_row_still_sends_once(db):
    kwargs = {"email_id": 999_999, "sender": "a@example.com", "to": "b@example.com"}
    kwargs |= {"subject": "S", "text": "T", "html": "<p>H</p>"}
    task = celery_app.tasks["store_emails.send"]
    assert task.apply(kwargs=kwargs).get() is True
    assert task.apply(kwargs=kwargs).get() is False
    assert len(mail.outbox) == 1


def render_status_emails() -> list:
    """Run the status e-mail tasks that wait in the outbox, as a worker would."""
    task = celery_app.tasks["store_emails.order_status"]
    waiting = OutboxMessage.objects.filter(task="store_emails.order_status", sent_at__isnull=True)
    return [task.apply(kwargs=outbox._open(row.payload)[1]).get() for row in waiting]


def test_a_status_move_only_enqueues_its_e_mail_the_task_renders_it_after_the_commit(db):
    order = an_order("processing")
    order_services.order_status_set(order_id=order.pk, status="completed")  # no commit here
    assert mail.outbox == []
    assert log() == []  # nothing rendered in the move's transaction
    [waiting] = OutboxMessage.objects.filter(sent_at__isnull=True)
    assert waiting.task == "store_emails.order_status"
    render_status_emails()
    assert log() == [("order_completed", "ana@example.com", "queued")]
    assert OutboxMessage.objects.filter(task="store_emails.send", sent_at__isnull=True).count() == 1


def test_the_status_task_records_once_per_move_and_tells_of_that_move(db):
    order = an_order("processing")
    order_services.order_status_set(order_id=order.pk, status="cancelled")
    change = OrderStatusChange.objects.filter(order=order).latest("id")
    order_services.order_status_set(order_id=order.pk, status="processing")  # moved on since
    task = celery_app.tasks["store_emails.order_status"]
    first = task.apply(kwargs={"change_id": change.pk}).get()
    assert task.apply(kwargs={"change_id": change.pk}).get() is None  # a redelivery
    row = SentEmail.objects.get(pk=first)
    assert (row.type, row.order_id) == ("order_cancelled", order.pk)
    assert "was cancelled" in row.subject
    assert task.apply(kwargs={"change_id": 999_999}).get() is None  # no such change


# --- Account e-mails --------------------------------------------------------------------------


def test_the_checkouts_new_account_e_mail_is_the_stores(
    anon, shop, staff, django_capture_on_commit_callbacks
):
    staff.patch(f"{TEMPLATES}/customer_new_account", {"subject": "Welcome {{ account.name }}"})
    started(anon, shop, email="")
    with django_capture_on_commit_callbacks(execute=True):
        response = anon.post(
            f"{API}/checkout/create-account",
            {"email": "new@example.com", "password": "Sturdy-Passphrase-2026", "name": "Nia"},
            format="json",
        )
    assert response.status_code == 201, response.content
    [message] = mail.outbox
    assert (message.to, message.subject) == (["new@example.com"], "Welcome Nia")
    assert "/verify-email?token=" in message.body
    assert log() == [("customer_new_account", "new@example.com", "sent")]


def test_a_store_customers_password_reset_and_verification_are_the_stores(
    db, django_capture_on_commit_callbacks
):
    user = UserFactory(email="buyer@example.com", name="Bea Buyer")
    user.email_verified = True
    user.save()
    customer_for_user(user=user)
    with django_capture_on_commit_callbacks(execute=True):
        account_services.password_reset_request(email="buyer@example.com")
    [message] = mail.outbox
    assert message.subject == "Reset your Emporion Store password"
    assert "Hello Bea Buyer" in message.body
    assert "/reset-password?token=" in message.body
    user.email_verified = False
    user.save()
    with django_capture_on_commit_callbacks(execute=True):
        account_services.verification_resend(email="buyer@example.com")
    assert mail.outbox[1].subject == "Confirm your e-mail address for Emporion Store"
    assert log() == [
        ("customer_password_reset", "buyer@example.com", "sent"),
        ("customer_verify_email", "buyer@example.com", "sent"),
    ]


def test_other_accounts_keep_the_portals_e_mails(db, django_capture_on_commit_callbacks):
    UserFactory(email="dev@example.com")
    with django_capture_on_commit_callbacks(execute=True):
        account_services.password_reset_request(email="dev@example.com")
    [message] = mail.outbox
    assert message.subject == "Reset your Emporion password"
    assert not SentEmail.objects.exists()


def test_an_e_mail_that_cannot_be_rendered_is_recorded_failed_and_the_move_stands(
    db, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(types, "_read", lambda slug, part: "{{ 1 // 0 }}")
    order = an_order("processing")
    with django_capture_on_commit_callbacks(execute=True):
        order_services.order_status_set(order_id=order.pk, status="completed")
    order.refresh_from_db()
    assert order.status == "completed"
    assert mail.outbox == []
    row = SentEmail.objects.get()
    assert (row.type, row.status, row.recipient) == ("order_completed", "failed", "ana@example.com")
    assert row.error.startswith("Not rendered: The template failed: ZeroDivisionError")
    assert not OutboxMessage.objects.filter(task="store_emails.send").exists()


# --- On a worker: the status task sends its e-mail itself -----------------------------------------


def test_on_a_worker_the_status_task_sends_its_e_mail_itself_after_its_commit(
    db, django_capture_on_commit_callbacks
):
    from tests.outbox import broker_up

    order = an_order("processing")
    order_services.order_status_set(order_id=order.pk, status="completed")
    [change] = OutboxMessage.objects.filter(task="store_emails.order_status")
    task = celery_app.tasks["store_emails.order_status"]
    with broker_up() as publish, django_capture_on_commit_callbacks(execute=True):
        task.apply(kwargs=outbox._open(change.payload)[1]).get()
    assert publish.call_count == 0  # no second task through the broker
    assert [m.subject for m in mail.outbox] == [SentEmail.objects.get().subject]
    assert log() == [("order_completed", "ana@example.com", "sent")]
    send = OutboxMessage.objects.get(task="store_emails.send")
    assert send.acked_at is not None  # done: nothing for the drain to send again
    assert bytes(send.payload) == b""


def test_on_a_worker_a_status_e_mail_that_fails_to_leave_waits_for_the_broker(
    db, django_capture_on_commit_callbacks, monkeypatch
):
    from tests.outbox import broker_up

    order = an_order("processing")
    order_services.order_status_set(order_id=order.pk, status="completed")
    [change] = OutboxMessage.objects.filter(task="store_emails.order_status")
    task = celery_app.tasks["store_emails.order_status"]

    def broken(self, fail_silently=False):
        raise smtplib.SMTPServerDisconnected("the server went away")

    with broker_up() as publish, monkeypatch.context() as patched:
        patched.setattr("django.core.mail.EmailMultiAlternatives.send", broken)
        with django_capture_on_commit_callbacks(execute=True):
            task.apply(kwargs=outbox._open(change.payload)[1]).get()  # the task itself stands
    assert publish.call_count == 0
    assert log() == [("order_completed", "ana@example.com", "failed")]
    send = OutboxMessage.objects.get(task="store_emails.send")
    assert send.sent_at is None  # waits for the drain, which sends it through the broker
    assert send.acked_at is None
    assert send.last_error == "SMTPServerDisconnected: the server went away"
    assert mail.outbox == []
    # the drain (eager here, as a worker would run it) sends it once the back-off is over
    outbox.publish([send.pk])
    assert log() == [("order_completed", "ana@example.com", "sent")]
    assert len(mail.outbox) == 1
