"""The portal webhook endpoints, through HTTP as an account would use them."""

import copy
import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import services as account_services
from accounts.models import AccountType
from tests.accounts.factories import AgencyFactory, ResellerFactory, UserFactory
from tests.webhooks.factories import WebhookFactory
from tests.webhooks.receiver import Reply
from webhooks import services, signing
from webhooks.models import Delivery, DeliveryAttempt, Event, Webhook

pytestmark = pytest.mark.django_db

HOOKS = "/api/v1/portal/webhooks"
ALL_EVENTS = list(Event.values)


def create(client, **body):
    payload = {"url": "https://hooks.example.com/emporion", "events": ["license.created"], **body}
    return client.post(HOOKS, payload, format="json")


def snapshot():
    return (
        list(Webhook.objects.order_by("id").values()),
        Delivery.objects.count(),
        DeliveryAttempt.objects.count(),
    )


# --- Create ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("factory", [ResellerFactory, AgencyFactory])
def test_partner_creates_a_webhook_and_sees_the_secret_once(client_for, factory):
    client = client_for(factory())
    response = create(
        client,
        url="https://Hooks.Example.com/emporion",
        events=["license.revoked", "license.created", "license.revoked"],
        description="CRM sync",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    webhook = Webhook.objects.get()
    assert body == {
        "id": webhook.pk,
        "url": "https://hooks.example.com/emporion",
        "events": ["license.created", "license.revoked"],
        "is_active": True,
        "description": "CRM sync",
        "created_at": body["created_at"],
        "disabled_reason": None,
        "disabled_at": None,
        "secret": webhook.secret,
    }
    assert re.fullmatch(r"[0-9a-f]{64}", body["secret"])
    assert body["created_at"].endswith("Z") or body["created_at"].endswith("+00:00")

    listed = client.get(HOOKS).json()
    assert listed == [{k: v for k, v in body.items() if k != "secret"}]
    read = client.get(f"{HOOKS}/{webhook.pk}").json()
    assert "secret" not in read
    assert read == listed[0]


def test_description_is_optional(client_for):
    response = create(client_for(ResellerFactory()))
    assert response.status_code == 201
    assert response.json()["description"] == ""


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"events": []}, "events", "empty"),
        ({"events": ["license.renewed"]}, "events.0", "not a valid choice"),
        ({"events": "license.created"}, "events", "list"),
        ({"events": None}, "events", "null"),
        ({"url": "http://hooks.example.com/x"}, "url", "https://"),
        ({"url": "https://10.0.0.1/x"}, "url", "private"),
        ({"url": "https://169.254.169.254/latest"}, "url", "link-local"),
        ({"url": "https://2130706433/x"}, "url", "loopback"),
        ({"url": "https://0x7f000001/x"}, "url", "loopback"),
        ({"url": "https://[::ffff:127.0.0.1]/x"}, "url", "loopback"),
        ({"url": "https://intranet.example.com/x"}, "url", "resolves to 10.0.0.5"),
        ({"url": "https://no-such-host.example.com/x"}, "url", "could not be resolved"),
        ({"url": "not a url"}, "url", "URL"),
        ({"url": ""}, "url", "blank"),
        ({"url": None}, "url", "null"),
        ({"description": "x" * 256}, "description", "255"),
        ({"secret": "0" * 64}, "secret", "cannot be set"),
    ],
)
def test_create_refuses_invalid_fields_and_changes_nothing(client_for, body, field, message):
    client = client_for(ResellerFactory())
    response = create(client, **body)
    assert response.status_code == 422, response.content
    error = response.json()
    assert field in error["errors"], error
    assert message.lower() in " ".join(error["errors"][field]).lower()
    assert message.lower() in error["detail"].lower()
    assert Webhook.objects.count() == 0


def test_create_refusal_of_a_url_carries_a_code(client_for):
    response = create(client_for(ResellerFactory()), url="https://192.168.0.10/hook")
    assert response.status_code == 422
    assert response.json()["code"] == "url_not_allowed"
    assert response.json()["errors"] == {
        "url": [
            "192.168.0.10 is a private address; webhooks are delivered to public addresses only."
        ]
    }


def test_missing_fields_are_named(client_for):
    response = client_for(ResellerFactory()).post(HOOKS, {}, format="json")
    assert response.status_code == 422
    assert set(response.json()["errors"]) == {"url", "events"}


def test_at_most_ten_webhooks_per_account(client_for):
    reseller = ResellerFactory()
    client = client_for(reseller)
    for n in range(10):
        assert create(client, description=f"hook {n}").status_code == 201
    response = create(client, description="one too many")
    assert response.status_code == 400
    assert response.json()["code"] == "webhook_limit_reached"
    assert "at most 10 webhooks" in response.json()["detail"]
    assert Webhook.objects.filter(account=reseller).count() == 10
    # The limit is per account.
    assert create(client_for(AgencyFactory())).status_code == 201
    # Deleting one makes room again.
    first = Webhook.objects.filter(account=reseller).first()
    assert client.delete(f"{HOOKS}/{first.pk}").status_code == 204
    assert create(client).status_code == 201


# --- List and read --------------------------------------------------------------------------------


def test_list_shows_only_the_callers_webhooks_oldest_first(client_for):
    reseller = ResellerFactory()
    mine = [WebhookFactory(account=reseller, description=str(n)) for n in range(3)]
    WebhookFactory()  # another account's
    listed = client_for(reseller).get(HOOKS).json()
    assert [w["id"] for w in listed] == [w.pk for w in mine]
    assert all("secret" not in w for w in listed)


def test_list_query_count_does_not_grow(client_for, django_assert_max_num_queries):
    reseller = ResellerFactory()
    client = client_for(reseller)
    WebhookFactory(account=reseller)
    with CaptureQueriesContext(connection) as one:
        assert len(client.get(HOOKS).json()) == 1
    for _ in range(9):
        WebhookFactory(account=reseller)
    with django_assert_max_num_queries(len(one.captured_queries)):
        assert len(client.get(HOOKS).json()) == 10


def test_another_accounts_webhook_is_404_on_every_route(client_for):
    theirs = WebhookFactory()
    DeliveryAttempt.objects.create(
        webhook=theirs,
        delivery=Delivery.objects.create(webhook=theirs, event="ping", body="{}"),
        attempt=1,
        event="ping",
        outcome="success",
        success=True,
    )
    log = DeliveryAttempt.objects.get()
    before = snapshot()
    client = client_for(ResellerFactory())
    base = f"{HOOKS}/{theirs.pk}"
    responses = [
        client.get(base),
        client.patch(base, {"is_active": False}, format="json"),
        client.delete(base),
        client.post(f"{base}/test"),
        client.post(f"{base}/rotate-secret"),
        client.get(f"{base}/deliveries"),
        client.post(f"{base}/deliveries/{log.pk}/redeliver"),
        client.get(f"{HOOKS}/999999"),
    ]
    assert [r.status_code for r in responses] == [404] * 8
    assert responses[0].json()["code"] == "webhook_not_found"
    assert snapshot() == before


def test_a_log_entry_of_another_webhook_is_404(client_for):
    reseller = ResellerFactory()
    mine, other = WebhookFactory(account=reseller), WebhookFactory(account=reseller)
    delivery = Delivery.objects.create(webhook=other, event="ping", body="{}")
    log = DeliveryAttempt.objects.create(
        webhook=other, delivery=delivery, attempt=1, event="ping", outcome="success", success=True
    )
    response = client_for(reseller).post(f"{HOOKS}/{mine.pk}/deliveries/{log.pk}/redeliver")
    assert response.status_code == 404
    assert response.json()["code"] == "delivery_not_found"


# --- Update ---------------------------------------------------------------------------------------


def test_patch_changes_each_field(client_for):
    webhook = WebhookFactory(events=["license.created"], description="old")
    client = client_for(webhook.account)
    url = f"{HOOKS}/{webhook.pk}"
    response = client.patch(
        url,
        {
            "url": "https://v6.example.com/new",
            "events": ["license.expired", "license.activated"],
            "description": "new",
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["url"] == "https://v6.example.com/new"
    assert response.json()["events"] == ["license.activated", "license.expired"]
    assert response.json()["description"] == "new"
    assert "secret" not in response.json()
    webhook.refresh_from_db()
    assert (webhook.url, webhook.events, webhook.description) == (
        "https://v6.example.com/new",
        ["license.activated", "license.expired"],
        "new",
    )
    assert client.patch(url, {"description": None}, format="json").json()["description"] == ""


def test_a_new_url_restarts_the_failure_clock(client_for):
    webhook = WebhookFactory()
    webhook.failing_since = webhook.created_at
    webhook.save()
    client = client_for(webhook.account)
    client.patch(f"{HOOKS}/{webhook.pk}", {"url": webhook.url}, format="json")
    webhook.refresh_from_db()
    assert webhook.failing_since is not None  # the same receiver: the clock runs on
    client.patch(f"{HOOKS}/{webhook.pk}", {"url": "https://v6.example.com/x"}, format="json")
    webhook.refresh_from_db()
    assert webhook.failing_since is None


def test_patch_is_active_off_and_on(client_for):
    webhook = WebhookFactory()
    pending = Delivery.objects.create(webhook=webhook, event="license.created", body="{}")
    client = client_for(webhook.account)
    url = f"{HOOKS}/{webhook.pk}"

    off = client.patch(url, {"is_active": False}, format="json").json()
    assert off["is_active"] is False
    assert off["disabled_reason"] == "Disabled by the account."
    assert off["disabled_at"] is not None
    pending.refresh_from_db()
    assert pending.status == Delivery.Status.FAILED  # given up: an inactive webhook gets nothing

    on = client.patch(url, {"is_active": True}, format="json").json()
    assert on["is_active"] is True
    assert on["disabled_reason"] is None
    assert on["disabled_at"] is None


def test_reenabling_clears_an_automatic_disable(client_for):
    webhook = WebhookFactory(is_active=False, disabled_reason="The receiver answered 410 Gone")
    webhook.failing_since = webhook.created_at
    webhook.save()
    client = client_for(webhook.account)
    assert client.get(f"{HOOKS}/{webhook.pk}").json()["disabled_reason"].startswith("The rec")
    client.patch(f"{HOOKS}/{webhook.pk}", {"is_active": True}, format="json")
    webhook.refresh_from_db()
    assert (webhook.is_active, webhook.disabled_reason, webhook.failing_since) == (True, "", None)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "https://10.1.1.1/x", "description": "changed"}, "url"),
        ({"url": "http://hooks.example.com/x"}, "url"),
        ({"events": [], "description": "changed"}, "events"),
        ({"events": ["nope"]}, "events.0"),
        ({"is_active": "sometimes"}, "is_active"),
        ({"secret": "f" * 64}, "secret"),
        ({"id": 5}, "id"),
    ],
)
def test_patch_refuses_invalid_values_and_changes_nothing(client_for, body, field):
    webhook = WebhookFactory()
    before = snapshot()
    response = client_for(webhook.account).patch(f"{HOOKS}/{webhook.pk}", body, format="json")
    assert response.status_code == 422
    assert field in response.json()["errors"]
    assert snapshot() == before


def test_empty_patch_changes_nothing(client_for):
    webhook = WebhookFactory()
    before = snapshot()
    response = client_for(webhook.account).patch(f"{HOOKS}/{webhook.pk}", {}, format="json")
    assert response.status_code == 200
    assert snapshot() == before


# --- Delete ---------------------------------------------------------------------------------------


def test_delete_removes_the_webhook_with_its_deliveries_and_logs(client_for):
    webhook = WebhookFactory()
    keep = WebhookFactory()
    for hook in (webhook, keep):
        delivery = Delivery.objects.create(webhook=hook, event="ping", body="{}")
        DeliveryAttempt.objects.create(
            webhook=hook, delivery=delivery, attempt=1, event="ping", outcome="success"
        )
    response = client_for(webhook.account).delete(f"{HOOKS}/{webhook.pk}")
    assert response.status_code == 204
    assert list(Webhook.objects.values_list("pk", flat=True)) == [keep.pk]
    assert Delivery.objects.filter(webhook_id=webhook.pk).count() == 0
    assert DeliveryAttempt.objects.filter(webhook_id=webhook.pk).count() == 0
    assert DeliveryAttempt.objects.filter(webhook=keep).count() == 1
    assert client_for(webhook.account).get(f"{HOOKS}/{webhook.pk}").status_code == 404


# --- Test ping ------------------------------------------------------------------------------------


def test_test_ping_reports_success_and_is_logged(client_for, allow_private, receiver):
    webhook = WebhookFactory(url=receiver.url)
    receiver.secret = webhook.secret
    receiver.default = Reply(200, body=b"a body the caller must never see")
    response = client_for(webhook.account).post(f"{HOOKS}/{webhook.pk}/test")
    assert response.status_code == 200
    body = response.json()
    delivery = Delivery.objects.get()
    assert body == {
        "success": True,
        "status_code": 200,
        "error": None,
        "duration_ms": body["duration_ms"],
        "delivery_id": str(delivery.uuid),
    }
    assert "never see" not in response.content.decode()
    assert len(receiver.received) == 1
    ping = receiver.received[0]
    assert ping.verified
    assert ping.headers["X-Hub-Event"] == "ping"
    assert ping.json["event"] == "ping"
    assert ping.json["data"] == {
        "webhook_id": webhook.pk,
        "url": receiver.url,
        "events": ALL_EVENTS,
    }
    log = DeliveryAttempt.objects.get()
    assert (log.event, log.success, log.status_code, log.attempt) == ("ping", True, 200, 1)
    assert delivery.status == Delivery.Status.SUCCEEDED


def test_test_ping_reports_failure_without_the_receivers_body(client_for, allow_private, receiver):
    webhook = WebhookFactory(url=receiver.url)
    receiver.secret = webhook.secret
    receiver.default = Reply(503, body=b'{"internal": "stack trace with secrets"}')
    body = client_for(webhook.account).post(f"{HOOKS}/{webhook.pk}/test").json()
    assert body["success"] is False
    assert body["status_code"] == 503
    assert body["error"] == "The receiver answered 503."
    assert "stack trace" not in json.dumps(body)
    delivery = Delivery.objects.get()
    assert delivery.status == Delivery.Status.FAILED  # a ping is never retried
    assert delivery.next_attempt_at is None


def test_test_ping_to_an_unreachable_receiver(client_for, allow_private, receiver):
    webhook = WebhookFactory(url=receiver.url)
    receiver.stop()
    body = client_for(webhook.account).post(f"{HOOKS}/{webhook.pk}/test").json()
    assert body["success"] is False
    assert body["status_code"] is None
    assert body["error"] == "Could not connect: connection refused."


def test_test_ping_is_blocked_when_the_host_now_resolves_inside(client_for, dns):
    webhook = WebhookFactory(url="https://hooks.example.com/x")
    dns.table["hooks.example.com"] = ["10.20.30.40"]
    body = client_for(webhook.account).post(f"{HOOKS}/{webhook.pk}/test").json()
    assert body["success"] is False
    assert body["status_code"] is None
    assert body["error"].startswith("Blocked: hooks.example.com resolves to 10.20.30.40")
    assert DeliveryAttempt.objects.get().outcome == "blocked"


def test_test_pings_are_rate_limited(client_for, settings, allow_private, receiver):
    framework = copy.deepcopy(settings.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"]["webhook_send"] = "2/min"
    settings.REST_FRAMEWORK = framework
    webhook = WebhookFactory(url=receiver.url)
    receiver.secret = webhook.secret
    client = client_for(webhook.account)
    statuses = [client.post(f"{HOOKS}/{webhook.pk}/test").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    assert len(receiver.received) == 2


# --- Delivery log ---------------------------------------------------------------------------------


def make_logs(webhook, count):
    delivery = Delivery.objects.create(
        webhook=webhook,
        event="license.created",
        body=signing.build_body(
            event="license.created", moment=webhook.created_at, data={"license_id": 1}
        ),
        status=Delivery.Status.FAILED,
    )
    return [
        DeliveryAttempt.objects.create(
            webhook=webhook,
            delivery=delivery,
            attempt=n + 1,
            event="license.created",
            status_code=500,
            outcome="http_error",
            error="The receiver answered 500.",
            response_body="secret internals",
            duration_ms=12,
        )
        for n in range(count)
    ]


def test_deliveries_newest_first_with_every_field(client_for):
    webhook = WebhookFactory()
    logs = make_logs(webhook, 3)
    body = client_for(webhook.account).get(f"{HOOKS}/{webhook.pk}/deliveries").json()
    assert [entry["id"] for entry in body] == [log.pk for log in reversed(logs)]
    newest = body[0]
    assert newest == {
        "id": logs[-1].pk,
        "delivery_id": str(logs[-1].delivery.uuid),
        "event": "license.created",
        "payload": json.loads(logs[-1].delivery.body),
        "status_code": 500,
        "success": False,
        "outcome": "http_error",
        "error": "The receiver answered 500.",
        "attempt": 3,
        "duration_ms": 12,
        "created_at": newest["created_at"],
    }
    assert newest["payload"]["data"] == {"license_id": 1}
    assert "secret internals" not in json.dumps(body)


@pytest.mark.parametrize(("query", "expected"), [("", 25), ("?limit=3", 3), ("?limit=100", 100)])
def test_deliveries_limit(client_for, query, expected):
    webhook = WebhookFactory()
    make_logs(webhook, 100)
    body = client_for(webhook.account).get(f"{HOOKS}/{webhook.pk}/deliveries{query}").json()
    assert len(body) == expected


def test_deliveries_limit_is_capped_at_100(client_for):
    webhook = WebhookFactory()
    make_logs(webhook, 120)  # more than the cap is never kept by the service, but even so
    body = client_for(webhook.account).get(f"{HOOKS}/{webhook.pk}/deliveries?limit=500").json()
    assert len(body) == 100


@pytest.mark.parametrize("limit", ["0", "-1", "ten", "1.5"])
def test_deliveries_refuses_a_bad_limit(client_for, limit):
    webhook = WebhookFactory()
    response = client_for(webhook.account).get(f"{HOOKS}/{webhook.pk}/deliveries?limit={limit}")
    assert response.status_code == 422
    assert "limit" in response.json()["errors"]


def test_deliveries_query_count_does_not_grow(client_for, django_assert_max_num_queries):
    webhook = WebhookFactory()
    client = client_for(webhook.account)
    make_logs(webhook, 1)
    with CaptureQueriesContext(connection) as one:
        assert len(client.get(f"{HOOKS}/{webhook.pk}/deliveries").json()) == 1
    for _ in range(20):
        make_logs(webhook, 5)
    with django_assert_max_num_queries(len(one.captured_queries)):
        assert len(client.get(f"{HOOKS}/{webhook.pk}/deliveries?limit=100").json()) == 100


# --- Rotate the secret ----------------------------------------------------------------------------


def test_rotate_secret(client_for, allow_private, receiver):
    webhook = WebhookFactory(url=receiver.url)
    old = webhook.secret
    client = client_for(webhook.account)
    response = client.post(f"{HOOKS}/{webhook.pk}/rotate-secret")
    assert response.status_code == 200
    new = response.json()["secret"]
    assert re.fullmatch(r"[0-9a-f]{64}", new)
    assert new != old
    webhook.refresh_from_db()
    assert webhook.secret == new
    # Deliveries are signed with the new secret from now on.
    receiver.secret = new
    assert client.post(f"{HOOKS}/{webhook.pk}/test").json()["success"] is True
    receiver.secret = old
    assert client.post(f"{HOOKS}/{webhook.pk}/test").json()["status_code"] == 401


# --- Redeliver ------------------------------------------------------------------------------------


def test_redeliver_sends_the_same_body_and_delivery_id(
    client_for, allow_private, receiver, on_commit
):
    webhook = WebhookFactory(url=receiver.url)
    receiver.secret = webhook.secret
    with on_commit():
        services.emit(webhook.account, "license.created", {"license_id": 9})
    first = receiver.received[0]
    log = DeliveryAttempt.objects.get()
    client = client_for(webhook.account)
    with on_commit():
        response = client.post(f"{HOOKS}/{webhook.pk}/deliveries/{log.pk}/redeliver")
    assert response.status_code == 202, response.content
    delivery = Delivery.objects.get()
    assert response.json() == {
        "delivery_id": str(delivery.uuid),
        "event": "license.created",
        "status": "pending",
        "attempts": 1,
        "next_attempt_at": response.json()["next_attempt_at"],
        "created_at": response.json()["created_at"],
    }
    assert len(receiver.received) == 2
    again = receiver.received[1]
    assert again.body == first.body
    assert again.headers["X-Hub-Delivery"] == first.headers["X-Hub-Delivery"] == str(delivery.uuid)
    assert again.verified
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (Delivery.Status.SUCCEEDED, 2)
    logs = client.get(f"{HOOKS}/{webhook.pk}/deliveries").json()
    assert [(e["attempt"], e["success"]) for e in logs] == [(2, True), (1, True)]


def test_redeliver_on_an_inactive_webhook_is_refused(client_for):
    webhook = WebhookFactory(is_active=False)
    log = make_logs(webhook, 1)[0]
    before = snapshot()
    response = client_for(webhook.account).post(
        f"{HOOKS}/{webhook.pk}/deliveries/{log.pk}/redeliver"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "webhook_inactive"
    assert snapshot() == before


# --- Roles and credentials ------------------------------------------------------------------------


def every_route(webhook_id, log_id):
    base = f"{HOOKS}/{webhook_id}"
    return [
        ("get", HOOKS, None),
        ("post", HOOKS, {"url": "https://hooks.example.com/x", "events": ["license.created"]}),
        ("get", base, None),
        ("patch", base, {"is_active": False}),
        ("delete", base, None),
        ("post", f"{base}/test", None),
        ("post", f"{base}/rotate-secret", None),
        ("get", f"{base}/deliveries", None),
        ("post", f"{base}/deliveries/{log_id}/redeliver", None),
    ]


def call(client, method, url, body, **extra):
    if body is None:
        return getattr(client, method)(url, **extra)
    return getattr(client, method)(url, body, format="json", **extra)


def test_developers_get_403_everywhere_and_nothing_changes(client_for):
    developer = UserFactory(type=AccountType.DEVELOPER)
    webhook = WebhookFactory(account=developer)  # e.g. left over from a former reseller
    log = make_logs(webhook, 1)[0]
    before = snapshot()
    client = client_for(developer)
    for method, url, body in every_route(webhook.pk, log.pk):
        response = call(client, method, url, body)
        assert response.status_code == 403, (method, url)
        assert "reseller and agency" in response.json()["detail"]
    assert snapshot() == before


def test_anonymous_callers_get_401(api_client):
    webhook = WebhookFactory()
    log = make_logs(webhook, 1)[0]
    before = snapshot()
    for method, url, body in every_route(webhook.pk, log.pk):
        assert call(api_client, method, url, body).status_code == 401, (method, url)
    assert snapshot() == before


def test_api_keys_are_not_accepted(api_client):
    webhook = WebhookFactory()
    log = make_logs(webhook, 1)[0]
    _key, raw = account_services.api_key_create(user=webhook.account, name="k")
    before = snapshot()
    for method, url, body in every_route(webhook.pk, log.pk):
        response = call(api_client, method, url, body, HTTP_X_API_KEY=raw)
        assert response.status_code == 401, (method, url)
        assert response.json()["code"] == "bearer_token_required"
    assert snapshot() == before


def test_schema_describes_every_webhook_operation(api_client):
    schema = api_client.get("/api/v1/schema/?format=json").json()
    paths = schema["paths"]
    expected = {
        "/api/v1/portal/webhooks": {"get", "post"},
        "/api/v1/portal/webhooks/{webhook_id}": {"get", "patch", "delete"},
        "/api/v1/portal/webhooks/{webhook_id}/test": {"post"},
        "/api/v1/portal/webhooks/{webhook_id}/rotate-secret": {"post"},
        "/api/v1/portal/webhooks/{webhook_id}/deliveries": {"get"},
        "/api/v1/portal/webhooks/{webhook_id}/deliveries/{log_id}/redeliver": {"post"},
    }
    for path, methods in expected.items():
        assert methods <= set(paths[path]), path
        for method in methods:
            operation = paths[path][method]
            assert operation["security"] == [{"bearerAuth": []}], (path, method)
            assert {"401", "403"} <= set(operation["responses"]), (path, method)
