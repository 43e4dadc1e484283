"""/erp/users and /erp/roles: the ERP's roles are store roles holding ERP capabilities only;
every write goes through the store's RBAC and keeps its rules."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from erp.core import services as erp_services
from store.access import selectors as access_selectors
from store.common.capabilities import MANAGE_MANAGERS, MANAGE_ORDERS, MANAGE_PRODUCTS, manage
from tests.accounts.factories import UserFactory
from tests.erp.core.helpers import ROLES, USERS, role_url, user_url
from tests.fixtures.store import error, grant

pytestmark = pytest.mark.django_db

INVOICING, ACCOUNTING, INVENTORY, HR = (
    manage("invoicing"),
    manage("accounting"),
    manage("inventory"),
    manage("hr"),
)
BUILT_IN = ["erp_accountant", "erp_hr", "erp_purchaser", "erp_sales", "erp_warehouse"]


@pytest.fixture
def boss(admin_client_api, erp_on):
    """An administrator, the ERP on (its seeded roles made)."""
    return admin_client_api


def slugs(body) -> list[str]:
    return [role["slug"] for role in body["roles"]]


def test_the_roles_route_lists_the_domains_and_the_seeded_roles_read_only(boss):
    body = boss.get(ROLES).json()
    assert [d["domain"] for d in body["domains"]] == [
        "invoicing",
        "inventory",
        "purchasing",
        "accounting",
        "crm",
        "hr",
    ]
    assert all(d["grantable"] for d in body["domains"])
    assert body["domains"][0]["capability"] == INVOICING
    assert sorted(slugs(body)) == BUILT_IN
    accountant = next(r for r in body["roles"] if r["slug"] == "erp_accountant")
    assert accountant["name"] == "Accountant"
    assert (accountant["built_in"], accountant["domains"]) == (True, ["invoicing", "accounting"])
    # The store's own roles are not the ERP's.
    assert "shop_manager" not in slugs(body)
    error(boss.get(role_url("shop_manager")), 404, "role_not_found")
    error(
        boss.patch(role_url("erp_accountant"), {"name": "X"}, format="json"), 409, "built_in_role"
    )
    error(boss.delete(role_url("erp_warehouse")), 409, "built_in_role")


def test_seeding_never_takes_over_a_custom_role_of_the_same_name(
    admin_client_api, business_licence
):
    from store.access import services as access_services

    access_services.role_create(
        actor=None, fields={"name": "Accountant", "capabilities": [MANAGE_ORDERS]}
    )
    erp_services.erp_activate(license_key=business_licence.license_key)
    erp_services.erp_activate(license_key=business_licence.license_key)  # idempotent
    assert Group.objects.get(store_role__slug="accountant").name == "Accountant"
    assert (
        Group.objects.get(store_role__slug="erp_accountant").name == "Accountant (erp_accountant)"
    )


def test_turning_the_erp_on_again_gives_a_seeded_role_back_what_it_lost(business_licence):
    from erp.core.capabilities import BUILT_IN_ROLES
    from store.access.models import RoleProfile

    erp_services.erp_activate(license_key=business_licence.license_key)
    accountant = Group.objects.get(store_role__slug="erp_accountant")
    accountant.permissions.clear()
    RoleProfile.objects.filter(slug="erp_sales").update(built_in=False, description="")
    erp_services.erp_activate(license_key=business_licence.license_key)
    for role in BUILT_IN_ROLES:
        group = Group.objects.get(store_role__slug=role.slug)
        held = set(group.permissions.values_list("codename", flat=True))
        assert held == set(role.capabilities), role.slug
        assert group.store_role.built_in, role.slug
        assert group.store_role.description == role.description, role.slug


def test_an_erp_role_is_created_changed_and_deleted_with_erp_capabilities_only(boss):
    response = boss.post(ROLES, {"name": "Bookkeeper", "capabilities": [ACCOUNTING]}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["slug"] == "bookkeeper"
    assert response.json()["capabilities"] == [ACCOUNTING]
    body = error(
        boss.post(
            ROLES, {"name": "Mixed", "capabilities": [ACCOUNTING, MANAGE_ORDERS]}, format="json"
        ),
        400,
        "invalid_param",
    )
    assert "capabilities" in body["data"]["params"]
    error(boss.post(ROLES, {"name": "Empty", "capabilities": []}, format="json"), 400)
    error(boss.post(ROLES, {"name": "None"}, format="json"), 400)
    error(
        boss.post(ROLES, {"name": "bookkeeper", "capabilities": [HR]}, format="json"),
        400,
        "duplicate_role",
    )
    assert not Group.objects.filter(name__in=["Mixed", "Empty", "None"]).exists()

    changed = boss.patch(
        role_url("bookkeeper"), {"capabilities": [ACCOUNTING, INVOICING]}, format="json"
    )
    assert changed.status_code == 200, changed.content
    assert changed.json()["capabilities"] == [INVOICING, ACCOUNTING]
    error(
        boss.patch(role_url("bookkeeper"), {"capabilities": [MANAGE_PRODUCTS]}, format="json"), 400
    )
    error(boss.patch(role_url("bookkeeper"), {"capabilities": []}, format="json"), 400)
    error(boss.patch(role_url("bookkeeper"), {"slug": "other"}, format="json"), 400)
    assert boss.get(role_url("bookkeeper")).json()["capabilities"] == [INVOICING, ACCOUNTING]

    assert boss.delete(role_url("bookkeeper")).status_code == 204
    error(boss.get(role_url("bookkeeper")), 404, "role_not_found")
    error(boss.delete(role_url("bookkeeper")), 404, "role_not_found")
    error(boss.get(role_url("NOT A SLUG")), 404, "role_not_found")


def test_nobody_grants_what_they_do_not_hold(store_client, erp_on):
    # Holds manage_options? No: a manager with ERP config rights is an administrator; the
    # routes need manage_options, so a lesser caller is refused before any rule.
    clerk = grant(UserFactory(), MANAGE_MANAGERS, INVOICING)
    client = store_client(clerk)
    error(client.get(ROLES), 403, "insufficient_capability")
    error(client.post(ROLES, {"name": "X", "capabilities": [HR]}, format="json"), 403)
    # The rule itself (the store's services): an actor without HR cannot make an HR role.
    from common.errors import Forbidden

    with pytest.raises(Forbidden) as refused:
        erp_services.erp_role_create(actor=clerk, fields={"name": "HR2", "capabilities": [HR]})
    assert refused.value.code == "capability_not_held"
    role = erp_services.erp_role_create(
        actor=clerk, fields={"name": "Biller", "capabilities": [INVOICING]}
    )
    target = UserFactory()
    with pytest.raises(Forbidden):
        erp_services.erp_user_assign(actor=clerk, user_id=target.pk, roles=["erp_hr"])
    assert erp_services.erp_user_assign(
        actor=clerk, user_id=target.pk, roles=[role.store_role.slug]
    )


def test_users_get_erp_roles_and_keep_their_store_roles(boss, manager, customer):
    # The shop manager holds inventory through a store role: an ERP user without ERP roles.
    listed = boss.get(USERS).json()
    assert [u["email"] for u in listed["users"]] == [manager.email]
    assert listed["users"][0]["erp_roles"] == []
    assert listed["users"][0]["erp_capabilities"] == [INVENTORY]
    assert set(listed) == {"users", "total", "page", "per_page", "total_pages"}

    response = boss.post(
        USERS, {"email": customer.email, "roles": ["erp_accountant"]}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["erp_roles"] == [{"slug": "erp_accountant", "name": "Accountant"}]
    assert body["erp_capabilities"] == [INVOICING, ACCOUNTING]
    assert body["administrator"] is False
    again = boss.post(USERS, {"user_id": customer.pk, "roles": ["erp_hr"]}, format="json")
    assert again.status_code == 200
    assert [r["slug"] for r in again.json()["erp_roles"]] == ["erp_accountant", "erp_hr"]

    response = boss.patch(user_url(manager.pk), {"roles": ["erp_purchaser"]}, format="json")
    assert response.status_code == 200, response.content
    assert access_selectors.manager_state(manager)["roles"] == ["erp_purchaser", "shop_manager"]
    assert boss.get(user_url(manager.pk)).json()["erp_roles"][0]["slug"] == "erp_purchaser"
    assert boss.delete(user_url(manager.pk)).status_code == 204
    assert access_selectors.manager_state(manager)["roles"] == ["shop_manager"]

    assert boss.delete(user_url(customer.pk)).status_code == 204
    error(boss.get(user_url(customer.pk)), 404, "erp_user_not_found")
    error(boss.patch(user_url(customer.pk), {"roles": ["erp_hr"]}, format="json"), 404)
    error(boss.delete(user_url(customer.pk)), 404, "erp_user_not_found")
    assert access_selectors.manager_state(customer)["roles"] == []


def test_user_refusals(boss, customer):
    error(
        boss.post(USERS, {"user_id": 999999, "roles": ["erp_hr"]}, format="json"),
        404,
        "user_not_found",
    )
    error(
        boss.post(USERS, {"email": "nobody@example.com", "roles": ["erp_hr"]}, format="json"), 404
    )
    error(boss.post(USERS, {"user_id": customer.pk, "roles": ["shop_manager"]}, format="json"), 400)
    error(boss.post(USERS, {"user_id": customer.pk, "roles": ["no_such_role"]}, format="json"), 400)
    error(boss.post(USERS, {"user_id": customer.pk, "roles": []}, format="json"), 400)
    error(boss.post(USERS, {"roles": ["erp_hr"]}, format="json"), 400)
    error(
        boss.post(
            USERS,
            {"user_id": customer.pk, "email": customer.email, "roles": ["erp_hr"]},
            format="json",
        ),
        400,
    )
    error(boss.get(user_url(0)), 404)
    error(boss.get(f"{USERS}?per_page=0"), 400)
    error(boss.get(f"{USERS}?capability=ec_manage_orders"), 400)
    assert access_selectors.manager_state(customer)["roles"] == []


def test_the_list_filters_and_administrators(boss, admin_user, customer, manager):
    erp_services.erp_user_assign(actor=None, user_id=customer.pk, roles=["erp_hr"])
    assert [u["id"] for u in boss.get(f"{USERS}?role=erp_hr").json()["users"]] == [customer.pk]
    assert [u["id"] for u in boss.get(f"{USERS}?capability={HR}").json()["users"]] == [customer.pk]
    assert boss.get(f"{USERS}?search=shopper").json()["total"] == 1
    everyone = boss.get(f"{USERS}?administrators=true").json()["users"]
    admin_row = next(u for u in everyone if u["id"] == admin_user.pk)
    assert admin_row["administrator"] is True
    assert len(admin_row["erp_capabilities"]) == 6
    assert boss.get(user_url(admin_user.pk)).status_code == 200


def test_the_lists_query_count_does_not_grow(boss, django_assert_max_num_queries):
    def fill(n, start):
        for i in range(n):
            user = UserFactory(email=f"erp{start + i}@example.com")
            erp_services.erp_user_assign(actor=None, user_id=user.pk, roles=["erp_hr", "erp_sales"])
            erp_services.erp_role_create(
                actor=None, fields={"name": f"R{start + i}", "capabilities": [HR]}
            )

    fill(2, 0)
    with django_assert_max_num_queries(12) as few:
        assert boss.get(USERS).status_code == 200
        assert boss.get(ROLES).status_code == 200
    fill(8, 10)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert boss.get(USERS).json()["total"] == 10
        assert boss.get(ROLES).json()["total"] == 15


def test_only_administrators_reach_the_config_routes(store_client, manager, anon, erp_on):
    client = store_client(manager)
    for path in (USERS, ROLES, role_url("erp_hr"), user_url(manager.pk)):
        error(client.get(path), 403, "insufficient_capability")
        error(anon.get(path), 401)
