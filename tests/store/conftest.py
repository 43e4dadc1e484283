import base64

import pytest
from django.contrib.auth.models import Group, Permission
from rest_framework.test import APIClient

from accounts import services as account_services
from store.common.capabilities import APP_LABEL, SHOP_MANAGER_ROLE
from tests.accounts.factories import UserFactory

API = "/rest/ec/v1"


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    """Uploaded files go to a temporary directory, never into the repository."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def media_dir(_media_root):
    return _media_root


def basic_auth(user) -> str:
    _record, raw = account_services.app_password_create(user=user, name="tests")
    return "Basic " + base64.b64encode(f"{user.email}:{raw}".encode()).decode()


@pytest.fixture
def store_client():
    """An APIClient authenticated as `user` with an application password (HTTP Basic)."""

    def make(user) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=basic_auth(user))
        return client

    return make


@pytest.fixture
def anon():
    return APIClient()


def grant(user, *codenames: str):
    user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label=APP_LABEL, codename__in=codenames)
    )
    return user


@pytest.fixture
def customer(db):
    return UserFactory(email="shopper@example.com", name="Sam Shopper")


@pytest.fixture
def manager(db):
    user = UserFactory(email="manager@example.com", name="Mona Manager")
    user.groups.add(Group.objects.get(name=SHOP_MANAGER_ROLE))
    return user


@pytest.fixture
def admin_user(db):
    return UserFactory(email="boss@example.com", is_staff=True, is_superuser=True)


@pytest.fixture
def manager_client(store_client, manager):
    return store_client(manager)


@pytest.fixture
def admin_client_api(store_client, admin_user):
    return store_client(admin_user)


@pytest.fixture
def customer_client(store_client, customer):
    return store_client(customer)


def error(response, status: int, code: str | None = None) -> dict:
    """Assert a store-style error and answer its body."""
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"code", "message", "data"}, body
    assert body["data"]["status"] == status
    assert isinstance(body["message"], str)
    assert body["message"]
    if code is not None:
        assert body["code"] == code, body
    return body
