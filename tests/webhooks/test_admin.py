import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from tests.webhooks.factories import WebhookFactory
from webhooks import signing
from webhooks.models import Delivery, DeliveryAttempt, Webhook

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_private")]


@pytest.fixture
def logged(receiver):
    webhook = WebhookFactory(url=receiver.url)
    receiver.secret = webhook.secret
    delivery = Delivery.objects.create(
        webhook=webhook,
        event="license.created",
        body=signing.build_body(event="license.created", moment=timezone.now(), data={"a": 1}),
        status=Delivery.Status.FAILED,
        attempts=1,
    )
    entry = DeliveryAttempt.objects.create(
        webhook=webhook,
        delivery=delivery,
        attempt=1,
        event="license.created",
        status_code=500,
        outcome="http_error",
        error="The receiver answered 500.",
        response_body="oops",
    )
    return webhook, delivery, entry


@pytest.mark.parametrize("model", ["webhook", "delivery", "deliveryattempt"])
def test_changelists_and_change_pages_render(admin_client, logged, model):
    webhook, delivery, entry = logged
    obj = {"webhook": webhook, "delivery": delivery, "deliveryattempt": entry}[model]
    changelist = admin_client.get(reverse(f"admin:webhooks_{model}_changelist") + "?q=example")
    assert changelist.status_code == 200
    page = admin_client.get(reverse(f"admin:webhooks_{model}_change", args=[obj.pk]))
    assert page.status_code == 200
    assert webhook.secret not in page.content.decode()
    # Webhooks are created by their accounts (the secret is shown to them once).
    assert admin_client.get(reverse(f"admin:webhooks_{model}_add")).status_code == 403


def test_delivery_page_shows_its_attempts(admin_client, logged):
    _webhook, delivery, _entry = logged
    page = admin_client.get(reverse("admin:webhooks_delivery_change", args=[delivery.pk]))
    content = page.content.decode()
    assert "The receiver answered 500." in content
    assert "oops" in content  # staff may read the receiver's (truncated) answer


def test_redeliver_action_sends_the_delivery_again(
    admin_client, logged, receiver, django_capture_on_commit_callbacks
):
    _webhook, delivery, _entry = logged
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            reverse("admin:webhooks_delivery_changelist"),
            {"action": "redeliver", "_selected_action": [delivery.pk]},
            follow=True,
        )
    assert response.status_code == 200
    assert "1 delivery(ies) queued again." in [str(m) for m in get_messages(response.wsgi_request)]
    assert len(receiver.received) == 1
    assert receiver.received[0].headers["X-Hub-Delivery"] == str(delivery.uuid)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (Delivery.Status.SUCCEEDED, 2)


def test_redeliver_action_from_the_log_and_its_refusal(
    admin_client, logged, receiver, django_capture_on_commit_callbacks
):
    webhook, _delivery, entry = logged
    Webhook.objects.filter(pk=webhook.pk).update(is_active=False)
    response = admin_client.post(
        reverse("admin:webhooks_deliveryattempt_changelist"),
        {"action": "redeliver", "_selected_action": [entry.pk]},
        follow=True,
    )
    shown = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("set is_active to true" in m for m in shown)
    assert receiver.received == []

    Webhook.objects.filter(pk=webhook.pk).update(is_active=True)
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(
            reverse("admin:webhooks_deliveryattempt_changelist"),
            {"action": "redeliver", "_selected_action": [entry.pk]},
        )
    assert len(receiver.received) == 1


def test_enable_and_disable_actions_use_the_service(admin_client, logged):
    webhook, _delivery, _entry = logged
    pending = Delivery.objects.create(webhook=webhook, event="license.created", body="{}")
    url = reverse("admin:webhooks_webhook_changelist")
    admin_client.post(url, {"action": "disable", "_selected_action": [webhook.pk]})
    webhook.refresh_from_db()
    pending.refresh_from_db()
    assert (webhook.is_active, webhook.disabled_reason) == (False, "Disabled by staff.")
    assert pending.status == Delivery.Status.FAILED
    admin_client.post(url, {"action": "enable", "_selected_action": [webhook.pk]})
    webhook.refresh_from_db()
    assert (webhook.is_active, webhook.disabled_reason) == (True, "")
