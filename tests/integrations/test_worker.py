"""A store event delivered through a real Celery worker over Redis, signed, to a real receiver
(needs REDIS_URL and PostgreSQL: the worker is another process reading committed rows)."""

from __future__ import annotations

import pytest

from tests.integrations.conftest import store_webhook
from tests.store.catalog.factories import make_product
from tests.webhooks.test_worker import Worker, wait_until, workers  # noqa: F401
from webhooks.models import Delivery, DeliveryAttempt

pytestmark = [
    pytest.mark.redis,
    pytest.mark.postgresql_only,
    pytest.mark.django_db(transaction=True),
]


@pytest.mark.slow(reason="a real Celery worker process started, and the delivery waited for")
def test_a_store_event_goes_through_a_real_worker(
    workers,  # noqa: F811
    receiver,
    settings,
):
    settings.WEBHOOKS_ALLOW_PRIVATE_URLS = True
    hook = store_webhook(url=receiver.url, events=["product.created"])
    receiver.secret = hook.secret
    worker = workers("store-hooks")

    product = make_product(title="Desk lamp", sku="DL-9")  # commits: the worker sends it

    wait_until(
        lambda: Delivery.objects.filter(status=Delivery.Status.SUCCEEDED).exists(),
        timeout=40,
        what="the store event to be delivered",
        workers=[worker],
    )
    (received,) = receiver.received
    assert received.verified  # X-Hub-Signature-256 checked by the receiver with the secret
    assert received.headers["X-Hub-Event"] == "product.created"
    delivery = Delivery.objects.get()
    assert received.headers["X-Hub-Delivery"] == str(delivery.uuid)
    assert received.json["data"]["product"] == {
        **received.json["data"]["product"],
        "product_id": product.pk,
        "sku": "DL-9",
        "title": "Desk lamp",
    }
    assert list(DeliveryAttempt.objects.values_list("outcome", flat=True)) == ["success"]
