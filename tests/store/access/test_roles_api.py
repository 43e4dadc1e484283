"""/managers/roles, /managers/roles/{slug} and /managers/capabilities."""

import json

import pytest
from django.contrib.auth.models import Group

from common.models import AuditEntry
from store.access.models import RoleProfile
from store.common.capabilities import (
    ADMINISTRATOR_ROLE,
    CAPABILITIES,
    MANAGE_MANAGERS,
    MANAGE_OPTIONS,
    MANAGE_ORDERS,
    MANAGE_PRODUCTS,
    SHOP_MANAGER_CAPABILITIES,
    SHOP_MANAGER_ROLE,
    manage,
)
from tests.accounts.factories import UserFactory
from tests.fixtures.store import error
from tests.store.access.helpers import (
    CAPABILITIES as CAPABILITIES_URL,
)
from tests.store.access.helpers import (
    MANAGERS,
    ROLES,
    people_manager,
    role_url,
    state,
    store_administrator,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss(store_client, admin_user):
    return store_client(admin_user)


def make_role(client, name="Packer", capabilities=(MANAGE_ORDERS,), **extra):
    response = client.post(
        ROLES, {"name": name, "capabilities": list(capabilities), **extra}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_the_built_in_roles_are_listed_first(boss, manager):
    make_role(boss, "Accountant", [manage("tax")])
    body = boss.get(ROLES).json()
    assert set(body) == {"roles", "total", "page", "per_page", "total_pages"}
    assert [r["slug"] for r in body["roles"]] == [
        "shop_manager",
        "store_administrator",
        "accountant",
    ]
    shop = body["roles"][0]
    assert shop == {
        "slug": "shop_manager",
        "name": SHOP_MANAGER_ROLE,
        "description": "",
        "built_in": True,
        "capabilities": [
            c.codename for c in CAPABILITIES if c.codename in SHOP_MANAGER_CAPABILITIES
        ],
        "manager_count": 1,
        "created_at": shop["created_at"],
        "updated_at": shop["updated_at"],
    }
    assert body["roles"][1]["capabilities"] == [MANAGE_OPTIONS]
    assert [r["slug"] for r in boss.get(ROLES, {"built_in": "false"}).json()["roles"]] == [
        "accountant"
    ]
    assert [r["slug"] for r in boss.get(ROLES, {"search": "ADMIN"}).json()["roles"]] == [
        "store_administrator"
    ]
    error(boss.get(ROLES, {"per_page": -1}), 400, "invalid_param")


def test_the_role_list_query_count_does_not_grow(boss, django_assert_max_num_queries):
    make_role(boss, "One")
    with django_assert_max_num_queries(5):
        assert boss.get(ROLES).status_code == 200
    for n in range(12):
        make_role(boss, f"Role {n}", [MANAGE_PRODUCTS, MANAGE_ORDERS])
    with django_assert_max_num_queries(5):
        assert boss.get(ROLES).json()["total"] == 15


def test_create_read_update_delete(boss, manager):
    role = make_role(
        boss, "Warehouse crew", [manage("inventory"), MANAGE_ORDERS], description="Pick & pack"
    )
    assert role["slug"] == "warehouse_crew"
    assert role["capabilities"] == [MANAGE_ORDERS, manage("inventory")]  # the list's order
    assert (role["built_in"], role["manager_count"], role["description"]) == (
        False,
        0,
        "Pick & pack",
    )
    assert boss.get(role_url("warehouse_crew")).json() == role
    # Give it to someone, then change it.
    boss.patch(f"{MANAGERS}/{manager.pk}", {"roles": ["warehouse_crew"]}, format="json")
    body = boss.patch(
        role_url("warehouse_crew"),
        {"name": "Stock crew", "capabilities": [manage("inventory")], "description": ""},
        format="json",
    ).json()
    assert (body["name"], body["slug"], body["capabilities"], body["manager_count"]) == (
        "Stock crew",
        "warehouse_crew",
        [manage("inventory")],
        1,
    )
    body = boss.put(role_url("warehouse_crew"), {"description": "x"}, format="json").json()
    assert (body["name"], body["description"]) == ("Stock crew", "x")
    # The manager's effective capabilities follow the role.
    assert state(manager)["roles"] == ["warehouse_crew"]
    assert boss.delete(role_url("warehouse_crew")).status_code == 204
    error(boss.get(role_url("warehouse_crew")), 404, "role_not_found")
    assert state(manager)["roles"] == []
    actions = list(
        AuditEntry.objects.filter(content_type__model="group")
        .order_by("id")
        .values_list("action", flat=True)
    )
    assert actions == ["created", "changed", "changed", "deleted"]


def test_an_explicit_slug_and_generated_ones(boss):
    assert make_role(boss, "Crew", slug="crew-a")["slug"] == "crew-a"
    assert make_role(boss, "Crew!")["slug"] == "crew"
    assert make_role(boss, "crew?")["slug"] == "crew_2"
    assert make_role(boss, "Ωμέγα")["slug"] == "role"
    assert make_role(boss, "Shop manager 2")["slug"] == "shop_manager_2"


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({}, "name", "invalid_param"),
        ({"name": ""}, "name", "invalid_param"),
        ({"name": "   "}, "name", "invalid_param"),
        ({"name": "x" * 151}, "name", "invalid_param"),
        ({"name": "tab\there"}, "name", "invalid_param"),
        ({"name": 5}, "name", "invalid_param"),
        ({"name": "shop MANAGER"}, "name", "duplicate_role"),
        ({"name": "New", "slug": "shop_manager"}, "slug", "duplicate_role"),
        ({"name": "New", "slug": "Has Caps"}, "slug", "invalid_param"),
        ({"name": "New", "slug": "-dash"}, "slug", "invalid_param"),
        ({"name": "New", "slug": "a b"}, "slug", "invalid_param"),
        ({"name": "New", "capabilities": ["ec_manage_moon"]}, "capabilities", "invalid_param"),
        ({"name": "New", "capabilities": MANAGE_ORDERS}, "capabilities", "invalid_param"),
        ({"name": "New", "capabilities": [[MANAGE_ORDERS]]}, "capabilities.0", "invalid_param"),
        ({"name": "New", "description": "x" * 2001}, "description", "invalid_param"),
    ],
)
def test_invalid_roles_are_refused(boss, body, param, code):
    response = boss.post(ROLES, body, format="json")
    assert param in error(response, 400, code)["data"]["params"]
    assert RoleProfile.objects.count() == 2


@pytest.mark.parametrize(
    "raw", ['{"name": "a\\u0000b"}', '{"name": "\\ud800"}', "[]", '{"name": ' * 3000]
)
def test_nul_surrogates_and_shapes_are_4xx(boss, raw):
    response = boss.post(ROLES, raw, content_type="application/json")
    error(response, 400)
    assert RoleProfile.objects.count() == 2


@pytest.mark.parametrize("method", ["patch", "put", "delete"])
@pytest.mark.parametrize("slug", ["shop_manager", "store_administrator"])
def test_built_in_roles_are_read_only(boss, method, slug):
    before = boss.get(role_url(slug)).json()
    response = getattr(boss, method)(role_url(slug), {"name": "Mine"}, format="json")
    error(response, 409, "built_in_role")
    assert boss.get(role_url(slug)).json() == before


def test_the_slug_is_set_once_and_names_stay_unique(boss):
    make_role(boss, "One")
    make_role(boss, "Two")
    error(boss.patch(role_url("one"), {"slug": "uno"}, format="json"), 400, "invalid_param")
    error(boss.patch(role_url("one"), {"name": "TWO"}, format="json"), 400, "duplicate_role")
    assert boss.patch(role_url("one"), {"name": "ONE"}, format="json").json()["name"] == "ONE"


@pytest.mark.parametrize("slug", ["ghost", "UPPER", "x" * 65, "a%00b", "%ED%A0%80", "-x"])
def test_unknown_slugs_are_404(boss, slug):
    for method in ("get", "patch", "delete"):
        error(getattr(boss, method)(role_url(slug), {}, format="json"), 404)


def test_a_manager_cannot_put_capabilities_they_lack_in_a_role(store_client, boss):
    limited = store_client(people_manager(MANAGE_PRODUCTS))
    error(
        limited.post(ROLES, {"name": "Sneaky", "capabilities": [MANAGE_OPTIONS]}, format="json"),
        403,
        "capability_not_held",
    )
    assert not Group.objects.filter(name="Sneaky").exists()
    make_role(boss, "Mixed", [MANAGE_PRODUCTS, MANAGE_ORDERS])
    # Adding or taking away what they lack; deleting a role carrying it.
    error(limited.patch(role_url("mixed"), {"capabilities": [MANAGE_PRODUCTS]}, format="json"), 403)
    error(limited.delete(role_url("mixed")), 403, "capability_not_held")
    assert boss.get(role_url("mixed")).json()["capabilities"] == [MANAGE_PRODUCTS, MANAGE_ORDERS]
    # What they hold they may move, and a role of only that they may delete.
    mine = make_role(limited, "Catalog", [MANAGE_PRODUCTS])
    assert mine["capabilities"] == [MANAGE_PRODUCTS]
    assert (
        limited.patch(role_url("catalog"), {"capabilities": []}, format="json").status_code == 200
    )
    assert limited.delete(role_url("catalog")).status_code == 204


def test_a_role_change_cannot_remove_the_last_administrator(store_client):
    admin = store_client(store_administrator())
    holder = UserFactory()
    make_role(admin, "Owners", [MANAGE_OPTIONS])
    response = admin.post(MANAGERS, {"user_id": holder.pk, "roles": ["owners"]}, format="json")
    assert response.status_code == 201
    # The built-in administrator leaves (holder is now the only administrator)...
    me = response.wsgi_request.user
    assert admin.patch(f"{MANAGERS}/{me.pk}", {"roles": []}, format="json").status_code == 200
    # ...so the role that makes holder one cannot lose manage_options nor go away.
    owner = store_client(holder)
    error(
        owner.patch(role_url("owners"), {"capabilities": []}, format="json"),
        409,
        "last_administrator",
    )
    error(owner.delete(role_url("owners")), 409, "last_administrator")
    assert owner.get(role_url("owners")).json()["capabilities"] == [MANAGE_OPTIONS]


def test_capabilities_are_the_one_list(store_client, boss):
    body = boss.get(CAPABILITIES_URL).json()
    assert body == {
        "capabilities": [
            {"name": c.codename, "description": c.description, "grantable": True}
            for c in CAPABILITIES
        ]
    }
    limited = store_client(people_manager(MANAGE_PRODUCTS))
    grantable = {
        c["name"] for c in limited.get(CAPABILITIES_URL).json()["capabilities"] if c["grantable"]
    }
    assert grantable == {MANAGE_PRODUCTS, MANAGE_MANAGERS}


def test_the_seeded_role_names_are_still_the_groups(boss):
    assert Group.objects.get(store_role__slug="store_administrator").name == ADMINISTRATOR_ROLE


def test_a_json_string_body_is_refused(boss):
    error(boss.post(ROLES, json.dumps("Packer"), content_type="application/json"), 400)


def test_session_writes_of_roles_need_the_nonce(admin_user):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(admin_user)
    body = json.dumps({"name": "Crew", "capabilities": [MANAGE_ORDERS]})
    error(browser.post(ROLES, body, content_type="application/json"), 401, "not_logged_in")
    error(browser.delete(role_url("shop_manager")), 401, "not_logged_in")
    assert not Group.objects.filter(name="Crew").exists()
    nonce = browser.get(f"{MANAGERS}/capabilities").status_code  # a read: 401 without nonce
    assert nonce == 401
    headers = {"HTTP_X_PLATFORM_NONCE": browser.get("/rest/ec/v1/auth/nonce").json()["nonce"]}
    response = browser.post(ROLES, body, content_type="application/json", **headers)
    assert response.status_code == 201, response.content
    response = browser.patch(
        role_url("crew"), json.dumps({"name": "Crew 2"}), content_type="application/json", **headers
    )
    assert response.json()["name"] == "Crew 2"
    assert browser.delete(role_url("crew"), **headers).status_code == 204
