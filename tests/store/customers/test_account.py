"""My account: the overview, my addresses, my details (an e-mail change is verified again) and
my password (other sessions and tokens end); own data only, session + nonce for browsers."""

import re

import pytest
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import AppPassword, User
from store.customers import services
from store.customers.models import Customer, CustomerAddress
from tests.accounts.factories import PASSWORD, UserFactory
from tests.fixtures.store import API, basic_auth, error
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

ACCOUNT = f"{API}/account"
NONCE = "HTTP_X_PLATFORM_NONCE"
LOGIN = "/api/v1/portal/auth/login"
ATHENS = {
    "first_name": "Sam",
    "last_name": "Shopper",
    "address_1": "Odos 1",
    "city": "Athens",
    "postcode": "10558",
    "country": "GR",
}


@pytest.fixture
def me(customer):
    return services.customer_for_user(user=customer)


def browser_of(user) -> tuple[Client, str]:
    """A browser logged in as `user` that checks CSRF, and its nonce."""
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    return browser, browser.get(f"{API}/auth/nonce").json()["nonce"]


# --- Overview ------------------------------------------------------------------------------------


def test_the_overview(customer_client, customer, me):
    CustomerAddress.objects.create(customer=me, type="billing", is_default=True, address=ATHENS)
    product = stocked()
    orders = [make_order(line(product), customer=me, status=s) for s in ("pending", "completed")]
    make_order(line(product), customer=CustomerFactory(user=UserFactory()))  # someone else's
    body = customer_client.get(ACCOUNT).json()
    assert body["customer"] == {
        "customer_id": me.pk,
        "email": "shopper@example.com",
        "email_verified": True,
        "name": "Sam Shopper",
        "first_name": "Sam",
        "last_name": "Shopper",
        "company": "",
        "phone": "",
    }
    assert body["addresses"]["billing"]["city"] == "Athens"
    assert body["addresses"]["shipping"] is None
    assert body["orders"]["total"] == 2
    assert (body["orders"]["by_status"]["pending"], body["orders"]["by_status"]["completed"]) == (
        1,
        1,
    )
    assert [o["id"] for o in body["recent_orders"]] == [orders[1].pk, orders[0].pk]


def test_an_account_without_a_customer_sees_an_empty_overview(store_client):
    user = UserFactory(name="Nia New")
    body = store_client(user).get(ACCOUNT).json()
    assert body["customer"]["customer_id"] is None
    assert (body["customer"]["first_name"], body["customer"]["last_name"]) == ("Nia", "New")
    assert body["orders"]["total"] == 0
    assert body["recent_orders"] == []
    assert not Customer.objects.exists()  # reading makes nothing


@pytest.mark.parametrize(
    "path", ["", "/addresses", "/addresses/billing", "/addresses/shipping", "/details"]
)
def test_account_reads_need_a_login(anon, path):
    error(anon.get(ACCOUNT + path), 401, "not_logged_in")


def test_account_writes_need_a_login(anon, customer):
    error(anon.put(f"{ACCOUNT}/addresses/billing", ATHENS, format="json"), 401)
    error(anon.patch(f"{ACCOUNT}/details", {"first_name": "X"}, format="json"), 401)
    body = {"current_password": PASSWORD, "new_password": "Another-Long-Phrase-1"}
    error(anon.post(f"{ACCOUNT}/password", body, format="json"), 401)
    customer.refresh_from_db()
    assert customer.check_password(PASSWORD)


def test_an_unknown_address_type_is_404(customer_client):
    error(customer_client.get(f"{ACCOUNT}/addresses/home"), 404)
    error(customer_client.put(f"{ACCOUNT}/addresses/home", ATHENS, format="json"), 404)


# --- Addresses -----------------------------------------------------------------------------------


def test_my_addresses(customer_client, customer):
    assert customer_client.get(f"{ACCOUNT}/addresses").json() == {
        "billing": None,
        "shipping": None,
    }
    error(customer_client.get(f"{ACCOUNT}/addresses/billing"), 404, "address_not_found")
    response = customer_client.put(f"{ACCOUNT}/addresses/billing", ATHENS, format="json")
    assert response.status_code == 200, response.content
    saved = response.json()
    assert (saved["type"], saved["is_default"], saved["city"]) == ("billing", True, "Athens")
    # the account got its customer on the first write
    me = Customer.objects.get(user=customer)
    assert saved["customer_id"] == me.pk
    again = customer_client.put(
        f"{ACCOUNT}/addresses/billing", {**ATHENS, "city": "Patra"}, format="json"
    ).json()
    assert (again["id"], again["city"]) == (saved["id"], "Patra")
    assert customer_client.get(f"{ACCOUNT}/addresses/billing").json() == again
    shipping = customer_client.put(
        f"{ACCOUNT}/addresses/shipping", {**ATHENS, "state": "gr-i"}, format="json"
    ).json()
    assert shipping["region"] == "I"  # answered as region, sent as state
    both = customer_client.get(f"{ACCOUNT}/addresses").json()
    assert (both["billing"]["id"], both["shipping"]["id"]) == (saved["id"], shipping["id"])
    assert CustomerAddress.objects.count() == 2


def test_my_address_must_be_complete_and_valid(customer_client, me):
    url = f"{ACCOUNT}/addresses/billing"
    answer = error(customer_client.put(url, {"city": "Athens"}, format="json"), 400)
    assert {"first_name", "last_name", "address_1", "postcode", "country"} <= set(
        answer["data"]["params"]
    )
    error(customer_client.put(url, {**ATHENS, "country": "Greece"}, format="json"), 400)
    error(customer_client.put(url, [ATHENS], format="json"), 400)
    error(customer_client.put(url, {**ATHENS, "city": {"name": "x"}}, format="json"), 400)
    raw = '{"first_name": "a\\u0000"}'
    error(customer_client.generic("PUT", url, raw, content_type="application/json"), 400)
    assert CustomerAddress.objects.count() == 0


def test_i_see_only_my_own_addresses(customer_client, store_client, me):
    other_user = UserFactory()
    other = services.customer_for_user(user=other_user)
    CustomerAddress.objects.create(customer=other, type="billing", is_default=True, address=ATHENS)
    assert customer_client.get(f"{ACCOUNT}/addresses").json()["billing"] is None
    error(customer_client.get(f"{ACCOUNT}/addresses/billing"), 404, "address_not_found")
    # staff address routes are not open to customers
    row = other.addresses.get()
    error(customer_client.get(f"{API}/addresses/{row.pk}"), 403)
    customer_client.put(f"{ACCOUNT}/addresses/billing", {**ATHENS, "city": "Mine"}, format="json")
    row.refresh_from_db()
    assert row.address["city"] == "Athens"
    assert store_client(other_user).get(f"{ACCOUNT}/addresses").json()["billing"]["city"] == (
        "Athens"
    )


def test_browser_writes_need_the_nonce(customer):
    browser, nonce = browser_of(customer)
    url = f"{ACCOUNT}/addresses/billing"
    error(browser.put(url, ATHENS, content_type="application/json"), 401, "not_logged_in")
    error(
        browser.put(url, ATHENS, content_type="application/json", **{NONCE: "0" * 32}),
        403,
        "invalid_nonce",
    )
    assert CustomerAddress.objects.count() == 0
    response = browser.put(url, ATHENS, content_type="application/json", **{NONCE: nonce})
    assert response.status_code == 200, response.content
    details = browser.patch(
        f"{ACCOUNT}/details", {"first_name": "Samuel"}, content_type="application/json"
    )
    error(details, 401, "not_logged_in")
    details = browser.patch(
        f"{ACCOUNT}/details",
        {"first_name": "Samuel"},
        content_type="application/json",
        **{NONCE: nonce},
    )
    assert details.json()["first_name"] == "Samuel"


# --- Details -------------------------------------------------------------------------------------


def test_my_names(customer_client, customer, me):
    response = customer_client.patch(
        f"{ACCOUNT}/details", {"first_name": " Samuel ", "last_name": "Smith"}, format="json"
    )
    body = response.json()
    assert (body["first_name"], body["last_name"], body["name"]) == (
        "Samuel",
        "Smith",
        "Samuel Smith",
    )
    assert "email_verification_sent" not in body
    customer.refresh_from_db()
    me.refresh_from_db()
    assert (customer.name, me.first_name, me.last_name) == ("Samuel Smith", "Samuel", "Smith")
    assert customer_client.get(f"{ACCOUNT}/details").json() == body
    put = customer_client.put(f"{ACCOUNT}/details", {"last_name": "Stone"}, format="json").json()
    assert (put["first_name"], put["last_name"]) == ("Samuel", "Stone")
    longest = {"first_name": "F" * 100, "last_name": "L" * 100}
    body = customer_client.patch(f"{ACCOUNT}/details", longest, format="json").json()
    assert (body["first_name"], body["last_name"]) == ("F" * 100, "L" * 100)
    assert body["name"] == ("F" * 100 + " " + "L" * 100)[:150]  # the account's name is shorter
    too_long = {"first_name": "x" * 101}
    error(customer_client.patch(f"{ACCOUNT}/details", too_long, format="json"), 400)


def test_my_company_and_phone(customer_client, me):
    url = f"{ACCOUNT}/details"
    body = customer_client.patch(
        url, {"company": " Shopper Ltd ", "phone": "+30 210 000 0000"}, format="json"
    ).json()
    assert (body["company"], body["phone"]) == ("Shopper Ltd", "+30 210 000 0000")
    me.refresh_from_db()
    assert (me.company, me.phone, me.first_name) == ("Shopper Ltd", "+30 210 000 0000", "Sam")
    assert customer_client.get(url).json() == body
    for refused in ({"phone": "1" * 41}, {"company": "c" * 201}, {"phone": "0\x00"}):
        error(customer_client.patch(url, refused, format="json"), 400)
    me.refresh_from_db()
    assert (me.company, me.phone) == ("Shopper Ltd", "+30 210 000 0000")
    cleared = customer_client.put(url, {"company": ""}, format="json").json()
    assert (cleared["company"], cleared["phone"]) == ("", "+30 210 000 0000")


def test_an_email_change_needs_the_password_and_is_verified_again(
    customer_client, customer, me, django_capture_on_commit_callbacks
):
    url = f"{ACCOUNT}/details"
    refused = error(
        customer_client.patch(url, {"email": "new@example.com"}, format="json"),
        400,
        "incorrect_password",
    )
    assert "current_password" in refused["data"]["params"]
    error(
        customer_client.patch(
            url, {"email": "new@example.com", "current_password": "wrong"}, format="json"
        ),
        400,
        "incorrect_password",
    )
    customer.refresh_from_db()
    assert (customer.email, customer.email_verified) == ("shopper@example.com", True)
    with django_capture_on_commit_callbacks(execute=True):
        response = customer_client.patch(
            url,
            {"email": "New@Example.com", "current_password": PASSWORD},
            format="json",
        )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["email"], body["email_verified"], body["email_verification_sent"]) == (
        "new@example.com",
        False,
        True,
    )
    customer.refresh_from_db()
    me.refresh_from_db()
    assert (customer.email, customer.email_verified, me.email) == (
        "new@example.com",
        False,
        "new@example.com",
    )
    message = mail.outbox[-1]
    assert message.to == ["new@example.com"]
    token = re.search(r"token=([\w-]+)", message.body)[1]
    # Until verified the portal's log-in refuses the account; the link verifies it.
    portal = APIClient()
    login = portal.post(LOGIN, {"email": "new@example.com", "password": PASSWORD}, format="json")
    assert login.status_code == 403
    verified = portal.post("/api/v1/portal/auth/verify-email", {"token": token}, format="json")
    assert verified.status_code == 200, verified.content
    customer.refresh_from_db()
    assert customer.email_verified is True
    login = portal.post(LOGIN, {"email": "new@example.com", "password": PASSWORD}, format="json")
    assert login.status_code == 200


def test_an_email_change_to_a_taken_address_changes_nothing(customer_client, customer, me):
    UserFactory(email="taken@example.com")
    CustomerFactory(email="guest@example.com")
    url = f"{ACCOUNT}/details"
    for address, code in (("taken@example.com", "email_taken"), ("guest@example.com", None)):
        body = {"email": address, "current_password": PASSWORD, "first_name": "Changed"}
        answer = error(customer_client.patch(url, body, format="json"), 400, code)
        assert "email" in answer["data"]["params"]
    error(customer_client.patch(url, {"email": "not-an-address"}, format="json"), 400)
    customer.refresh_from_db()
    me.refresh_from_db()
    assert (customer.email, me.email, me.first_name) == (
        "shopper@example.com",
        "shopper@example.com",
        "Sam",
    )
    assert len(mail.outbox) == 0


def test_the_same_email_in_another_case_is_no_change(customer_client, customer, me):
    body = customer_client.patch(
        f"{ACCOUNT}/details", {"email": "SHOPPER@example.com"}, format="json"
    ).json()
    assert (body["email"], body["email_verified"]) == ("shopper@example.com", True)
    assert "email_verification_sent" not in body


# --- Password ------------------------------------------------------------------------------------

NEW = "Another-Long-Phrase-77"


def test_a_password_change_ends_other_sessions_and_tokens(customer, me):
    # Four ways in: a portal refresh token, two app passwords, and two browser sessions.
    portal = APIClient()
    tokens = portal.post(LOGIN, {"email": customer.email, "password": PASSWORD}, format="json")
    refresh = tokens.json()["refresh_token"]
    kept_auth = basic_auth(customer)
    other_auth = basic_auth(customer)
    other_browser, other_nonce = browser_of(customer)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=kept_auth)
    response = client.post(
        f"{ACCOUNT}/password",
        {"current_password": PASSWORD, "new_password": NEW},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json() == {
        "changed": True,
        "refresh_tokens_revoked": 1,
        "app_passwords_deleted": 1,
    }
    customer.refresh_from_db()
    assert customer.check_password(NEW)
    # the credential of this request still works; the other app password does not
    assert client.get(ACCOUNT).status_code == 200
    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION=other_auth)
    error(stranger.get(ACCOUNT), 401)
    assert AppPassword.objects.filter(user=customer).count() == 1
    # the portal's refresh token is revoked
    again = portal.post("/api/v1/portal/auth/refresh", {"refresh_token": refresh}, format="json")
    assert again.status_code == 401
    # the other browser session is logged out
    assert other_browser.get(f"{API}/auth/nonce").status_code == 401
    assert other_browser.get(ACCOUNT, **{NONCE: other_nonce}).status_code == 401
    # the new password logs in
    assert (
        APIClient()
        .post(LOGIN, {"email": customer.email, "password": NEW}, format="json")
        .status_code
        == 200
    )


def test_the_browser_changing_the_password_stays_logged_in(customer):
    browser, nonce = browser_of(customer)
    body = {"current_password": PASSWORD, "new_password": NEW}
    error(browser.post(f"{ACCOUNT}/password", body, content_type="application/json"), 401)
    response = browser.put(
        f"{ACCOUNT}/password", body, content_type="application/json", **{NONCE: nonce}
    )
    assert response.status_code == 200, response.content
    fresh = response["X-Platform-Nonce"]
    assert fresh != nonce
    assert browser.get(ACCOUNT, **{NONCE: fresh}).status_code == 200
    assert browser.get(f"{API}/auth/nonce").json()["nonce"] == fresh


@pytest.mark.parametrize(
    ("body", "code", "param"),
    [
        ({"current_password": "wrong", "new_password": NEW}, "incorrect_password", None),
        ({"current_password": PASSWORD, "new_password": "short"}, "weak_password", None),
        ({"current_password": PASSWORD, "new_password": "password"}, "weak_password", None),
        ({"current_password": PASSWORD}, "invalid_param", "new_password"),
        ({"new_password": NEW}, "invalid_param", "current_password"),
        ({"current_password": PASSWORD, "new_password": ["x"]}, "invalid_param", "new_password"),
        ({"current_password": PASSWORD, "new_password": "x" * 5000}, "invalid_param", None),
    ],
)
def test_refused_password_changes_change_nothing(customer_client, customer, body, code, param):
    answer = error(customer_client.post(f"{ACCOUNT}/password", body, format="json"), 400, code)
    if param:
        assert param in answer["data"]["params"]
    customer.refresh_from_db()
    assert customer.check_password(PASSWORD)
    assert AppPassword.objects.filter(user=customer).count() == 1
    assert customer_client.get(ACCOUNT).status_code == 200


def test_a_weak_password_names_the_reasons(customer_client):
    body = {"current_password": PASSWORD, "new_password": "123"}
    answer = error(customer_client.post(f"{ACCOUNT}/password", body, format="json"), 400)
    assert "too short" in answer["data"]["params"]["new_password"]


def test_guessing_the_current_password_locks_out(customer_client, customer, settings):
    body = {"current_password": "wrong", "new_password": NEW}
    statuses = [
        customer_client.post(f"{ACCOUNT}/password", body, format="json").status_code
        for _ in range(settings.LOGIN_FAILURE_LIMIT + 1)
    ]
    assert statuses[-1] == 429
    assert set(statuses[:-1]) == {400}
    right = {"current_password": PASSWORD, "new_password": NEW}
    error(customer_client.post(f"{ACCOUNT}/password", right, format="json"), 429, "login_locked")
    assert User.objects.get(pk=customer.pk).check_password(PASSWORD)
