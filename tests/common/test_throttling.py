import pytest

from tests.accounts.factories import UserFactory
from tests.fixtures.waiting import wait_until

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.stand_in_urls")]

BASE = "/api/v1/portal/auth/"


def post(client, endpoint, body, **extra):
    return client.post(BASE + endpoint, body, format="json", **extra)


def test_sixth_login_in_a_minute_is_429_with_retry_after(api_client):
    UserFactory(email="dev@example.com")
    body = {"email": "dev@example.com", "password": "wrong-password"}
    for _ in range(5):
        assert post(api_client, "login", body).status_code == 401
    response = post(api_client, "login", body)
    assert response.status_code == 429
    assert response.json()["code"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 60


def test_the_limit_holds_even_for_correct_credentials(api_client):
    UserFactory(email="dev@example.com")
    body = {"email": "dev@example.com", "password": "wrong-password"}
    for _ in range(5):
        post(api_client, "login", body)
    good = {"email": "dev@example.com", "password": "Sturdy-Passphrase-2026"}
    assert post(api_client, "login", good).status_code == 429


@pytest.mark.parametrize(
    ("endpoint", "limit", "body"),
    [
        ("register", 5, {"email": "not-an-email", "password": "x", "name": "n"}),
        ("forgot-password", 3, {"email": "a@example.com"}),
        ("resend-verification", 3, {"email": "a@example.com"}),
        ("refresh", 10, {"refresh_token": "x"}),
    ],
)
def test_spec_limits(api_client, endpoint, limit, body):
    for _ in range(limit):
        assert post(api_client, endpoint, body).status_code != 429
    response = post(api_client, endpoint, body)
    assert response.status_code == 429
    assert response.has_header("Retry-After")


def test_window_reopens_after_its_period(api_client, settings):
    # A one-second period, waited out for real: the cache (Redis too) expires the counter. The
    # refusals while it waits count in the same window and do not extend it.
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "forgot_password": "3/s"},
    }
    body = {"email": "a@example.com"}
    for _ in range(3):
        post(api_client, "forgot-password", body)
    refused = post(api_client, "forgot-password", body)
    assert refused.status_code == 429
    assert refused["Retry-After"] == "1"
    wait_until(
        lambda: post(api_client, "forgot-password", body).status_code == 200,
        timeout=3,
        interval=0.05,
        what="the window to reopen",
    )


def test_scopes_are_counted_apart(api_client):
    for _ in range(3):
        post(api_client, "forgot-password", {"email": "a@example.com"})
    assert post(api_client, "forgot-password", {"email": "a@example.com"}).status_code == 429
    assert post(api_client, "resend-verification", {"email": "a@example.com"}).status_code == 200


def test_anonymous_limits_count_per_client_address(api_client):
    body = {"email": "a@example.com"}
    for _ in range(3):
        post(api_client, "forgot-password", body, REMOTE_ADDR="10.0.0.1")
    assert post(api_client, "forgot-password", body, REMOTE_ADDR="10.0.0.1").status_code == 429
    assert post(api_client, "forgot-password", body, REMOTE_ADDR="10.0.0.2").status_code == 200


def test_forwarded_for_is_ignored_without_trusted_proxies(api_client, settings):
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 0
    body = {"email": "a@example.com"}
    for n in range(3):
        post(api_client, "forgot-password", body, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}")
    spoofed = post(api_client, "forgot-password", body, HTTP_X_FORWARDED_FOR="203.0.113.99")
    assert spoofed.status_code == 429


def test_forwarded_for_hop_is_the_address_behind_trusted_proxies(api_client, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    body = {"email": "a@example.com"}
    for _ in range(3):
        post(api_client, "forgot-password", body, HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.7")
    assert (
        post(api_client, "forgot-password", body, HTTP_X_FORWARDED_FOR="203.0.113.7").status_code
        == 429
    )
    assert (
        post(api_client, "forgot-password", body, HTTP_X_FORWARDED_FOR="203.0.113.8").status_code
        == 200
    )


def test_authenticated_limits_count_per_account(client_for, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "stand_in": "2/min",
        },
    }
    first, second = client_for(UserFactory()), client_for(UserFactory())
    url = "/api/v1/portal/stand-in/throttled"
    assert [first.get(url).status_code for _ in range(3)] == [200, 200, 429]
    # Same address, other account: its own budget.
    assert second.get(url).status_code == 200
