"""/checkout/check-email, /checkout/login and /checkout/create-account."""

import pytest
from django.core import mail

from accounts.models import User
from store.cart.models import Cart
from store.checkout.models import Checkout
from store.settings import services as settings_services
from tests.accounts.factories import PASSWORD, UserFactory
from tests.fixtures.store import API, error
from tests.store.cart.helpers import add
from tests.store.checkout.helpers import CHECKOUT, started

pytestmark = pytest.mark.django_db

CHECK = f"{CHECKOUT}/check-email"
LOGIN = f"{CHECKOUT}/login"
SIGN_UP = f"{CHECKOUT}/create-account"


def limit(settings, scope: str, rate: str) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            scope: rate,
        },
    }


# --- check-email ---------------------------------------------------------------------------------


def test_checking_an_email(anon, customer):
    response = anon.post(CHECK, {"email": "Shopper@Example.com"}, format="json")
    assert response.status_code == 200
    assert response.json() == {
        "email": "shopper@example.com",
        "account_exists": True,
        "guest_checkout": True,
        "account_creation": False,
    }
    response = anon.post(CHECK, {"email": "new@example.com"}, format="json")
    assert response.json()["account_exists"] is False
    assert response.json()["account_creation"] is True
    body = error(anon.post(CHECK, {"email": "nope"}, format="json"), 400, "invalid_param")
    assert list(body["data"]["params"]) == ["email"]


def test_checking_emails_is_rate_limited(anon, settings):
    limit(settings, "checkout_check_email", "2/min")
    for _ in range(2):
        assert anon.post(CHECK, {"email": "a@example.com"}, format="json").status_code == 200
    response = anon.post(CHECK, {"email": "a@example.com"}, format="json")
    error(response, 429, "throttled")
    assert int(response["Retry-After"]) >= 1


# --- login ---------------------------------------------------------------------------------------


def test_logging_in_starts_a_session_that_works_with_the_nonce(anon, customer, shop):
    body = started(anon, shop)
    response = anon.post(
        LOGIN, {"email": "SHOPPER@example.com", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 200, response.content
    answer = response.json()
    assert set(answer) == {"user", "nonce", "header", "expires_in", "cart", "checkout_id"}
    assert answer["user"] == {
        "id": customer.pk,
        "email": "shopper@example.com",
        "name": "Sam Shopper",
        "email_verified": True,
    }
    assert answer["header"] == "X-Platform-Nonce"
    assert answer["checkout_id"] == body["id"]
    assert answer["cart"]["item_count"] == 3
    assert "sessionid" in response.cookies
    cart = Cart.objects.get()
    assert cart.user == customer  # the guest cart became the account's
    checkout = Checkout.objects.get()
    assert checkout.user == customer
    # With the nonce the session is the customer; the cookie alone is not.
    mine = anon.get(f"{API}/account/orders", HTTP_X_PLATFORM_NONCE=answer["nonce"])
    assert mine.status_code == 200
    error(anon.get(f"{API}/account/orders"), 401, "not_logged_in")


def test_wrong_credentials_are_refused(anon, customer, shop):
    add(anon, shop.lamp.pk, 1)
    for email, password in (
        ("shopper@example.com", "wrong"),
        ("nobody@example.com", PASSWORD),
    ):
        response = anon.post(LOGIN, {"email": email, "password": password}, format="json")
        error(response, 401, "invalid_credentials")
        assert "sessionid" not in response.cookies
    customer.is_active = False
    customer.save()
    error(
        anon.post(LOGIN, {"email": "shopper@example.com", "password": PASSWORD}, format="json"),
        401,
        "invalid_credentials",
    )
    assert Cart.objects.get().user is None
    body = error(anon.post(LOGIN, {"email": "shopper@example.com"}, format="json"), 400)
    assert list(body["data"]["params"]) == ["password"]


def test_an_unverified_account_may_log_in_at_the_checkout(anon):
    UserFactory(email="new@example.com", email_verified=False)
    response = anon.post(LOGIN, {"email": "new@example.com", "password": PASSWORD}, format="json")
    assert response.status_code == 200
    assert response.json()["user"]["email_verified"] is False


def test_logging_in_is_rate_limited(anon, customer, settings):
    limit(settings, "checkout_login", "2/min")
    for _ in range(2):
        anon.post(LOGIN, {"email": "shopper@example.com", "password": "x"}, format="json")
    response = anon.post(
        LOGIN, {"email": "shopper@example.com", "password": PASSWORD}, format="json"
    )
    error(response, 429, "throttled")


# --- create-account ------------------------------------------------------------------------------


def sign_up(client, **body):
    payload = {"email": "new@example.com", "password": "Sturdy-Passphrase-2026", **body}
    return client.post(SIGN_UP, payload, format="json")


def test_creating_an_account_logs_it_in_and_sends_the_verification(
    anon, shop, django_capture_on_commit_callbacks
):
    body = started(anon, shop, email="")
    with django_capture_on_commit_callbacks(execute=True):
        response = sign_up(anon, first_name="Nia", last_name="Newcomer")
    assert response.status_code == 201, response.content
    answer = response.json()
    user = User.objects.get(email="new@example.com")
    assert (user.name, user.email_verified, user.is_active) == ("Nia Newcomer", False, True)
    assert answer["user"]["id"] == user.pk
    assert answer["checkout_id"] == body["id"]
    checkout = Checkout.objects.get()
    assert (checkout.user, checkout.email) == (user, "new@example.com")
    assert [m.to for m in mail.outbox] == [["new@example.com"]]
    assert "confirm" in mail.outbox[0].body
    nonce = answer["nonce"]
    assert anon.get(f"{API}/account/orders", HTTP_X_PLATFORM_NONCE=nonce).status_code == 200


def test_an_address_with_an_account_is_refused(anon, customer):
    error(sign_up(anon, email="Shopper@example.com"), 400, "email_taken")
    assert User.objects.count() == 1


def test_a_weak_password_is_named(anon):
    body = error(sign_up(anon, password="12345678"), 400, "invalid_param")
    assert list(body["data"]["params"]) == ["password"]
    assert not User.objects.filter(email="new@example.com").exists()


def test_creating_accounts_can_be_turned_off(anon):
    settings_services.settings_update(section="checkout", values={"account_creation": False})
    error(sign_up(anon), 403, "account_creation_disabled")
    assert not User.objects.filter(email="new@example.com").exists()


def test_a_logged_in_shopper_creates_no_second_account(customer_client):
    error(sign_up(customer_client), 400, "already_logged_in")


def test_creating_accounts_is_rate_limited(anon, settings):
    limit(settings, "checkout_create_account", "1/min")
    assert sign_up(anon).status_code == 201
    error(sign_up(anon, email="other@example.com"), 429, "throttled")
