"""Store webhooks in the webhooks admin: listed beside the portal's (filter by scope), their
pages without the secret, enable/disable through the services (the cached subscriptions
follow), and no add page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from common import events
from tests.integrations.conftest import store_webhook
from tests.webhooks.factories import WebhookFactory
from webhooks import services
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db


def test_store_webhooks_are_listed_and_shown_without_their_secret(admin_client):
    hook = store_webhook(description="ERP sync")
    portal = WebhookFactory(url="https://hooks.example.com/portal")
    changelist = reverse("admin:webhooks_webhook_changelist")
    listed = admin_client.get(changelist, {"scope__exact": "store"})
    assert listed.status_code == 200
    content = listed.content.decode()
    assert hook.url in content
    assert portal.url not in content
    page = admin_client.get(reverse("admin:webhooks_webhook_change", args=[hook.pk]))
    assert page.status_code == 200
    assert hook.secret not in page.content.decode()
    assert "ERP sync" in page.content.decode()
    assert admin_client.get(reverse("admin:webhooks_webhook_add")).status_code == 403
    deliveries = admin_client.get(
        reverse("admin:webhooks_delivery_changelist"), {"webhook__scope__exact": "store"}
    )
    assert deliveries.status_code == 200


def test_disable_and_enable_go_through_the_services(admin_client):
    hook = store_webhook(events=["order.created"])
    services.store_events_subscribed()  # cached: wanted
    url = reverse("admin:webhooks_webhook_changelist")
    admin_client.post(url, {"action": "disable", "_selected_action": [hook.pk]})
    hook.refresh_from_db()
    assert (hook.is_active, hook.disabled_reason) == (False, "Disabled by staff.")
    events.publish_store("order.created", {})
    assert not Delivery.objects.exists()
    admin_client.post(url, {"action": "enable", "_selected_action": [hook.pk]})
    events.publish_store("order.created", {})
    assert Delivery.objects.get().webhook_id == hook.pk
