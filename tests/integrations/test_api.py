"""/rest/ec/v1/webhooks through the HTTP API: every route, its answers and its refusals."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from store.common.capabilities import ADMINISTRATOR_ROLE, MANAGE_OPTIONS, SHOP_MANAGER_ROLE
from tests.accounts.factories import UserFactory
from tests.fixtures.store import error, grant
from tests.integrations.conftest import HOOKS, URL, store_webhook
from tests.webhooks.factories import WebhookFactory
from tests.webhooks.receiver import Reply
from webhooks import services, signing
from webhooks.models import Delivery, DeliveryAttempt, Scope, StoreEvent, Webhook

pytestmark = pytest.mark.django_db


def create(client, **body):
    body.setdefault("url", URL)
    body.setdefault("events", ["order.created", "product.updated"])
    return client.post(HOOKS, body, format="json")


# --- CRUD --------------------------------------------------------------------------------------


def test_create_answers_the_secret_once_then_never(hooks_client, integrator):
    response = create(hooks_client, events=["product.updated", "order.created", "order.created"])
    assert response.status_code == 201, response.content
    body = response.json()
    assert len(body["secret"]) == 64
    assert body["events"] == ["order.created", "product.updated"]  # documented order, no repeats
    assert (body["url"], body["is_active"], body["created_by"]) == (URL, True, integrator.pk)
    assert body["disabled_reason"] is None
    webhook = Webhook.objects.get(pk=body["id"])
    assert (webhook.scope, webhook.account_id, webhook.secret) == ("store", None, body["secret"])
    assert response["Cache-Control"].startswith("max-age=0")

    listed = hooks_client.get(HOOKS).json()
    assert listed["total"] == 1
    assert listed["page"] == 1
    assert listed["total_pages"] == 1
    assert "secret" not in listed["webhooks"][0]
    read = hooks_client.get(f"{HOOKS}/{webhook.pk}")
    assert read.status_code == 200
    assert "secret" not in read.json()
    assert read.json()["id"] == webhook.pk


def test_update_put_and_delete(hooks_client):
    webhook = store_webhook(events=["order.created"])
    patched = hooks_client.patch(
        f"{HOOKS}/{webhook.pk}",
        {"events": ["stock.low", "order.paid"], "description": "ERP sync"},
        format="json",
    )
    assert patched.status_code == 200, patched.content
    assert patched.json()["events"] == ["order.paid", "stock.low"]
    assert patched.json()["description"] == "ERP sync"

    off = hooks_client.put(f"{HOOKS}/{webhook.pk}", {"is_active": False}, format="json")
    assert off.status_code == 200
    assert (off.json()["is_active"], off.json()["disabled_reason"]) == (False, "Disabled by staff.")
    on = hooks_client.patch(f"{HOOKS}/{webhook.pk}", {"is_active": True}, format="json")
    assert (on.json()["is_active"], on.json()["disabled_reason"]) == (True, None)
    same = hooks_client.patch(f"{HOOKS}/{webhook.pk}", {}, format="json")
    assert same.status_code == 200
    assert same.json()["events"] == ["order.paid", "stock.low"]

    assert hooks_client.delete(f"{HOOKS}/{webhook.pk}").status_code == 204
    assert not Webhook.objects.filter(pk=webhook.pk).exists()
    error(hooks_client.get(f"{HOOKS}/{webhook.pk}"), 404, "webhook_not_found")
    error(hooks_client.delete(f"{HOOKS}/{webhook.pk}"), 404, "webhook_not_found")


def test_the_list_pages_and_filters(hooks_client):
    for n in range(5):
        store_webhook(url=f"{URL}/{n}", is_active=n % 2 == 0)
    page = hooks_client.get(HOOKS, {"per_page": 2, "page": 2}).json()
    assert (page["total"], page["per_page"], page["total_pages"]) == (5, 2, 3)
    assert [w["url"] for w in page["webhooks"]] == [f"{URL}/2", f"{URL}/3"]
    inactive = hooks_client.get(HOOKS, {"active": "false"}).json()
    assert [w["url"] for w in inactive["webhooks"]] == [f"{URL}/1", f"{URL}/3"]
    assert hooks_client.get(HOOKS, {"page": 99}).json()["webhooks"] == []
    error(hooks_client.get(HOOKS, {"per_page": 0}), 400, "invalid_param")
    error(hooks_client.get(HOOKS, {"page": "x"}), 400, "invalid_param")


def test_a_store_webhook_outlives_the_staff_member_who_made_it(hooks_client, integrator):
    webhook_id = create(hooks_client).json()["id"]
    integrator.delete()
    webhook = Webhook.objects.get(pk=webhook_id)
    assert (webhook.created_by_id, webhook.is_active) == (None, True)
    other = grant(UserFactory(email="other@example.com"), MANAGE_OPTIONS)
    from rest_framework.test import APIClient

    from tests.fixtures.store import basic_auth

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(other))
    assert client.get(f"{HOOKS}/{webhook_id}").json()["created_by"] is None


def test_portal_and_store_webhooks_stay_apart(hooks_client, store_client):
    portal = WebhookFactory()
    store = store_webhook()
    error(hooks_client.get(f"{HOOKS}/{portal.pk}"), 404, "webhook_not_found")
    error(hooks_client.patch(f"{HOOKS}/{portal.pk}", {}, format="json"), 404)
    error(hooks_client.delete(f"{HOOKS}/{portal.pk}"), 404)
    error(hooks_client.post(f"{HOOKS}/{portal.pk}/test"), 404)
    assert [w["id"] for w in hooks_client.get(HOOKS).json()["webhooks"]] == [store.pk]
    from webhooks import selectors

    assert list(selectors.webhook_list(account=portal.account)) == [portal]
    with pytest.raises(Exception, match="not found"):
        selectors.webhook_get(account=portal.account, webhook_id=store.pk)


# --- Refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "code", "param"),
    [
        ({"events": ["order.shipped"]}, "invalid_param", "events"),
        ({"events": ["license.created"]}, "invalid_param", "events"),  # a portal event
        ({"events": []}, "invalid_param", "events"),
        ({"events": "order.created"}, "invalid_param", "events"),
        ({"events": [1]}, "invalid_param", "events"),
        ({"events": ["x" * 65]}, "invalid_param", "events.0"),
        ({"events": ["order.created"] * 21}, "invalid_param", "events"),
        ({"url": "http://hooks.example.com/x"}, "url_not_allowed", "url"),
        ({"url": "https://intranet.example.com/x"}, "url_not_allowed", "url"),
        ({"url": "https://metadata.example.com/latest"}, "url_not_allowed", "url"),
        ({"url": "https://127.0.0.1/x"}, "url_not_allowed", "url"),
        ({"url": "https://2130706433/x"}, "url_not_allowed", "url"),
        ({"url": "https://[::ffff:192.168.1.1]/x"}, "url_not_allowed", "url"),
        ({"url": "https://mixed.example.com/x"}, "url_not_allowed", "url"),
        ({"url": "https://no-such-host.invalid/x"}, "url_not_allowed", "url"),
        ({"url": "https://hooks.example.com/\x00"}, "parse_error", None),
        ({"url": "ftp://hooks.example.com/x"}, "url_not_allowed", "url"),
        ({"url": ""}, "invalid_param", "url"),
        ({"url": "https://" + "a" * 2050}, "invalid_param", "url"),
        ({"url": ["https://hooks.example.com"]}, "invalid_param", "url"),
        ({"description": "d" * 256}, "invalid_param", "description"),
        ({"is_active": "yes"}, "invalid_param", "is_active"),
        ({"secret": "0" * 64}, "invalid_param", "secret"),
        ({"id": 5}, "invalid_param", "id"),
    ],
)
def test_create_refusals_change_nothing(hooks_client, body, code, param):
    response = create(hooks_client, **body)
    payload = error(response, 400, code)
    if param is not None:
        assert param in payload["data"]["params"], payload
    assert not Webhook.objects.exists()


@pytest.mark.parametrize(
    "raw",
    [
        b"[]",
        b'"url"',
        b"null",
        b'{"url": "https://hooks.example.com/\\ud800", "events": ["order.created"]}',
        b"{" * 5000,
        b'{"url": ' * 200 + b"1" + b"}" * 200,
        b"not json",
    ],
)
def test_hostile_bodies_are_refused_without_a_500(hooks_client, raw):
    response = hooks_client.generic("POST", HOOKS, raw, content_type="application/json")
    assert 400 <= response.status_code < 500, response.content
    assert not Webhook.objects.exists()


def test_update_refusals_change_nothing(hooks_client):
    webhook = store_webhook(events=["order.created"])
    before = Webhook.objects.values().get(pk=webhook.pk)
    for body, code in (
        ({"events": ["nope"]}, "invalid_param"),
        ({"events": []}, "invalid_param"),
        ({"url": "https://intranet.example.com"}, "url_not_allowed"),
        ({"url": "https://hooks.example.com", "events": ["nope"]}, "invalid_param"),
        ({"secret": "x"}, "invalid_param"),
        ({"is_active": 1}, "invalid_param"),
    ):
        error(hooks_client.patch(f"{HOOKS}/{webhook.pk}", body, format="json"), 400, code)
    assert Webhook.objects.values().get(pk=webhook.pk) == before
    error(hooks_client.patch(f"{HOOKS}/99999999", {}, format="json"), 404, "webhook_not_found")
    assert hooks_client.get(f"{HOOKS}/99999999999999999999999").status_code == 404


def test_at_most_twenty_store_webhooks(hooks_client):
    for n in range(services.MAX_STORE_WEBHOOKS):
        store_webhook(url=f"{URL}/{n}")
    WebhookFactory()  # a portal webhook does not count
    error(create(hooks_client), 400, "webhook_limit_reached")
    error(create(hooks_client, events=["nope"]), 400, "invalid_param")  # validated first
    assert Webhook.objects.filter(scope=Scope.STORE).count() == services.MAX_STORE_WEBHOOKS


# --- Permissions -------------------------------------------------------------------------------


def test_who_may_manage_store_webhooks(store_client, anon):
    webhook = store_webhook()
    manager = UserFactory(email="manager@example.com")
    manager.groups.add(Group.objects.get(name=SHOP_MANAGER_ROLE))
    administrator = UserFactory(email="admin@example.com")
    administrator.groups.add(Group.objects.get(name=ADMINISTRATOR_ROLE))
    shopper = UserFactory(email="shopper@example.com")
    routes = [
        ("get", HOOKS),
        ("post", HOOKS),
        ("get", f"{HOOKS}/{webhook.pk}"),
        ("patch", f"{HOOKS}/{webhook.pk}"),
        ("put", f"{HOOKS}/{webhook.pk}"),
        ("delete", f"{HOOKS}/{webhook.pk}"),
        ("post", f"{HOOKS}/{webhook.pk}/test"),
        ("post", f"{HOOKS}/{webhook.pk}/rotate-secret"),
        ("get", f"{HOOKS}/{webhook.pk}/deliveries"),
        ("post", f"{HOOKS}/{webhook.pk}/deliveries/1/redeliver"),
    ]
    for method, path in routes:
        error(getattr(anon, method)(path, {}, format="json"), 401, "not_logged_in")
        for user in (shopper, manager):
            response = getattr(store_client(user), method)(path, {}, format="json")
            error(response, 403, "insufficient_capability")
    assert Webhook.objects.filter(pk=webhook.pk).exists()
    assert not Delivery.objects.exists()
    administrator_client = store_client(administrator)
    assert administrator_client.get(f"{HOOKS}/{webhook.pk}").status_code == 200
    assert administrator_client.get(HOOKS).json()["total"] == 1


# --- Test ping, deliveries, redeliver ----------------------------------------------------------


def test_the_ping_reaches_a_real_receiver_signed(hooks_client, receiver, allow_private):
    webhook = store_webhook(url=receiver.url)
    receiver.secret = webhook.secret
    response = hooks_client.post(f"{HOOKS}/{webhook.pk}/test")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["success"], body["status_code"], body["error"]) == (True, 200, None)
    (received,) = receiver.received
    assert received.verified
    assert received.headers["X-Hub-Event"] == "ping"
    assert received.headers["X-Hub-Delivery"] == body["delivery_id"]
    assert received.json["data"] == {
        "webhook_id": webhook.pk,
        "url": receiver.url,
        "events": list(StoreEvent.values),
    }

    receiver.replies = [Reply(503)]
    failed = hooks_client.post(f"{HOOKS}/{webhook.pk}/test").json()
    assert (failed["success"], failed["status_code"]) == (False, 503)
    assert failed["error"] == "The receiver answered 503."

    deliveries = hooks_client.get(f"{HOOKS}/{webhook.pk}/deliveries").json()
    assert deliveries["total"] == 2
    newest, oldest = deliveries["deliveries"]
    assert (newest["event"], newest["status"]) == ("ping", "failed")  # never retried
    assert newest["log"][0]["outcome"] == "http_error"
    assert oldest["delivery_id"] == body["delivery_id"]
    assert oldest["payload"]["event"] == "ping"
    assert oldest["log"] == [
        {
            "attempt": 1,
            "outcome": "success",
            "success": True,
            "status_code": 200,
            "error": None,
            "duration_ms": oldest["log"][0]["duration_ms"],
            "created_at": oldest["log"][0]["created_at"],
        }
    ]


def test_a_ping_to_a_blocked_address_is_refused_at_send_time(hooks_client, dns):
    webhook = store_webhook()
    dns.table["hooks.example.com"] = ["10.0.0.9"]  # rebinding after the URL was checked
    body = hooks_client.post(f"{HOOKS}/{webhook.pk}/test").json()
    assert (body["success"], body["status_code"]) == (False, None)
    assert "private" in body["error"]
    assert DeliveryAttempt.objects.get().outcome == "blocked"


def _delivery(webhook, event="order.created", status=Delivery.Status.FAILED, attempts=1):
    now = timezone.now()
    delivery = Delivery.objects.create(
        webhook=webhook,
        event=event,
        body=signing.build_body(event=event, moment=now, data={"order": {"order_id": 1}}),
        status=status,
        attempts=attempts,
    )
    for n in range(1, attempts + 1):
        DeliveryAttempt.objects.create(
            webhook=webhook,
            delivery=delivery,
            attempt=n,
            event=event,
            status_code=500,
            outcome="http_error",
            error="The receiver answered 500.",
            response_body="never shown",
        )
    return delivery


def test_deliveries_page_filter_and_never_show_the_receivers_body(hooks_client):
    webhook = store_webhook()
    first = _delivery(webhook, "order.created", attempts=2)
    _delivery(webhook, "product.created", status=Delivery.Status.SUCCEEDED)
    _delivery(store_webhook(url=f"{URL}/other"))  # another webhook's
    page = hooks_client.get(f"{HOOKS}/{webhook.pk}/deliveries", {"per_page": 1}).json()
    assert (page["total"], page["total_pages"], len(page["deliveries"])) == (2, 2, 1)
    assert page["deliveries"][0]["event"] == "product.created"
    failed = hooks_client.get(f"{HOOKS}/{webhook.pk}/deliveries", {"status": "failed"}).json()
    assert [d["id"] for d in failed["deliveries"]] == [first.pk]
    assert [e["attempt"] for e in failed["deliveries"][0]["log"]] == [1, 2]
    by_event = hooks_client.get(f"{HOOKS}/{webhook.pk}/deliveries", {"event": "order.created"})
    assert by_event.json()["total"] == 1
    assert "never shown" not in json.dumps(page) + json.dumps(failed)
    for query in ({"status": "lost"}, {"event": "order.shipped"}, {"per_page": -1}):
        error(hooks_client.get(f"{HOOKS}/{webhook.pk}/deliveries", query), 400, "invalid_param")
    error(hooks_client.get(f"{HOOKS}/999999/deliveries"), 404, "webhook_not_found")


def test_redeliver_one_delivery(hooks_client):
    webhook = store_webhook()
    delivery = _delivery(webhook)
    other = _delivery(store_webhook(url=f"{URL}/other"))
    response = hooks_client.post(f"{HOOKS}/{webhook.pk}/deliveries/{delivery.pk}/redeliver")
    assert response.status_code == 202, response.content
    body = response.json()
    assert (body["id"], body["status"], body["delivery_id"]) == (
        delivery.pk,
        "pending",
        str(delivery.uuid),
    )
    delivery.refresh_from_db()
    assert (delivery.status, delivery.auto_retry) == ("pending", False)
    error(
        hooks_client.post(f"{HOOKS}/{webhook.pk}/deliveries/{other.pk}/redeliver"),
        404,
        "delivery_not_found",
    )
    error(
        hooks_client.post(f"{HOOKS}/{webhook.pk}/deliveries/999999/redeliver"),
        404,
        "delivery_not_found",
    )
    services.webhook_update(webhook=webhook, is_active=False)
    error(
        hooks_client.post(f"{HOOKS}/{webhook.pk}/deliveries/{delivery.pk}/redeliver"),
        409,
        "webhook_inactive",
    )


def test_pings_and_redeliveries_are_rate_limited(hooks_client, settings):
    from django.core.cache import cache

    cache.clear()
    webhook = store_webhook()
    delivery = _delivery(webhook)
    path = f"{HOOKS}/{webhook.pk}/deliveries/{delivery.pk}/redeliver"
    limit = int(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["webhook_send"].split("/")[0])
    answers = [hooks_client.post(path).status_code for _ in range(limit + 1)]
    assert answers[:limit] == [202] * limit
    assert answers[-1] == 429
    cache.clear()


# --- Query ceilings ----------------------------------------------------------------------------


def test_the_lists_take_a_bounded_number_of_queries(hooks_client, django_assert_max_num_queries):
    webhooks = [store_webhook(url=f"{URL}/{n}") for n in range(12)]
    for _ in range(30):
        _delivery(webhooks[0], attempts=3)
    hooks_client.get(HOOKS)  # warm the caller's credentials path
    with django_assert_max_num_queries(8):
        page = hooks_client.get(HOOKS, {"per_page": 100})
    assert len(page.json()["webhooks"]) == 12
    with django_assert_max_num_queries(9):
        deliveries = hooks_client.get(f"{HOOKS}/{webhooks[0].pk}/deliveries", {"per_page": 100})
    assert len(deliveries.json()["deliveries"]) == 30
    assert all(len(d["log"]) == 3 for d in deliveries.json()["deliveries"])


@pytest.mark.parametrize("creator_left", [False, True])
def test_a_410_disables_a_store_webhook_and_tells_its_creator(
    hooks_client, integrator, receiver, allow_private, mailoutbox, creator_left, on_commit
):
    webhook_id = create(hooks_client, url=receiver.url).json()["id"]
    webhook = Webhook.objects.get(pk=webhook_id)
    receiver.secret = webhook.secret
    receiver.replies = [Reply(410)]
    if creator_left:
        integrator.delete()
        hooks_client = _manage_options_client()
    with on_commit():
        body = hooks_client.post(f"{HOOKS}/{webhook_id}/test").json()
    assert (body["success"], body["status_code"]) == (False, 410)
    read = hooks_client.get(f"{HOOKS}/{webhook_id}").json()
    assert read["is_active"] is False
    assert "410" in read["disabled_reason"]
    recipients = [message.to for message in mailoutbox]
    assert recipients == ([] if creator_left else [[integrator.email]])
    if not creator_left:
        assert f"/rest/ec/v1/webhooks/{webhook_id}/test" in mailoutbox[0].body


def _manage_options_client():
    from rest_framework.test import APIClient

    from tests.fixtures.store import basic_auth

    client = APIClient()
    client.credentials(
        HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(email="mo@example.com"), MANAGE_OPTIONS))
    )
    return client


def test_rotate_secret_answers_a_new_one_in_force_at_once(hooks_client, receiver, allow_private):
    webhook = store_webhook(url=receiver.url)
    old = webhook.secret
    response = hooks_client.post(f"{HOOKS}/{webhook.pk}/rotate-secret")
    assert response.status_code == 200, response.content
    new = response.json()["secret"]
    assert len(new) == 64
    assert new != old
    assert response["Cache-Control"].startswith("max-age=0")
    receiver.secret = new
    assert hooks_client.post(f"{HOOKS}/{webhook.pk}/test").json()["success"] is True
    assert receiver.received[0].verified
    error(hooks_client.post(f"{HOOKS}/999999/rotate-secret"), 404, "webhook_not_found")
    portal = WebhookFactory()
    error(hooks_client.post(f"{HOOKS}/{portal.pk}/rotate-secret"), 404, "webhook_not_found")
    portal.refresh_from_db()
    assert portal.secret != new
