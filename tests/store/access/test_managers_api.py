"""/managers and /managers/{id}: staff accounts with their roles and capabilities."""

import json

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from accounts.models import User
from common.models import AuditEntry, IdempotencyRecord
from store.common.capabilities import (
    ADMINISTRATOR_ROLE,
    CODENAMES,
    MANAGE_MANAGERS,
    MANAGE_OPTIONS,
    MANAGE_ORDERS,
    MANAGE_PRODUCTS,
    SHOP_MANAGER_CAPABILITIES,
    SHOP_MANAGER_ROLE,
    manage,
)
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error, grant
from tests.store.access.helpers import (
    MANAGERS,
    manager_url,
    people_manager,
    state,
    store_administrator,
    with_role,
)

pytestmark = pytest.mark.django_db

ALL = sorted(CODENAMES)


@pytest.fixture
def boss(store_client, admin_user):
    return store_client(admin_user)


def test_the_list_answers_managers_with_their_roles_and_capabilities(
    boss, admin_user, manager, customer
):
    orders_only = grant(UserFactory(email="orders@example.com", name="Olga"), MANAGE_ORDERS)
    staff_only = UserFactory(email="staff@example.com", is_staff=True)
    body = boss.get(MANAGERS).json()
    assert set(body) == {"managers", "total", "page", "per_page", "total_pages"}
    assert (body["total"], body["page"], body["per_page"], body["total_pages"]) == (4, 1, 20, 1)
    rows = {row["email"]: row for row in body["managers"]}
    assert set(rows) == {admin_user.email, manager.email, orders_only.email, staff_only.email}
    assert customer.email not in rows
    mona = rows[manager.email]
    assert mona == {
        "id": manager.pk,
        "email": manager.email,
        "name": "Mona Manager",
        "is_active": True,
        "is_staff": False,
        "is_superuser": False,
        "roles": [{"slug": "shop_manager", "name": SHOP_MANAGER_ROLE}],
        "capabilities": [],
        "effective_capabilities": mona["effective_capabilities"],
        "date_joined": mona["date_joined"],
        "last_login": None,
    }
    assert set(mona["effective_capabilities"]) == set(SHOP_MANAGER_CAPABILITIES)
    assert rows[orders_only.email]["capabilities"] == [MANAGE_ORDERS]
    assert rows[orders_only.email]["effective_capabilities"] == [MANAGE_ORDERS]
    assert sorted(rows[admin_user.email]["effective_capabilities"]) == ALL
    assert rows[staff_only.email]["effective_capabilities"] == []


def test_a_store_administrator_holds_every_capability(boss):
    admin = store_administrator(email="opts@example.com")
    row = boss.get(f"{MANAGERS}/{admin.pk}").json()
    assert row["roles"] == [{"slug": "store_administrator", "name": ADMINISTRATOR_ROLE}]
    assert sorted(row["effective_capabilities"]) == ALL


def test_an_inactive_manager_holds_nothing(boss, manager):
    manager.is_active = False
    manager.save()
    assert boss.get(manager_url(manager.pk)).json()["effective_capabilities"] == []


def test_filters_ordering_and_pages(boss, admin_user, manager):
    grant(UserFactory(email="a-orders@example.com", name="Zed"), MANAGE_ORDERS)
    with_role(UserFactory(email="z-inactive@example.com", is_active=False), SHOP_MANAGER_ROLE)

    def emails(**query):
        return [row["email"] for row in boss.get(MANAGERS, query).json()["managers"]]

    assert emails(search="MONA") == [manager.email]
    assert emails(search="zed") == ["a-orders@example.com"]
    assert emails(role="shop_manager") == [manager.email, "z-inactive@example.com"]
    assert emails(role="no_such_role") == []
    # Holders of ec_manage_orders: directly, through the shop manager role, superusers.
    assert set(emails(capability=MANAGE_ORDERS)) == {
        admin_user.email,
        manager.email,
        "a-orders@example.com",
        "z-inactive@example.com",
    }
    assert emails(capability=MANAGE_MANAGERS) == [admin_user.email]
    assert emails(is_active="false") == ["z-inactive@example.com"]
    assert emails(orderby="email", order="desc") == sorted(
        [admin_user.email, manager.email, "a-orders@example.com", "z-inactive@example.com"],
        reverse=True,
    )
    page = boss.get(MANAGERS, {"per_page": 3, "page": 2, "orderby": "email"}).json()
    assert (page["total"], page["total_pages"], len(page["managers"])) == (4, 2, 1)
    assert boss.get(MANAGERS, {"page": 9}).json()["managers"] == []
    assert boss.get(MANAGERS, {"per_page": 1000}).json()["per_page"] == 100


@pytest.mark.parametrize(
    "query",
    [
        {"per_page": 0},
        {"page": "x"},
        {"page": 10**30},
        {"orderby": "password"},
        {"order": "sideways"},
        {"capability": "ec_manage_everything"},
        {"is_active": "maybe"},
        {"search": "x" * 201},
        {"role": "x" * 65},
    ],
)
def test_bad_query_parameters_are_400(boss, query):
    error(boss.get(MANAGERS, query), 400, "invalid_param")


def test_the_list_query_count_does_not_grow_with_managers(
    boss, django_assert_max_num_queries, admin_user
):
    def fill(n):
        for _ in range(n):
            user = with_role(UserFactory(), SHOP_MANAGER_ROLE)
            grant(user, MANAGE_PRODUCTS, MANAGE_ORDERS)

    fill(2)
    # auth (2: app password, user; a superuser's capabilities need none) + count + page +
    # roles + their capabilities + own capabilities
    with django_assert_max_num_queries(7):
        assert boss.get(MANAGERS).status_code == 200
    fill(15)
    with django_assert_max_num_queries(7):
        body = boss.get(MANAGERS).json()
    assert body["total"] == 18


# --- POST /managers -----------------------------------------------------------------------------


def test_making_an_account_a_manager(boss, customer):
    response = boss.post(
        MANAGERS,
        {"user_id": customer.pk, "roles": ["shop_manager"], "capabilities": [manage("tax")]},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["id"] == customer.pk
    assert body["is_staff"] is True
    assert body["roles"] == [{"slug": "shop_manager", "name": SHOP_MANAGER_ROLE}]
    assert body["capabilities"] == [manage("tax")]
    assert set(body["effective_capabilities"]) == {*SHOP_MANAGER_CAPABILITIES, manage("tax")}
    # Again: the roles and capabilities are added to those held; 200 for an existing manager.
    response = boss.post(
        MANAGERS,
        {"email": "SHOPPER@example.com", "capabilities": [manage("emails")]},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["capabilities"] == [manage("tax"), manage("emails")]
    assert response.json()["roles"] == [{"slug": "shop_manager", "name": SHOP_MANAGER_ROLE}]
    assert User.objects.count() == 2  # nobody was created
    entry = AuditEntry.objects.filter(object_id=customer.pk).order_by("id").first()
    assert entry.changes["roles"] == [[], ["shop_manager"]]
    assert entry.changes["is_staff"] == [False, True]


def test_is_staff_can_be_left_off(boss, customer):
    body = boss.post(
        MANAGERS,
        {"user_id": customer.pk, "roles": ["shop_manager"], "is_staff": False},
        format="json",
    ).json()
    assert body["is_staff"] is False
    assert body["roles"][0]["slug"] == "shop_manager"


def test_the_idempotency_key_replays_the_answer(boss, customer):
    body = {"user_id": customer.pk, "roles": ["shop_manager"]}
    first = boss.post(MANAGERS, body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = boss.post(MANAGERS, body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert IdempotencyRecord.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({}, "user_id"),
        ({"user_id": "ME", "email": "a@example.com"}, "user_id"),
        ({"user_id": "x"}, "user_id"),
        ({"user_id": 10**30}, "user_id"),
        ({"user_id": True}, "user_id"),
        ({"email": "not-an-address"}, "email"),
        ({"user_id": "ME", "roles": "shop_manager"}, "roles"),
        ({"user_id": "ME", "roles": [{"slug": "shop_manager"}]}, "roles.0"),
        ({"user_id": "ME", "capabilities": {"a": 1}}, "capabilities"),
        ({"user_id": "ME", "capabilities": [1]}, "capabilities.0"),
        ({"user_id": "ME", "is_staff": "yes"}, "is_staff"),
    ],
)
def test_bad_bodies_are_400_and_change_nothing(boss, customer, body, param):
    body = {k: (customer.pk if v == "ME" else v) for k, v in body.items()}
    response = boss.post(MANAGERS, body, format="json")
    assert param in error(response, 400, "invalid_param")["data"]["params"]
    assert state(customer) == {"roles": [], "capabilities": [], "is_staff": False}


@pytest.mark.parametrize(
    "raw",
    [
        '{"email": "a\\u0000b@example.com"}',
        '{"email": "\\ud800@example.com"}',
        '{"user_id": 1, "roles": ["shop\\u0000manager"]}',
        '{"user_id": 1, "roles": ["\\udfff"]}',
    ],
)
def test_nul_bytes_and_lone_surrogates_are_400(boss, customer, raw):
    response = boss.post(
        MANAGERS,
        raw.replace('"user_id": 1', f'"user_id": {customer.pk}'),
        content_type="application/json",
    )
    error(response, 400)
    assert state(customer) == {"roles": [], "capabilities": [], "is_staff": False}


@pytest.mark.parametrize("raw", ["[]", '"x"', "1", "null", "[" * 5000 + "]" * 5000, "{bad"])
def test_bodies_that_are_not_objects_are_4xx(boss, raw):
    response = boss.post(MANAGERS, raw, content_type="application/json")
    assert 400 <= response.status_code < 500
    assert set(response.json()) == {"code", "message", "data"}


def test_unknown_roles_and_capabilities_are_named(boss, customer):
    response = boss.post(
        MANAGERS,
        {"user_id": customer.pk, "roles": ["ghost"], "capabilities": ["ec_manage_ghosts"]},
        format="json",
    )
    assert set(error(response, 400)["data"]["params"]) == {"roles", "capabilities"}
    assert state(customer)["roles"] == []


def test_an_unknown_account_is_404(boss):
    error(boss.post(MANAGERS, {"user_id": 99999}, format="json"), 404, "user_not_found")
    error(
        boss.post(MANAGERS, {"email": "nobody@example.com"}, format="json"), 404, "user_not_found"
    )


# --- Who may grant what -------------------------------------------------------------------------


def test_a_manager_cannot_grant_a_capability_they_lack(store_client, customer):
    limited = store_client(people_manager(MANAGE_PRODUCTS))
    before = AuditEntry.objects.count()
    for body in (
        {"user_id": customer.pk, "capabilities": [MANAGE_ORDERS]},
        {"user_id": customer.pk, "roles": ["shop_manager"]},  # carries ec_manage_orders
        {"user_id": customer.pk, "roles": ["store_administrator"]},
        {"user_id": customer.pk, "capabilities": [MANAGE_OPTIONS]},
    ):
        response = limited.post(MANAGERS, body, format="json")
        assert "ec_manage" in error(response, 403, "capability_not_held")["message"] or (
            MANAGE_OPTIONS in response.json()["message"]
        )
    assert state(customer) == {"roles": [], "capabilities": [], "is_staff": False}
    assert AuditEntry.objects.count() == before
    # What they hold, they may give.
    response = limited.post(
        MANAGERS, {"user_id": customer.pk, "capabilities": [MANAGE_PRODUCTS]}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["capabilities"] == [MANAGE_PRODUCTS]


def test_a_manager_cannot_take_away_a_capability_they_lack(store_client, manager):
    limited = store_client(people_manager(MANAGE_PRODUCTS))
    error(limited.patch(manager_url(manager.pk), {"roles": []}, format="json"), 403)
    error(limited.delete(manager_url(manager.pk)), 403, "capability_not_held")
    assert state(manager)["roles"] == ["shop_manager"]


def test_admin_access_of_someone_above_is_not_changed(store_client, admin_user, manager):
    limited = store_client(people_manager(MANAGE_PRODUCTS))
    error(
        limited.patch(manager_url(admin_user.pk), {"is_staff": False}, format="json"),
        403,
        "capability_not_held",
    )
    error(limited.patch(manager_url(manager.pk), {"is_staff": True}, format="json"), 403)
    admin_user.refresh_from_db()
    assert admin_user.is_staff is True
    staff_only = UserFactory(is_staff=True)
    response = limited.patch(manager_url(staff_only.pk), {"is_staff": False}, format="json")
    assert response.status_code == 200


def test_nobody_grants_themselves_more(store_client):
    me = people_manager(MANAGE_PRODUCTS)
    response = store_client(me).patch(
        manager_url(me.pk), {"capabilities": [MANAGE_MANAGERS, MANAGE_OPTIONS]}, format="json"
    )
    error(response, 403, "capability_not_held")
    assert state(me)["capabilities"] == [MANAGE_PRODUCTS, MANAGE_MANAGERS]


def test_manage_options_holders_grant_anything(store_client, customer):
    admin = store_client(store_administrator())
    response = admin.post(
        MANAGERS,
        {"user_id": customer.pk, "roles": ["store_administrator"], "capabilities": ALL},
        format="json",
    )
    assert response.status_code == 201
    assert sorted(response.json()["capabilities"]) == ALL


# --- GET, PATCH, DELETE /managers/{id} ----------------------------------------------------------


def test_only_managers_are_found(boss, customer):
    error(boss.get(manager_url(customer.pk)), 404, "manager_not_found")
    error(boss.get(manager_url(999999)), 404, "manager_not_found")
    error(boss.patch(manager_url(customer.pk), {"roles": []}, format="json"), 404)
    error(boss.delete(manager_url(customer.pk)), 404, "manager_not_found")
    for bad in ("0", "-1", "x", "9" * 30):
        error(boss.get(f"{MANAGERS}/{bad}"), 404)


def test_patch_replaces_roles_and_capabilities(boss, manager):
    custom = boss.post(
        f"{API}/managers/roles", {"name": "Packer", "capabilities": [MANAGE_ORDERS]}, format="json"
    ).json()
    response = boss.patch(
        manager_url(manager.pk),
        {"roles": [custom["slug"]], "capabilities": [manage("tax")], "is_staff": True},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["roles"] == [{"slug": "packer", "name": "Packer"}]
    assert body["capabilities"] == [manage("tax")]
    assert body["effective_capabilities"] == [MANAGE_ORDERS, manage("tax")]
    assert body["is_staff"] is True
    # Fields not sent stay; PUT is the same partial update.
    body = boss.put(manager_url(manager.pk), {"capabilities": []}, format="json").json()
    assert (body["roles"][0]["slug"], body["capabilities"]) == ("packer", [])
    assert boss.patch(manager_url(manager.pk), {}, format="json").status_code == 200


def test_other_groups_and_permissions_are_kept(boss, manager):
    other = Group.objects.create(name="Portal editors")  # not a store role
    manager.groups.add(other)
    boss.patch(manager_url(manager.pk), {"roles": []}, format="json")
    assert list(manager.groups.all()) == [other]


def test_delete_removes_the_manager_not_the_account(boss, manager):
    grant(manager, manage("tax"))
    manager.is_staff = True
    manager.save()
    assert boss.delete(manager_url(manager.pk)).status_code == 204
    assert state(manager) == {"roles": [], "capabilities": [], "is_staff": False}
    assert User.objects.filter(pk=manager.pk).exists()
    error(boss.get(manager_url(manager.pk)), 404, "manager_not_found")


def test_a_superuser_cannot_be_removed_here(boss, admin_user):
    error(boss.delete(manager_url(admin_user.pk)), 409, "manager_is_superuser")


# --- The last administrator ---------------------------------------------------------------------


def test_the_last_administrator_cannot_be_removed(store_client):
    only = store_administrator(email="only@example.com")
    client = store_client(only)
    error(client.delete(manager_url(only.pk)), 409, "last_administrator")
    error(client.patch(manager_url(only.pk), {"roles": []}, format="json"), 409)
    assert state(only)["roles"] == ["store_administrator"]
    # A second administrator: now either may go.
    other = store_administrator(email="second@example.com")
    assert client.delete(manager_url(other.pk)).status_code == 204
    error(client.delete(manager_url(only.pk)), 409, "last_administrator")


def test_a_direct_holder_counts_and_superusers_count(store_client, admin_user):
    direct = grant(UserFactory(), MANAGE_OPTIONS)
    client = store_client(direct)
    # A superuser is an administrator: the direct holder may give it up.
    response = client.patch(manager_url(direct.pk), {"capabilities": []}, format="json")
    assert response.status_code == 200, response.content
    assert state(direct)["capabilities"] == []


def test_an_inactive_administrator_does_not_count(store_client):
    only = store_administrator()
    store_administrator(is_active=False)
    error(store_client(only).delete(manager_url(only.pk)), 409, "last_administrator")


def test_a_store_without_administrators_can_still_be_managed(store_client, customer):
    """Only removing the last holder is refused, not every change of a store without one."""
    response = store_client(people_manager(MANAGE_PRODUCTS)).post(
        MANAGERS, {"user_id": customer.pk, "capabilities": [MANAGE_PRODUCTS]}, format="json"
    )
    assert response.status_code == 201


# --- Browsers: session cookie + nonce, CSRF enforced -------------------------------------------


def test_session_writes_need_the_nonce(customer):
    admin = UserFactory(is_superuser=True, is_staff=True)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(admin)
    body = json.dumps({"user_id": customer.pk, "roles": ["shop_manager"]})
    # The cookie alone counts as logged out.
    error(browser.post(MANAGERS, body, content_type="application/json"), 401, "not_logged_in")
    error(browser.delete(manager_url(admin.pk)), 401)
    assert state(customer)["roles"] == []
    nonce = browser.get(f"{API}/auth/nonce").json()["nonce"]
    response = browser.post(
        MANAGERS, body, content_type="application/json", HTTP_X_PLATFORM_NONCE=nonce
    )
    assert response.status_code == 201, response.content
    response = browser.patch(
        manager_url(customer.pk),
        json.dumps({"roles": []}),
        content_type="application/json",
        HTTP_X_PLATFORM_NONCE=nonce,
    )
    assert response.status_code == 200
    assert browser.delete(manager_url(customer.pk), HTTP_X_PLATFORM_NONCE=nonce).status_code == 204


def test_a_form_post_is_refused(admin_user):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(admin_user)
    response = browser.post(MANAGERS, {"user_id": "1"})
    assert response.status_code in (401, 403, 415)
