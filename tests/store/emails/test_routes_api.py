"""/emails/templates/{type}/preview, /emails/test, /emails/resend/{order_id}, /emails/settings."""

from __future__ import annotations

import pytest
from django.core import mail

from store.emails.models import EmailTemplate, SentEmail
from store.settings import services as settings_services
from store.settings.models import SettingsSection
from tests.fixtures.store import API, error
from tests.store.emails.helpers import (
    ACCOUNT_TYPES,
    ALL_TYPES,
    EMAILS,
    ORDER_TYPES,
    SETTINGS,
    TEMPLATES,
    TEST,
    an_order,
    csrf_client,
    log,
    send,
)

pytestmark = pytest.mark.django_db

PREVIEW = f"{TEMPLATES}/order_confirmation/preview"
BIGINT_PAST = 2**63


def resend(order_id) -> str:
    return f"{EMAILS}/resend/{order_id}"


# --- Preview ---------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", ALL_TYPES)
def test_every_type_previews_with_sample_data(staff, slug):
    response = staff.get(f"{TEMPLATES}/{slug}/preview")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["type"], body["sample"], body["order_id"], body["note"]) == (slug, True, None, "")
    assert body["subject"]
    assert body["html"].startswith("<!DOCTYPE html>")
    assert "Emporion Store" in body["html"]
    assert body["text"].strip()
    assert not SentEmail.objects.exists()
    assert mail.outbox == []


def test_preview_with_an_orders_data(staff, django_assert_max_num_queries):
    order = an_order("on_hold")
    with django_assert_max_num_queries(12):
        response = staff.get(PREVIEW, {"order_id": order.pk})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["sample"], body["order_id"]) == (False, order.pk)
    assert body["subject"] == f"We have received your Emporion Store order {order.order_number}"
    assert "2 x Lamp (LAMP)    40.00 EUR" in body["text"]
    assert f"/order-received/{order.pk}?key={order.order_key}" in body["html"]
    assert "Reference: " + order.order_number in body["text"]  # the bank's instructions


def test_preview_a_draft_without_saving_it(staff):
    response = staff.post(
        PREVIEW,
        {"subject": "Draft {{ order.number }}", "body_html": "<b>{{ customer.email }}</b>"},
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["subject"] == "Draft EC-123456"
    assert "<b>ana@example.com</b>" in body["html"]
    assert body["text"] == "ana@example.com\n"
    assert not EmailTemplate.objects.exclude(subject="").exists()
    bad = error(staff.post(PREVIEW, {"body_html": "{{ order.__class__ }}"}), 400)
    assert bad["code"] == "invalid_template"
    assert "body_html" in bad["data"]["params"]


def test_preview_refusals(staff, anon, manager_client):
    error(staff.get(PREVIEW, {"order_id": 999_999}), 404, "order_not_found")
    error(staff.get(PREVIEW, {"order_id": "abc"}), 400, "invalid_param")
    error(staff.get(PREVIEW, {"order_id": BIGINT_PAST}), 400, "invalid_param")
    error(staff.get(PREVIEW, {"order_id": 0}), 400, "invalid_param")
    error(staff.post(PREVIEW, {"order_id": "one"}, format="json"), 400, "invalid_param")
    error(staff.post(PREVIEW, [1], format="json"), 400)
    order = an_order()
    error(
        staff.get(f"{TEMPLATES}/customer_password_reset/preview", {"order_id": order.pk}),
        400,
        "invalid_param",
    )
    error(staff.get(f"{TEMPLATES}/nope/preview"), 404, "email_type_not_found")
    error(anon.get(PREVIEW), 401)
    error(manager_client.get(PREVIEW), 403, "insufficient_capability")
    error(manager_client.post(PREVIEW, {}), 403, "insufficient_capability")


# --- Test e-mails ----------------------------------------------------------------------------


def test_a_test_e_mail_goes_to_the_address_with_sample_data(
    staff, mail_manager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(TEST, {"type": "order_completed", "to": "me@example.com"})
    assert response.status_code == 202, response.content
    body = response.json()
    assert (body["type"], body["recipient"], body["status"]) == (
        "order_completed",
        "me@example.com",
        "queued",
    )
    assert body["subject"] == "[Test] Your Emporion Store order EC-123456 is complete"
    assert body["note"] == f"Test sent by {mail_manager}."
    [message] = mail.outbox
    assert (message.to, message.subject) == (["me@example.com"], body["subject"])
    assert log() == [("order_completed", "me@example.com", "sent")]


def test_a_test_e_mail_with_an_orders_data_even_while_the_type_is_off(
    staff, django_capture_on_commit_callbacks
):
    order = an_order("processing")
    staff.patch(f"{TEMPLATES}/order_processing", {"enabled": False})
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(
            TEST, {"type": "order_processing", "to": "me@example.com", "order_id": order.pk}
        )
    assert response.status_code == 202, response.content
    assert response.json()["order_id"] == order.pk
    assert order.order_number in mail.outbox[0].subject


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"type": "order_completed"}, 400),
        ({"to": "me@example.com"}, 400),
        ({"type": "nope", "to": "me@example.com"}, 400),
        ({"type": ["order_completed"], "to": "me@example.com"}, 400),
        ({"type": "order_completed", "to": "not an address"}, 400),
        ({"type": "order_completed", "to": "me@example.com\x00"}, 400),
        ({"type": "order_completed", "to": "me@example.com", "order_id": BIGINT_PAST}, 400),
        ({"type": "order_completed", "to": "me@example.com", "order_id": True}, 400),
        ({"type": "order_completed", "to": "me@example.com", "order_id": 999_999}, 404),
        ({"type": "customer_password_reset", "to": "me@example.com", "order_id": 1}, 400),
        (["order_completed"], 400),
    ],
)
def test_test_e_mail_refusals(staff, body, status):
    error(staff.post(TEST, body, format="json"), status)
    assert not SentEmail.objects.exists()


def test_test_e_mails_are_rate_limited(staff, settings):
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "email_test": "2/hour"},
    }
    body = {"type": "order_completed", "to": "me@example.com"}
    assert staff.post(TEST, body).status_code == 202
    assert staff.post(TEST, body).status_code == 202
    response = staff.post(TEST, body)
    error(response, 429, "throttled")
    assert int(response["Retry-After"]) > 0
    assert SentEmail.objects.count() == 2


def test_who_may_send_a_test(anon, customer_client, manager_client):
    body = {"type": "order_completed", "to": "me@example.com"}
    error(anon.post(TEST, body), 401)
    error(customer_client.post(TEST, body), 403, "insufficient_capability")
    error(manager_client.post(TEST, body), 403, "insufficient_capability")
    assert not SentEmail.objects.exists()


# --- Resend ----------------------------------------------------------------------------------


def test_resend_the_confirmation_and_other_order_e_mails(
    staff, mail_manager, django_capture_on_commit_callbacks
):
    order = an_order("processing")
    settings_services.settings_update(section="general", values={"store_email": "shop@example.com"})
    with django_capture_on_commit_callbacks(execute=True):
        first = staff.post(resend(order.pk), {})
        second = staff.post(resend(order.pk), {"type": "new_order"})
        third = staff.post(resend(order.pk), {"type": "order_refunded"})
    for response in (first, second, third):
        assert response.status_code == 202, response.content
    assert first.json()["note"] == f"Resent by {mail_manager}."
    assert [m.to for m in mail.outbox] == [
        ["ana@example.com"],
        ["shop@example.com"],
        ["ana@example.com"],
    ]
    assert mail.outbox[0].subject.startswith("We have received your Emporion Store order")
    assert log(order=order) == [
        ("order_confirmation", "ana@example.com", "sent"),
        ("new_order", "shop@example.com", "sent"),
        ("order_refunded", "ana@example.com", "sent"),
    ]


def test_resend_refusals(staff):
    order = an_order("processing")
    error(staff.post(resend(999_999), {}), 404, "order_not_found")
    assert staff.post(resend(BIGINT_PAST), {}).status_code == 404  # the path does not match
    assert staff.post(f"{EMAILS}/resend/abc", {}).status_code == 404
    error(staff.post(resend(order.pk), {"type": "customer_password_reset"}), 400)
    error(staff.post(resend(order.pk), {"type": 3}, format="json"), 400)
    error(staff.post(resend(order.pk), ["new_order"], format="json"), 400)
    error(staff.post(resend(order.pk), {"type": "new_order"}), 409, "no_store_email")
    bare = an_order("processing", billing_address={"first_name": "No"})
    error(staff.post(resend(bare.pk), {}), 409, "order_has_no_email")
    assert not SentEmail.objects.exists()


def test_who_may_resend(anon, customer_client, manager_client):
    order = an_order()
    error(anon.post(resend(order.pk), {}), 401)
    error(customer_client.post(resend(order.pk), {}), 403)
    error(manager_client.post(resend(order.pk), {}), 403)
    assert not SentEmail.objects.exists()


# --- Settings --------------------------------------------------------------------------------


def test_read_and_change_the_settings(staff):
    body = staff.get(SETTINGS).json()
    assert body == {
        "sender_name": "",
        "sender_address": "",
        "from": "Emporion Store <no-reply@localhost>",
        "enabled_types": ALL_TYPES,
        "disabled_types": [],
    }
    response = staff.patch(SETTINGS, {"sender_name": "Lamp Shop", "sender_address": "a@b.test"})
    assert response.status_code == 200, response.content
    assert response.json()["from"] == "Lamp Shop <a@b.test>"
    enabled = [slug for slug in ALL_TYPES if slug not in ("new_order", "order_on_hold")]
    response = staff.put(SETTINGS, {"enabled_types": enabled})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["enabled_types"], body["disabled_types"]) == (
        enabled,
        ["new_order", "order_on_hold"],
    )
    assert body["sender_name"] == "Lamp Shop"  # PUT changes only what it is given
    listed = {t["type"]: t["enabled"] for t in staff.get(TEMPLATES).json()["templates"]}
    assert listed["new_order"] is False
    assert listed["order_completed"] is True
    # The same values through the store settings' own section.
    assert SettingsSection.objects.get(name="emails").values["disabled_types"] == [
        "new_order",
        "order_on_hold",
    ]


@pytest.mark.parametrize(
    "body",
    [
        {"sender_address": "nope"},
        {"sender_name": 12},
        {"sender_name": "x" * 201},
        {"sender_name": "a\x00"},
        {"enabled_types": "order_completed"},
        {"enabled_types": [1]},
        {"enabled_types": ["nope", *ALL_TYPES]},
        {"enabled_types": ORDER_TYPES},  # leaves out the account e-mails
        [],
        "x",
    ],
)
def test_settings_refusals_change_nothing(staff, body):
    response = staff.patch(SETTINGS, body, format="json")
    assert response.status_code == 400, response.content
    assert not SettingsSection.objects.filter(name="emails").exists()


def test_account_e_mails_cannot_be_switched_off(staff):
    body = error(staff.patch(SETTINGS, {"enabled_types": ORDER_TYPES}), 400)
    assert body["code"] == "email_type_required"
    assert all(slug in body["message"] for slug in ACCOUNT_TYPES)


def test_who_may_read_and_change_the_settings(anon, customer_client, manager_client):
    error(anon.get(SETTINGS), 401)
    for client in (customer_client, manager_client):
        error(client.get(SETTINGS), 403, "insufficient_capability")
        error(client.patch(SETTINGS, {"sender_name": "x"}), 403, "insufficient_capability")
    assert not SettingsSection.objects.filter(name="emails").exists()


def test_unsafe_methods_need_the_nonce_with_a_session(mail_manager):
    browser = csrf_client()
    browser.force_login(mail_manager)
    order = an_order()
    calls = [
        ("patch", SETTINGS, {"sender_name": "x"}),
        ("put", SETTINGS, {"sender_name": "x"}),
        ("post", TEST, {"type": "order_completed", "to": "me@example.com"}),
        ("post", resend(order.pk), {}),
        ("post", PREVIEW, {}),
    ]
    for method, path, body in calls:
        response = send(browser, method, path, body)
        assert response.status_code == 401, (method, path, response.content)
    assert not SentEmail.objects.exists()
    assert not SettingsSection.objects.filter(name="emails").exists()
    nonce = browser.get(f"{API}/auth/nonce").json()["nonce"]
    response = send(browser, "post", TEST, calls[2][2], **{"X-Platform-Nonce": nonce})
    assert response.status_code == 202, response.content
    wrong = send(browser, "patch", SETTINGS, {"sender_name": "x"}, **{"X-Platform-Nonce": "bad"})
    assert wrong.status_code in (401, 403)
    assert not SettingsSection.objects.filter(name="emails").exists()


def test_a_retried_resend_with_its_idempotency_key_sends_once(
    staff, django_capture_on_commit_callbacks
):
    order = an_order("processing")
    with django_capture_on_commit_callbacks(execute=True):
        first = staff.post(resend(order.pk), {}, HTTP_IDEMPOTENCY_KEY="resend-1")
        again = staff.post(resend(order.pk), {}, HTTP_IDEMPOTENCY_KEY="resend-1")
    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert len(mail.outbox) == 1
    assert SentEmail.objects.count() == 1
