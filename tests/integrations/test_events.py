"""Each store event is recorded exactly once by the real service call, inside its transaction:
nothing on rollback, nothing for webhooks not subscribed or inactive, and at most a cache read
(or one query) while no store webhook wants the event."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.cache import cache
from django.db import transaction

from common import events
from common.models import OutboxMessage
from store.catalog.services import products as product_services
from store.customers import services as customer_services
from store.orders import services as order_services
from store.payments import services as payment_services
from tests.accounts.factories import UserFactory
from tests.integrations.conftest import store_webhook
from tests.store.catalog.factories import make_product
from tests.store.orders.factories import line, make_order, stocked
from tests.webhooks.factories import WebhookFactory
from webhooks import services
from webhooks.models import Delivery, StoreEvent

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.delete(services.STORE_EVENTS_CACHE_KEY)
    yield
    cache.delete(services.STORE_EVENTS_CACHE_KEY)


@pytest.fixture
def hook():
    return store_webhook()


def sent(event: str) -> list[dict]:
    """The `data` of every delivery of `event`, oldest first."""
    return [d.payload["data"] for d in Delivery.objects.filter(event=event).order_by("id")]


def test_order_created_once_with_its_order(hook):
    lamp = stocked(title="Lamp", price="12.50", stock=10)
    order = make_order(line(lamp, 2), billing_address={"email": "ann@example.com"})
    (data,) = sent("order.created")
    body = data["order"]
    assert body["order_id"] == order.pk
    assert body["number"] == order.order_number
    assert (body["status"], body["payment_status"], body["currency"]) == (
        "pending",
        "unpaid",
        order.currency,
    )
    assert (body["subtotal"], body["total"], body["item_count"]) == ("25.00", "25.00", 2)
    assert body["customer_id"] == order.customer_id
    assert "billing_address" not in body
    assert body["created_at"].endswith("+00:00")
    (delivery,) = Delivery.objects.filter(event="order.created")
    assert delivery.payload["event"] == "order.created"
    assert delivery.webhook_id == hook.pk


def test_order_status_changed_once_per_move(hook):
    order = make_order(line(stocked()))
    order_services.order_status_set(order_id=order.pk, status="processing")
    order_services.order_status_set(order_id=order.pk, status="processing")  # the same: none
    order_services.order_status_set(order_id=order.pk, status="completed")
    moves = [(d["from"], d["to"], d["order"]["status"]) for d in sent("order.status_changed")]
    assert moves == [
        ("pending", "processing", "processing"),
        ("processing", "completed", "completed"),
    ]


def test_order_paid_once_when_the_payments_cover_it_then_refunded(hook):
    order = make_order(line(stocked(price="10.00")), status="processing")
    order_services.payment_create(
        order_id=order.pk, fields={"amount": Decimal("4.00"), "status": "completed"}
    )
    assert sent("order.paid") == []  # partially paid
    order_services.payment_create(
        order_id=order.pk, fields={"amount": Decimal("6.00"), "status": "completed"}
    )
    (paid,) = sent("order.paid")
    assert (paid["order"]["payment_status"], paid["order"]["amount_paid"]) == ("paid", "10.00")
    assert paid["order"]["paid_at"] is not None

    payment_services.refund_create(order_id=order.pk, amount=Decimal("3.00"), reason="Dent")
    (refunded,) = sent("order.refunded")
    assert refunded["amount"] == "-3.00"  # money going back, as the refund's answer says
    assert refunded["restocked"] is False
    assert [r["amount"] for r in refunded["refunds"]] == ["-3.00"]
    assert refunded["order"]["payment_status"] == "partially_refunded"
    assert refunded["order"]["amount_refunded"] == "3.00"
    assert len(sent("order.paid")) == 1


def test_order_paid_when_set_by_hand(hook):
    order = make_order(line(stocked()))
    order_services.order_payment_status_set(order_id=order.pk, payment_status="paid")
    order_services.order_payment_status_set(order_id=order.pk, payment_status="paid")
    assert [d["order"]["order_id"] for d in sent("order.paid")] == [order.pk]


def test_product_created_updated_duplicated_deleted(hook):
    product = make_product(title="Desk lamp", sku="DL-1", regular_price="30.00")
    product_services.product_update(product_id=product.pk, fields={"sale_price": Decimal("25")})
    copy = product_services.product_duplicate(product_id=product.pk)
    product_services.product_delete(product_id=product.pk)
    created = sent("product.created")
    assert [c["product"]["product_id"] for c in created] == [product.pk, copy.pk]
    assert created[0]["product"]["sku"] == "DL-1"
    assert created[0]["product"]["regular_price"] == "30.00"
    (updated,) = sent("product.updated")
    assert updated["changed"] == ["sale_price"]
    assert updated["product"]["price"] == "25.00"
    assert sent("product.deleted") == [
        {
            "product": {
                "product_id": product.pk,
                "sku": "DL-1",
                "title": "Desk lamp",
                "slug": product.slug,
            }
        }
    ]


def test_stock_low_once_per_downward_crossing(hook, settings):
    lamp = make_product(
        title="Lamp", sku="LAMP", track_inventory=True, stock_quantity=10, low_stock_threshold=3
    )

    def stock(quantity):
        product_services.product_update(product_id=lamp.pk, fields={"stock_quantity": quantity})

    stock(5)
    assert sent("stock.low") == []
    stock(3)  # crosses: at the threshold
    stock(2)  # stays low: nothing more
    stock(10)
    make_order(line(lamp, 9))  # an order takes it down across the threshold again
    lows = sent("stock.low")
    assert [(d["previous_quantity"], d["stock_quantity"]) for d in lows] == [(5, 3), (10, 1)]
    assert lows[0] == {
        "product_id": lamp.pk,
        "variant_id": None,
        "sku": "LAMP",
        "title": "Lamp",
        "stock_quantity": 3,
        "previous_quantity": 5,
        "low_stock_threshold": 3,
    }


def test_stock_low_uses_the_stores_threshold_and_skips_untracked_items(hook):
    # The store's inventory setting is 2 by default.
    mug = make_product(title="Mug", track_inventory=True, stock_quantity=5)
    product_services.product_update(product_id=mug.pk, fields={"stock_quantity": 2})
    untracked = make_product(title="Poster", track_inventory=False)
    product_services.product_update(
        product_id=untracked.pk, fields={"stock_status": "out_of_stock"}
    )
    assert [(d["product_id"], d["low_stock_threshold"]) for d in sent("stock.low")] == [(mug.pk, 2)]


def test_customer_created_by_every_door_once(hook):
    customer = customer_services.customer_create(fields={"email": "Ann@Example.com"})
    customer_services.customer_for_email(email="ann@example.com")  # exists: nothing
    by_order = customer_services.customer_for_email(email="bob@example.com")
    user = UserFactory(email="cy@example.com", email_verified=True)
    by_account = customer_services.customer_for_user(user=user)
    created = [d["customer"] for d in sent("customer.created")]
    assert [c["customer_id"] for c in created] == [customer.pk, by_order.pk, by_account.pk]
    assert created[0]["email"] == "ann@example.com"
    assert created[2]["user_id"] == user.pk


def test_a_rolled_back_change_records_and_sends_nothing(hook):
    lamp = stocked()
    before = (Delivery.objects.count(), OutboxMessage.objects.count())

    def change_then_fail():
        with transaction.atomic():
            make_order(line(lamp))
            make_product(title="Ghost")
            customer_services.customer_create(fields={"email": "ghost@example.com"})
            assert Delivery.objects.count() == before[0] + 3  # recorded in the transaction
            raise RuntimeError("undo")

    with pytest.raises(RuntimeError):
        change_then_fail()
    assert (Delivery.objects.count(), OutboxMessage.objects.count()) == before


def test_only_active_store_webhooks_subscribed_to_the_event_get_it():
    orders_only = store_webhook(url="https://hooks.example.com/orders", events=["order.created"])
    products = store_webhook(url="https://hooks.example.com/products", events=["product.created"])
    off = store_webhook(url="https://hooks.example.com/off", is_active=False)
    portal = WebhookFactory()  # an account's webhook never gets store events
    make_order(line(stocked()))
    by_hook = sorted(Delivery.objects.values_list("webhook_id", "event"))
    assert by_hook == sorted([(orders_only.pk, "order.created"), (products.pk, "product.created")])
    assert not Delivery.objects.filter(webhook__in=[off, portal]).exists()


def test_without_store_webhooks_publishing_costs_at_most_one_query(
    django_assert_num_queries,
):
    WebhookFactory()  # portal webhooks do not count
    with django_assert_num_queries(1):
        events.publish_store("order.created", {"order": {}})
    with django_assert_num_queries(0):  # cached until a store webhook is written
        events.publish_store("order.created", {"order": {}})
        events.publish_store("stock.low", {})
    hook = store_webhook(events=["stock.low"])  # forgets the cached answer
    events.publish_store("stock.low", {})
    assert [d.webhook_id for d in Delivery.objects.all()] == [hook.pk]
    with django_assert_num_queries(0):  # subscribed to something else: still a cache read
        events.publish_store("order.created", {"order": {}})
    services.webhook_update(webhook=hook, events=["order.created"])
    events.publish_store("order.created", {"order": {}})
    assert Delivery.objects.filter(event="order.created").count() == 1


def test_a_cache_that_lost_the_invalidation_is_only_stale_for_its_lifetime(hook, settings):
    cache.set(services.STORE_EVENTS_CACHE_KEY, [], services.STORE_EVENTS_CACHE_SECONDS)
    events.publish_store("order.created", {})  # the (wrongly) cached "nobody wants it"
    assert not Delivery.objects.exists()
    cache.delete(services.STORE_EVENTS_CACHE_KEY)  # expired
    events.publish_store("order.created", {})
    assert Delivery.objects.count() == 1


def test_unknown_store_events_are_a_programming_error():
    with pytest.raises(ValueError, match="unknown store event"):
        services.emit_store_many([("order.shipped", {})])
    assert set(StoreEvent.values) >= {"order.created", "stock.low", "customer.created"}


def test_the_event_is_sent_after_the_commit_signed(hook, receiver, allow_private, on_commit):
    services.webhook_update(webhook=hook, url=receiver.url)
    hook.refresh_from_db()
    receiver.secret = hook.secret
    with on_commit():
        product = make_product(title="Shade", sku="SH-1")
        assert receiver.received == []  # nothing leaves before the commit
    (received,) = receiver.received
    assert received.verified
    assert received.headers["X-Hub-Event"] == "product.created"
    assert received.json["data"]["product"]["product_id"] == product.pk
    assert Delivery.objects.get().status == "succeeded"


def test_stock_low_for_a_variant_takes_its_products_threshold(hook):
    from store.catalog.services import variants as variant_services
    from tests.store.catalog.factories import AttributeFactory, TermFactory, make_variant

    shirt = make_product(title="Shirt", type="variable", low_stock_threshold=4)
    size = AttributeFactory(slug="size")
    large = make_variant(
        shirt,
        TermFactory(attribute=size, slug="l"),
        sku="SH-L",
        track_inventory=True,
        stock_quantity=6,
        regular_price="20.00",
    )
    variant_services.variant_update(variant_id=large.pk, fields={"stock_quantity": 4})
    (low,) = sent("stock.low")
    assert (low["product_id"], low["variant_id"], low["sku"]) == (shirt.pk, large.pk, "SH-L")
    assert (low["previous_quantity"], low["stock_quantity"], low["low_stock_threshold"]) == (
        6,
        4,
        4,
    )
    assert low["title"].startswith("Shirt")


def test_deleting_a_stocked_product_is_not_a_low_stock_event(hook):
    lamp = make_product(
        title="Lamp", track_inventory=True, stock_quantity=10, low_stock_threshold=3
    )
    product_services.product_delete(product_id=lamp.pk)
    assert sent("stock.low") == []
    assert [d["product"]["product_id"] for d in sent("product.deleted")] == [lamp.pk]
