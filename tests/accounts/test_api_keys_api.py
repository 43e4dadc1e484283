import hashlib
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AccountType, ApiKey, User
from tests.accounts.factories import AgencyFactory, ResellerFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.stand_in_urls")]

KEYS = "/api/v1/portal/api-keys"
KEYED = "/api/v1/portal/stand-in/keyed"
ME = "/api/v1/portal/auth/me"


def create_key(client, name="CI") -> dict:
    response = client.post(KEYS, {"name": name}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.mark.parametrize("factory", [ResellerFactory, AgencyFactory])
def test_partner_creates_a_key_shown_once(client_for, factory):
    user = factory()
    client = client_for(user)
    created = create_key(client, "Billing sync")
    assert set(created) == {"id", "name", "prefix", "created_at", "last_used_at", "key"}
    assert created["name"] == "Billing sync"
    assert created["key"].startswith(created["prefix"])
    assert created["last_used_at"] is None

    listed = client.get(KEYS).json()
    assert listed == [
        {k: created[k] for k in ("id", "name", "prefix", "created_at", "last_used_at")}
    ]
    stored = ApiKey.objects.get(pk=created["id"])
    assert stored.key_hash == hashlib.sha256(created["key"].encode()).hexdigest()
    assert created["key"] not in {stored.prefix, stored.key_hash, stored.name}


def test_name_is_optional(client_for):
    client = client_for(ResellerFactory())
    response = client.post(KEYS, {}, format="json")
    assert response.status_code == 201
    assert response.json()["name"] == "API key"


def test_developers_get_403_on_every_key_route(client_for):
    developer = UserFactory(type=AccountType.DEVELOPER)
    other = ApiKey.objects.create(
        user=ResellerFactory(), name="x", prefix="emp_aaaaaaaa", key_hash="0"
    )
    client = client_for(developer)
    assert client.get(KEYS).status_code == 403
    assert client.post(KEYS, {"name": "x"}, format="json").status_code == 403
    assert client.delete(f"{KEYS}/{other.pk}").status_code == 403
    assert ApiKey.objects.count() == 1


def test_key_routes_need_a_bearer_token(api_client):
    reseller = ResellerFactory()
    raw = None
    client = APIClient()
    client.force_authenticate(None)
    assert api_client.get(KEYS).status_code == 401
    # A key cannot manage keys.
    from accounts import services

    _key, raw = services.api_key_create(user=reseller, name="x")
    response = api_client.get(KEYS, HTTP_X_API_KEY=raw)
    assert response.status_code == 401
    assert "bearer token" in response.json()["detail"].lower()
    assert (
        api_client.post(KEYS, {"name": "y"}, format="json", HTTP_X_API_KEY=raw).status_code == 401
    )
    assert ApiKey.objects.count() == 1


def test_key_authenticates_the_endpoints_that_accept_keys(client_for, api_client):
    reseller = ResellerFactory(email="r@example.com")
    raw = create_key(client_for(reseller))["key"]
    response = api_client.get(KEYED, HTTP_X_API_KEY=raw)
    assert response.status_code == 200
    assert response.json() == {"user": "r@example.com", "via": "ApiKey"}
    assert api_client.post(KEYED, {}, format="json", HTTP_X_API_KEY=raw).status_code == 201


def test_key_on_an_endpoint_outside_the_key_table_is_401_naming_the_bearer_token(
    client_for, api_client
):
    raw = create_key(client_for(ResellerFactory()))["key"]
    for method, path in (("delete", KEYED), ("get", ME)):
        response = getattr(api_client, method)(path, HTTP_X_API_KEY=raw)
        assert response.status_code == 401
        assert response.json()["code"] == "bearer_token_required"
        assert "bearer token" in response.json()["detail"].lower()


def test_bearer_token_still_works_on_key_endpoints(client_for):
    client = client_for(ResellerFactory(email="r@example.com"))
    assert client.get(KEYED).json()["via"] == "AccessToken"


@pytest.mark.parametrize("raw", ["", "nope", "emp_abcdefgh_wrong", "emp_" + "x" * 60])
def test_invalid_keys_are_401(api_client, raw):
    response = api_client.get(KEYED, HTTP_X_API_KEY=raw)
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_api_key"


def test_right_prefix_wrong_secret_is_401(client_for, api_client):
    raw = create_key(client_for(ResellerFactory()))["key"]
    forged = raw[:-4] + ("AAAA" if raw[-4:] != "AAAA" else "BBBB")
    assert api_client.get(KEYED, HTTP_X_API_KEY=forged).status_code == 401


def test_deleted_key_stops_working_at_once(client_for, api_client):
    client = client_for(ResellerFactory())
    created = create_key(client)
    assert api_client.get(KEYED, HTTP_X_API_KEY=created["key"]).status_code == 200
    assert client.delete(f"{KEYS}/{created['id']}").status_code == 204
    assert api_client.get(KEYED, HTTP_X_API_KEY=created["key"]).status_code == 401
    assert client.get(KEYS).json() == []


def test_another_accounts_key_is_404_and_survives(client_for):
    mine = client_for(ResellerFactory())
    theirs = create_key(client_for(AgencyFactory()))
    assert mine.delete(f"{KEYS}/{theirs['id']}").status_code == 404
    assert mine.delete(f"{KEYS}/999999").status_code == 404
    assert ApiKey.objects.filter(pk=theirs["id"]).exists()
    assert mine.get(KEYS).json() == []


def test_key_of_an_account_that_is_no_longer_a_partner_is_refused(client_for, api_client):
    reseller = ResellerFactory()
    raw = create_key(client_for(reseller))["key"]
    User.objects.filter(pk=reseller.pk).update(type=AccountType.DEVELOPER)
    assert api_client.get(KEYED, HTTP_X_API_KEY=raw).status_code == 401
    User.objects.filter(pk=reseller.pk).update(type=AccountType.RESELLER, is_active=False)
    assert api_client.get(KEYED, HTTP_X_API_KEY=raw).status_code == 401


def test_last_used_at_is_recorded(client_for, api_client):
    client = client_for(ResellerFactory())
    created = create_key(client)
    with time_machine.travel(timezone.now(), tick=False):
        api_client.get(KEYED, HTTP_X_API_KEY=created["key"])
        used = client.get(KEYS).json()[0]["last_used_at"]
    assert used is not None
    with time_machine.travel(timezone.now() + timedelta(minutes=5), tick=False):
        api_client.get(KEYED, HTTP_X_API_KEY=created["key"])
        later = client.get(KEYS).json()[0]["last_used_at"]
    assert later > used


def test_keys_per_account_are_limited(client_for, settings):
    settings.API_KEYS_PER_ACCOUNT = 2
    client = client_for(ResellerFactory())
    create_key(client, "one")
    create_key(client, "two")
    response = client.post(KEYS, {"name": "three"}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "api_key_limit_reached"
    assert ApiKey.objects.count() == 2


def test_name_too_long_is_422(client_for):
    response = client_for(ResellerFactory()).post(KEYS, {"name": "x" * 101}, format="json")
    assert response.status_code == 422
    assert ApiKey.objects.count() == 0


def test_list_query_count_does_not_grow_with_keys(client_for, django_assert_max_num_queries):
    reseller = ResellerFactory()
    client = client_for(reseller)
    for n in range(3):
        create_key(client, f"k{n}")
    with django_assert_max_num_queries(3):
        assert len(client.get(KEYS).json()) == 3
    for n in range(3, 15):
        create_key(client, f"k{n}")
    with django_assert_max_num_queries(3):
        assert len(client.get(KEYS).json()) == 15
