from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from accounts.models import User
from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

LOGIN = "/api/v1/portal/auth/login"
REFRESH = "/api/v1/portal/auth/refresh"
LOGOUT = "/api/v1/portal/auth/logout"
ME = "/api/v1/portal/auth/me"


def login(client, email, password=PASSWORD):
    return client.post(LOGIN, {"email": email, "password": password}, format="json")


def test_login_answers_tokens_and_the_user(api_client):
    user = UserFactory(email="dev@example.com", name="Dev One")
    response = login(api_client, "dev@example.com")
    assert response.status_code == 200
    body = response.json()
    assert body["user"] == {
        "id": user.pk,
        "email": "dev@example.com",
        "name": "Dev One",
        "type": "developer",
    }
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 1800
    me = api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {body['access_token']}")
    assert me.status_code == 200
    assert me.json()["email"] == "dev@example.com"
    assert me.json()["email_verified"] is True


def test_login_e_mail_is_case_insensitive(api_client):
    UserFactory(email="dev@example.com")
    assert login(api_client, "  DEV@Example.COM ").status_code == 200


@pytest.mark.parametrize(
    ("email", "password"),
    [("dev@example.com", "wrong-password"), ("nobody@example.com", PASSWORD)],
)
def test_wrong_credentials_are_401(api_client, email, password):
    UserFactory(email="dev@example.com")
    response = login(api_client, email, password)
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_credentials"
    assert "access_token" not in response.json()
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_inactive_account_cannot_log_in(api_client):
    UserFactory(email="dev@example.com", is_active=False)
    assert login(api_client, "dev@example.com").status_code == 401


def test_unverified_account_is_refused_with_a_detail_saying_so(api_client):
    UserFactory(email="dev@example.com", email_verified=False)
    response = login(api_client, "dev@example.com")
    assert response.status_code == 403
    assert response.json()["code"] == "email_not_verified"
    assert "not verified" in response.json()["detail"]


def test_missing_fields_are_422_per_field(api_client):
    response = api_client.post(LOGIN, {"email": "not-an-email"}, format="json")
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert set(errors) == {"email", "password"}


def test_login_records_last_login(api_client):
    user = UserFactory(email="dev@example.com")
    login(api_client, "dev@example.com")
    user.refresh_from_db()
    assert user.last_login is not None


@pytest.mark.parametrize(
    "header",
    [None, "Bearer", "Bearer not-a-jwt", "Token abc", "Basic Zm9vOmJhcg=="],
)
def test_me_without_a_valid_token_is_401(api_client, header):
    kwargs = {"HTTP_AUTHORIZATION": header} if header else {}
    response = api_client.get(ME, **kwargs)
    assert response.status_code == 401
    assert response.json()["detail"]


def test_tampered_access_token_is_401(api_client):
    UserFactory(email="dev@example.com")
    token = login(api_client, "dev@example.com").json()["access_token"]
    header, payload, signature = token.split(".")
    tampered = f"{header}.{payload}.{signature[:-2]}{'AA' if signature[-2:] != 'AA' else 'BB'}"
    assert api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {tampered}").status_code == 401


def test_access_token_expires_after_30_minutes(api_client):
    UserFactory(email="dev@example.com")
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        token = login(api_client, "dev@example.com").json()["access_token"]
        traveller.shift(timedelta(minutes=29))
        assert api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 200
        traveller.shift(timedelta(minutes=2))
        response = api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 401
    assert response.json()["code"] == "token_not_valid"


def test_refresh_token_is_not_an_access_token(api_client):
    UserFactory(email="dev@example.com")
    refresh = login(api_client, "dev@example.com").json()["refresh_token"]
    assert api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {refresh}").status_code == 401


def test_refresh_rotates_and_a_used_refresh_token_stops_working(api_client):
    UserFactory(email="dev@example.com")
    first = login(api_client, "dev@example.com").json()
    response = api_client.post(REFRESH, {"refresh_token": first["refresh_token"]}, format="json")
    assert response.status_code == 200
    second = response.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert (
        api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {second['access_token']}").status_code == 200
    )

    reused = api_client.post(REFRESH, {"refresh_token": first["refresh_token"]}, format="json")
    assert reused.status_code == 401
    assert reused.json()["code"] == "token_not_valid"
    # The rotated one still works.
    again = api_client.post(REFRESH, {"refresh_token": second["refresh_token"]}, format="json")
    assert again.status_code == 200


@pytest.mark.parametrize("token", ["", "garbage", "a.b.c"])
def test_refresh_with_a_bad_token(api_client, token):
    response = api_client.post(REFRESH, {"refresh_token": token}, format="json")
    assert response.status_code in (401, 422)
    if token:
        assert response.status_code == 401


def test_refresh_with_an_access_token_is_401(api_client):
    UserFactory(email="dev@example.com")
    access = login(api_client, "dev@example.com").json()["access_token"]
    assert api_client.post(REFRESH, {"refresh_token": access}, format="json").status_code == 401


def test_refresh_token_of_a_deactivated_account_is_401(api_client):
    user = UserFactory(email="dev@example.com")
    refresh = login(api_client, "dev@example.com").json()["refresh_token"]
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert api_client.post(REFRESH, {"refresh_token": refresh}, format="json").status_code == 401


def test_refresh_token_expires(api_client, settings):
    UserFactory(email="dev@example.com")
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        refresh = login(api_client, "dev@example.com").json()["refresh_token"]
        traveller.shift(timedelta(days=15))
        response = api_client.post(REFRESH, {"refresh_token": refresh}, format="json")
    assert response.status_code == 401


def test_logout_revokes_the_refresh_token(api_client):
    UserFactory(email="dev@example.com")
    tokens = login(api_client, "dev@example.com").json()
    response = api_client.post(LOGOUT, {"refresh_token": tokens["refresh_token"]}, format="json")
    assert response.status_code == 200
    refused = api_client.post(REFRESH, {"refresh_token": tokens["refresh_token"]}, format="json")
    assert refused.status_code == 401
    # Logging out twice is harmless.
    again = api_client.post(LOGOUT, {"refresh_token": tokens["refresh_token"]}, format="json")
    assert again.status_code == 200


def test_logout_with_a_forged_token_is_401(api_client):
    response = api_client.post(LOGOUT, {"refresh_token": "eyJhbGciOiJub25lIn0.e30."}, format="json")
    assert response.status_code == 401


def test_changing_the_password_ends_existing_access_tokens(api_client):
    user = UserFactory(email="dev@example.com")
    token = login(api_client, "dev@example.com").json()["access_token"]
    user.set_password("Another-Passphrase-77")
    user.save()
    assert api_client.get(ME, HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 401


def test_login_is_not_a_get(api_client):
    response = api_client.get(LOGIN)
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
    assert "POST" in response["Allow"]
