"""Store authentication: session cookie + nonce, application passwords, the cart session seam."""

import logging
import time

import pytest
import time_machine
from django.test import Client
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from store.common import cart_session
from store.common.nonce import TICK_SECONDS
from tests.fixtures.store import API, basic_auth, error, grant

pytestmark = pytest.mark.django_db

NONCE = "HTTP_X_PLATFORM_NONCE"


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def nonce_of(client: Client) -> str:
    response = client.get(f"{API}/auth/nonce")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["header"] == "X-Platform-Nonce"
    assert response["Cache-Control"] == "no-store"
    return body["nonce"]


def test_the_nonce_endpoint_needs_a_logged_in_session(anon):
    error(anon.get(f"{API}/auth/nonce"), 401, "not_logged_in")


def test_the_nonce_endpoint_does_not_take_an_app_password(admin_user):
    response = APIClient().get(f"{API}/auth/nonce", HTTP_AUTHORIZATION=basic_auth(admin_user))
    error(response, 401, "not_logged_in")


def test_the_nonce_endpoint_answers_the_sessions_nonce(manager):
    client = logged_in(manager)
    body = client.get(f"{API}/auth/nonce").json()
    assert body["user"] == {"id": manager.pk, "email": manager.email, "name": manager.name}
    assert 0 < body["expires_in"] <= TICK_SECONDS
    assert len(body["nonce"]) == 32


def test_cookie_plus_nonce_authenticates(manager):
    client = logged_in(manager)
    nonce = nonce_of(client)
    response = client.post(
        f"{API}/categories", {"name": "Shoes"}, content_type="application/json", **{NONCE: nonce}
    )
    assert response.status_code == 201, response.content
    assert response.json()["name"] == "Shoes"


def test_a_cookie_without_the_nonce_counts_as_logged_out(manager):
    client = logged_in(manager)
    response = client.post(f"{API}/categories", {"name": "Shoes"}, content_type="application/json")
    error(response, 401, "not_logged_in")
    # ...and public reads still work, as for anyone.
    assert client.get(f"{API}/categories").status_code == 200


def test_a_browser_401_does_not_ask_for_basic_credentials(manager):
    response = logged_in(manager).post(f"{API}/categories", {}, content_type="application/json")
    assert response.status_code == 401
    assert not response["WWW-Authenticate"].startswith("Basic")
    assert "X-Platform-Nonce" in response["WWW-Authenticate"]


def test_an_external_client_401_asks_for_basic(anon):
    response = anon.post(f"{API}/categories", {}, format="json")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Basic realm="store"'


def test_a_wrong_nonce_is_403_even_on_public_routes(manager):
    client = logged_in(manager)
    for method, path in (("get", f"{API}/products"), ("post", f"{API}/categories")):
        response = getattr(client, method)(path, **{NONCE: "0" * 32})
        error(response, 403, "invalid_nonce")


def test_a_nonce_of_another_session_is_refused(manager):
    first, second = logged_in(manager), logged_in(manager)
    error(
        second.post(
            f"{API}/categories",
            {"name": "X"},
            content_type="application/json",
            **{NONCE: nonce_of(first)},
        ),
        403,
        "invalid_nonce",
    )


def test_logging_out_ends_the_nonce(manager):
    client = logged_in(manager)
    nonce = nonce_of(client)
    client.logout()
    # No session any more: the nonce means nothing; the request is anonymous.
    error(
        client.post(
            f"{API}/categories", {"name": "X"}, content_type="application/json", **{NONCE: nonce}
        ),
        401,
    )


def test_a_nonce_from_the_previous_tick_works_and_a_fresh_one_comes_back(manager):
    client = logged_in(manager)
    start = (int(time.time()) // TICK_SECONDS + 1) * TICK_SECONDS + 60  # early in the next tick
    with time_machine.travel(start, tick=False):
        old = nonce_of(client)
    with time_machine.travel(start + TICK_SECONDS, tick=False):
        response = client.get(f"{API}/products", **{NONCE: old})
        assert response.status_code == 200
        fresh = response["X-Platform-Nonce"]
        assert fresh != old
        assert fresh == nonce_of(client)
        assert "X-Platform-Nonce" not in client.get(f"{API}/products", **{NONCE: fresh})
    with time_machine.travel(start + 2 * TICK_SECONDS, tick=False):
        error(client.get(f"{API}/products", **{NONCE: old}), 403, "invalid_nonce")


def test_an_inactive_account_session_is_logged_out(manager):
    client = logged_in(manager)
    nonce = nonce_of(client)
    manager.is_active = False
    manager.save()
    response = client.post(
        f"{API}/categories", {"name": "X"}, content_type="application/json", **{NONCE: nonce}
    )
    assert response.status_code in (401, 403)


def test_application_passwords_over_basic(manager, store_client):
    response = store_client(manager).post(f"{API}/categories", {"name": "Bags"}, format="json")
    assert response.status_code == 201


def test_a_wrong_application_password_is_401(manager):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Basic bWFuYWdlckBleGFtcGxlLmNvbTpub3BlIG5vcGUgbm9wZQ==")
    error(client.get(f"{API}/products"), 401, "invalid_app_password")


def test_a_capability_given_to_the_user_directly_counts(customer, store_client):
    client = store_client(customer)
    error(client.post(f"{API}/categories", {"name": "X"}, format="json"), 403)
    grant(customer, "ec_manage_products")
    client = store_client(type(customer).objects.get(pk=customer.pk))
    assert client.post(f"{API}/categories", {"name": "X"}, format="json").status_code == 201


# --- Cart session seam (spec: Authentication 3) ------------------------------------------------

TOKEN_A = "a" * 43
TOKEN_B = "b" * 43


def drf_request(*, cookie=None, query=None, header=None, body=None) -> Request:
    factory = APIRequestFactory()
    path = "/rest/ec/v1/cart" + (f"?cart_id={query}" if query else "")
    headers = {"HTTP_X_CART_ID": header} if header else {}
    if body is not None:
        raw = factory.post(path, body, format="json", **headers)
    else:
        raw = factory.get(path, **headers)
    if cookie:
        raw.COOKIES[cart_session.CART_COOKIE] = cookie
    from rest_framework.parsers import JSONParser

    return Request(raw, parsers=[JSONParser()])


def test_the_cart_cookie_is_named_with_the_prefix():
    assert cart_session.CART_COOKIE == "ec_cart_id"


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({}, (None, None)),
        ({"cookie": TOKEN_A}, (TOKEN_A, "cookie")),
        ({"body": {"cart_id": TOKEN_A}}, (TOKEN_A, "body")),
        ({"query": TOKEN_A}, (TOKEN_A, "query")),
        ({"header": TOKEN_A}, (TOKEN_A, "header")),
        ({"query": "short"}, (None, None)),
    ],
)
def test_the_cart_token_comes_from_the_cookie_or_a_hint(kwargs, expected):
    token = cart_session.cart_token(drf_request(**kwargs))
    assert (token.value, token.source) == expected


def test_the_cookie_wins_over_a_conflicting_hint_and_the_mismatch_is_only_logged(caplog):
    with caplog.at_level(logging.INFO, logger="store.common.cart_session"):
        token = cart_session.cart_token(drf_request(cookie=TOKEN_A, header=TOKEN_B))
    assert (token.value, token.source) == (TOKEN_A, "cookie")
    assert "ignored" in caplog.text


def test_issued_cart_tokens_are_valid_and_set_as_an_http_only_cookie():
    from django.http import HttpResponse

    token = cart_session.issue_cart_token()
    assert cart_session._valid(token)
    response = HttpResponse()
    cart_session.set_cart_cookie(response, token)
    morsel = response.cookies[cart_session.CART_COOKIE]
    assert morsel.value == token
    assert morsel["httponly"] is True
    assert morsel["samesite"] == "Lax"
