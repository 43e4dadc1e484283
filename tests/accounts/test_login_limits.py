"""Log-in limits: failed log-ins count per e-mail address and per client address, in the
database, shared by the portal, the checkout and the admin log-in (accounts.services)."""

from __future__ import annotations

import itertools
import re
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework_simplejwt.token_blacklist.models import OutstandingToken

from accounts import services
from accounts.models import LoginLimit
from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

PORTAL = "/api/v1/portal/auth/login"
STORE = "/rest/ec/v1/checkout/login"
ADMIN = "/admin/login/"
WRONG = "Not-The-Password-1"
_addresses = (f"10.1.{n // 250}.{n % 250 + 1}" for n in itertools.count())


def next_address() -> str:
    """A new client address per request: the per-address rate limits stay out of the way, so
    what is tested is the count per e-mail address."""
    return next(_addresses)


def log_in(path: str, email: str, password: str, address: str | None = None):
    return Client(enforce_csrf_checks=True).post(
        path,
        {"email": email, "password": password},
        content_type="application/json",
        REMOTE_ADDR=address or next_address(),
    )


def portal(email: str, password: str, address: str | None = None):
    return log_in(PORTAL, email, password, address)


def store(email: str, password: str, address: str | None = None):
    return log_in(STORE, email, password, address)


def admin(email: str, password: str, address: str | None = None, client: Client | None = None):
    """The admin's log-in form as a browser sends it: the CSRF token from the page."""
    address = address or next_address()
    client = client or Client(enforce_csrf_checks=True)
    page = client.get(ADMIN, REMOTE_ADDR=address)
    assert page.status_code == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())[1]
    return client.post(
        ADMIN,
        {"username": email, "password": password, "csrfmiddlewaretoken": token, "next": "/admin/"},
        REMOTE_ADDR=address,
    )


def locked_seconds(response) -> int:
    assert response.status_code == 429, response.content
    return int(response["Retry-After"])


@pytest.fixture
def staff():
    return UserFactory(email="staff@example.com", is_staff=True, is_superuser=True)


def test_ten_failures_on_three_surfaces_lock_the_account_on_all_three(staff):
    for _ in range(4):
        assert portal("Staff@Example.com", WRONG).status_code == 401
    for _ in range(3):
        assert store("staff@example.com ", WRONG).status_code == 401
    for _ in range(2):
        response = admin("staff@example.com", WRONG)
        assert response.status_code == 200
        assert "Please enter the correct e-mail address and password" in response.content.decode()
    # The tenth failure locks; the lock holds even for the right password, on every surface.
    assert admin("staff@example.com", WRONG).status_code == 200

    response = portal("staff@example.com", PASSWORD)
    assert 890 <= locked_seconds(response) <= 900
    assert response.json() == {
        "detail": response.json()["detail"],
        "code": "login_locked",
    }
    assert "Too many failed log-ins" in response.json()["detail"]

    response = store("staff@example.com", PASSWORD)
    assert 890 <= locked_seconds(response) <= 900
    body = response.json()
    assert (body["code"], body["data"]["status"]) == ("login_locked", 429)
    assert "Too many failed log-ins" in body["message"]
    assert "sessionid" not in response.cookies

    client = Client(enforce_csrf_checks=True)
    response = admin("staff@example.com", PASSWORD, client=client)
    assert 890 <= locked_seconds(response) <= 900
    assert "Too many failed log-ins" in response.content.decode()
    assert '<form action="/admin/login/' in response.content.decode()  # the form, again
    assert client.get("/admin/").status_code == 302  # not logged in

    assert not OutstandingToken.objects.exists()  # no token was issued


def test_an_address_without_an_account_locks_the_same_way():
    """The lock says nothing about whether an account exists."""
    UserFactory(email="real@example.com")
    for email in ("real@example.com", "ghost@example.com"):
        for _ in range(10):
            assert portal(email, WRONG).status_code == 401
    real, ghost = portal("real@example.com", WRONG), portal("ghost@example.com", WRONG)
    assert locked_seconds(real) == locked_seconds(ghost)
    assert real.json() == ghost.json()


def test_a_successful_log_in_resets_the_count():
    UserFactory(email="dev@example.com")
    for _ in range(9):
        assert portal("dev@example.com", WRONG).status_code == 401
    assert portal("dev@example.com", PASSWORD).status_code == 200
    assert not LoginLimit.objects.filter(kind="account").exists()
    for _ in range(9):
        assert portal("dev@example.com", WRONG).status_code == 401
    assert store("dev@example.com", PASSWORD).status_code == 200


def test_the_lock_grows_with_each_lock_and_ends():
    UserFactory(email="dev@example.com")
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for _ in range(10):
            portal("dev@example.com", WRONG)
        assert locked_seconds(portal("dev@example.com", PASSWORD)) == 15 * 60
        clock.move_to(start + timedelta(minutes=15, seconds=1))
        for _ in range(10):
            assert portal("dev@example.com", WRONG).status_code == 401
        assert locked_seconds(portal("dev@example.com", PASSWORD)) == 30 * 60
        clock.move_to(start + timedelta(minutes=46))
        for _ in range(10):
            portal("dev@example.com", WRONG)
        assert locked_seconds(portal("dev@example.com", PASSWORD)) == 60 * 60
        # Once it ends, the right password works and everything starts again from zero.
        clock.move_to(start + timedelta(minutes=107))
        assert portal("dev@example.com", PASSWORD).status_code == 200
        for _ in range(10):
            portal("dev@example.com", WRONG)
        assert locked_seconds(portal("dev@example.com", PASSWORD)) == 15 * 60


def test_failures_outside_the_window_do_not_add_up():
    UserFactory(email="dev@example.com")
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for _ in range(9):
            portal("dev@example.com", WRONG)
        clock.move_to(start + timedelta(minutes=16))
        for _ in range(9):
            assert portal("dev@example.com", WRONG).status_code == 401
        assert portal("dev@example.com", PASSWORD).status_code == 200


def test_failures_count_per_client_address_too(settings):
    """Many e-mail addresses tried from one address lock that address, on every surface."""
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 4
    UserFactory(email="dev@example.com")
    UserFactory(email="staff@example.com", is_staff=True)
    here = "192.0.2.7"
    assert portal("a@example.com", WRONG, here).status_code == 401
    assert store("b@example.com", WRONG, here).status_code == 401
    assert admin("c@example.com", WRONG, here).status_code == 200
    assert portal("d@example.com", WRONG, here).status_code == 401
    assert locked_seconds(portal("dev@example.com", PASSWORD, here)) == 15 * 60
    assert locked_seconds(store("dev@example.com", PASSWORD, here)) == 15 * 60
    assert locked_seconds(admin("staff@example.com", PASSWORD, here)) == 15 * 60
    # Elsewhere the same accounts log in.
    assert portal("dev@example.com", PASSWORD).status_code == 200
    assert admin("staff@example.com", PASSWORD).status_code == 302


def test_successes_from_an_address_do_not_count_against_it(settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 2
    UserFactory(email="dev@example.com")
    here = "192.0.2.8"
    for _ in range(3):  # the portal's rate limit (5 a minute per address) allows two more
        assert portal("dev@example.com", PASSWORD, here).status_code == 200
    assert portal("dev@example.com", WRONG, here).status_code == 401
    assert portal("dev@example.com", PASSWORD, here).status_code == 200


def test_the_lock_is_kept_in_the_database_not_the_cache(staff):
    for _ in range(10):
        portal("staff@example.com", WRONG)
    cache.clear()  # a Redis restart or flush
    assert portal("staff@example.com", PASSWORD).status_code == 429
    row = LoginLimit.objects.get(kind="account")
    assert (row.subject, row.locks, row.failures) == ("staff@example.com", 1, 0)
    assert row.locked_until > timezone.now()


def test_a_password_reset_lifts_the_lock(django_capture_on_commit_callbacks):
    UserFactory(email="dev@example.com")
    for _ in range(10):
        portal("dev@example.com", WRONG)
    assert portal("dev@example.com", PASSWORD).status_code == 429
    with django_capture_on_commit_callbacks(execute=True):
        services.password_reset_request(email="dev@example.com")
    token = re.search(r"^([\w-]{40,})$", mail.outbox[-1].body, re.MULTILINE)[1]
    services.password_reset(token=token, password="A-Brand-New-Passphrase-9")
    assert portal("dev@example.com", "A-Brand-New-Passphrase-9").status_code == 200


def test_staff_lift_a_lock_in_the_admin(staff):
    UserFactory(email="dev@example.com")
    for _ in range(10):
        portal("dev@example.com", WRONG)
    client = Client(enforce_csrf_checks=True)
    assert admin("staff@example.com", PASSWORD, client=client).status_code == 302
    page = client.get("/admin/accounts/loginlimit/")
    assert page.status_code == 200
    assert "dev@example.com" in page.content.decode()
    row = LoginLimit.objects.get(kind="account", subject="dev@example.com")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())[1]
    response = client.post(
        "/admin/accounts/loginlimit/",
        {"action": "lift", "_selected_action": [row.pk], "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302
    assert not LoginLimit.objects.filter(pk=row.pk).exists()
    assert portal("dev@example.com", PASSWORD).status_code == 200


def test_old_rows_are_purged():
    UserFactory(email="dev@example.com")
    portal("dev@example.com", WRONG)
    with time_machine.travel(timezone.now() + timedelta(hours=25)):
        assert services.purge_expired_tokens()["login_limits"] == 2  # e-mail and client address
    assert not LoginLimit.objects.exists()


# --- Secrets are never stored by a cache -------------------------------------------------------


def no_store(response) -> bool:
    return "no-store" in response.get("Cache-Control", "")


def test_tokens_are_answered_no_store():
    UserFactory(email="dev@example.com")
    login = portal("dev@example.com", PASSWORD)
    assert login.status_code == 200
    assert no_store(login)
    refresh = Client(enforce_csrf_checks=True).post(
        "/api/v1/portal/auth/refresh",
        {"refresh_token": login.json()["refresh_token"]},
        content_type="application/json",
    )
    assert refresh.status_code == 200
    assert no_store(refresh)


def test_new_api_keys_and_webhook_secrets_are_answered_no_store(client_for, settings):
    from tests.accounts.factories import ResellerFactory

    settings.WEBHOOKS_ALLOW_PRIVATE_URLS = True
    api = client_for(ResellerFactory())
    key = api.post("/api/v1/portal/api-keys", {"name": "CI"}, format="json")
    assert key.status_code == 201
    assert no_store(key)
    created = api.post(
        "/api/v1/portal/webhooks",
        {"url": "http://127.0.0.1:9/hook", "events": ["license.created"]},
        format="json",
    )
    assert created.status_code == 201, created.content
    assert no_store(created)
    rotated = api.post(f"/api/v1/portal/webhooks/{created.json()['id']}/rotate-secret")
    assert rotated.status_code == 200
    assert no_store(rotated)
