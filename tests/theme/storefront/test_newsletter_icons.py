"""/newsletter/subscribe (double opt-in: the e-mail leaves after the commit, its link confirms;
no enumeration; rate limited) and /icons (static, versioned, cacheable)."""

import re

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client

from store.emails.models import SentEmail
from tests.theme.storefront.conftest import BASE, error, limit
from theme.storefront import services
from theme.storefront.models import NewsletterSubscription

pytestmark = pytest.mark.django_db
SUBSCRIBE = f"{BASE}/newsletter/subscribe"


def subscribe(client, email, capture):
    with capture(execute=True):
        return client.post(SUBSCRIBE, {"email": email}, format="json")


def link_of(message) -> str:
    return re.search(r"https?://\S+/newsletter/confirm/[^\s\"<]+", message.body).group(0)


def test_subscribing_sends_a_confirmation_and_the_link_confirms(
    anon, django_capture_on_commit_callbacks
):
    response = subscribe(anon, "Reader@Example.COM", django_capture_on_commit_callbacks)
    assert response.status_code == 202, response.content
    subscription = NewsletterSubscription.objects.get()
    assert subscription.email == "reader@example.com"
    assert subscription.status == "pending"
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["reader@example.com"]
    assert "Confirm your subscription" in message.subject
    assert SentEmail.objects.get().type == "newsletter_confirm"
    link = link_of(message)
    assert link in message.alternatives[0][0]
    # follow the link as a browser would
    answer = Client().get(link.removeprefix(settings.FRONTEND_URL))
    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "confirmed"
    subscription.refresh_from_db()
    assert subscription.status == "confirmed"
    assert subscription.confirmed_at is not None
    again = Client().get(link.removeprefix(settings.FRONTEND_URL))  # again: no change
    assert again.status_code == 200


def test_the_answer_is_the_same_for_new_pending_and_confirmed_addresses(
    anon, django_capture_on_commit_callbacks
):
    first = subscribe(anon, "a@example.com", django_capture_on_commit_callbacks)
    pending = subscribe(anon, "a@example.com", django_capture_on_commit_callbacks)
    NewsletterSubscription.objects.create(email="b@example.com", status="confirmed")
    confirmed = subscribe(anon, "b@example.com", django_capture_on_commit_callbacks)
    assert first.status_code == pending.status_code == confirmed.status_code == 202
    assert first.json() == pending.json() == confirmed.json()
    # a pending address is not mailed again within the resend window; a confirmed one never
    assert len(mail.outbox) == 1


def test_a_pending_address_is_mailed_again_after_the_resend_window(
    anon, settings, django_capture_on_commit_callbacks
):
    settings.THEME_NEWSLETTER_RESEND_SECONDS = 0
    subscribe(anon, "a@example.com", django_capture_on_commit_callbacks)
    subscribe(anon, "a@example.com", django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 2


def test_bad_and_expired_tokens_are_refused(anon, time_machine, django_capture_on_commit_callbacks):
    time_machine.move_to("2026-01-01T00:00:00Z")
    subscribe(anon, "a@example.com", django_capture_on_commit_callbacks)
    path = link_of(mail.outbox[0]).removeprefix(settings.FRONTEND_URL)
    error(anon.get(path + "x"), 400, "invalid_token")
    error(anon.get(f"{BASE}/newsletter/confirm/nonsense"), 400, "invalid_token")
    time_machine.move_to("2026-01-04T00:00:00Z")
    error(anon.get(path), 400, "token_expired")
    assert NewsletterSubscription.objects.get().status == "pending"


def test_a_token_for_another_address_row_is_refused(anon):
    subscription = NewsletterSubscription.objects.create(email="a@example.com")
    token = services.confirm_token(subscription)
    subscription.email = "changed@example.com"
    subscription.save()
    error(anon.get(f"{BASE}/newsletter/confirm/{token}"), 400, "invalid_token")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"email": "not-an-address"},
        {"email": 42},
        {"email": ["a@example.com"]},
        {"email": "a" * 250 + "@example.com"},
    ],
)
def test_bad_bodies_are_400(anon, body):
    error(anon.post(SUBSCRIBE, body, format="json"), 400, "invalid_param")
    assert not NewsletterSubscription.objects.exists()


def test_subscribing_is_rate_limited(anon, settings, django_capture_on_commit_callbacks):
    limit(settings, "newsletter_subscribe", "2/hour")
    for n in range(2):
        assert (
            subscribe(anon, f"{n}@example.com", django_capture_on_commit_callbacks).status_code
            == 202
        )
    response = subscribe(anon, "3@example.com", django_capture_on_commit_callbacks)
    error(response, 429)
    assert "Retry-After" in response


def test_a_csrf_enforcing_browser_gets_json(django_capture_on_commit_callbacks):
    browser = Client(enforce_csrf_checks=True)
    with django_capture_on_commit_callbacks(execute=True):
        response = browser.post(
            SUBSCRIBE, {"email": "c@example.com"}, content_type="application/json"
        )
    assert response.status_code == 202
    assert response["Content-Type"].startswith("application/json")


# --- Icons --------------------------------------------------------------------------------------


def test_icons_are_a_versioned_cacheable_list(anon, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = anon.get(f"{BASE}/icons")
    assert response.status_code == 200
    body = response.json()
    assert body["version"] == "1.0.0"
    names = [icon["name"] for icon in body["icons"]]
    assert {"cart", "heart", "search", "truck"} <= set(names)
    assert len(names) == len(set(names))
    assert all(icon["category"] in body["categories"] for icon in body["icons"])
    assert response["Cache-Control"] == "public, max-age=3600"
    etag = response["ETag"]
    again = anon.get(f"{BASE}/icons", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again.content == b""
    assert anon.get(f"{BASE}/icons", HTTP_IF_NONE_MATCH='"other"').status_code == 200


def test_icons_refuse_writes(anon):
    for method in ("post", "put", "delete"):
        response = getattr(anon, method)(f"{BASE}/icons", {}, format="json")
        assert response.status_code in (401, 403, 405), (method, response.status_code)
        assert response["Content-Type"].startswith("application/json")
