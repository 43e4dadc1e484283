import pytest
from django.contrib.auth.models import Group

from store.common.capabilities import EDIT_POST, EDIT_POSTS, MANAGE_OPTIONS, SHOP_MANAGER_ROLE
from tests.accounts.factories import UserFactory
from tests.fixtures.store import grant

BASE = "/rest/theme/v1"
BUILDER = f"{BASE}/builder"

HEADING = {"type": "heading", "settings": {"text": "Hello", "level": 2}}


def error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:400])
    body = response.json()
    assert set(body) == {"code", "message", "data"}, body
    assert body["data"]["status"] == status
    if code is not None:
        assert body["code"] == code, body
    return body


@pytest.fixture
def editor(db):
    """edit_post only: new layouts and one's own."""
    return grant(UserFactory(email="editor@example.com"), EDIT_POST)


@pytest.fixture
def chief(db):
    """edit_posts only: every layout and the templates."""
    return grant(UserFactory(email="chief@example.com"), EDIT_POSTS)


@pytest.fixture
def shop_manager(db):
    user = UserFactory(email="mona@example.com")
    user.groups.add(Group.objects.get(name=SHOP_MANAGER_ROLE))
    return user


@pytest.fixture
def administrator(db):
    return grant(UserFactory(email="root@example.com"), MANAGE_OPTIONS)


@pytest.fixture
def clients(store_client, anon, customer, editor, chief, shop_manager, administrator):
    return {
        "anonymous": anon,
        "customer": store_client(customer),
        "editor": store_client(editor),
        "chief": store_client(chief),
        "shop_manager": store_client(shop_manager),
        "manage_options": store_client(administrator),
    }
