"""Roles and managers in the admin: capability-gated pages whose saves go through the
services (refusals on the form or as a message)."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from accounts.models import User
from store.access.models import RoleProfile
from store.common.capabilities import MANAGE_OPTIONS, MANAGE_ORDERS, MANAGE_PRODUCTS, manage
from tests.accounts.factories import UserFactory
from tests.admin_forms import csrf_client, form_errors, form_values, post_form
from tests.fixtures.store import grant
from tests.store.access.helpers import people_manager, state, store_administrator

pytestmark = pytest.mark.django_db

ROLES = reverse("admin:store_access_role_changelist")
ROLE_ADD = reverse("admin:store_access_role_add")
MANAGERS = reverse("admin:store_access_manager_changelist")
MANAGER_ADD = reverse("admin:store_access_manager_add")


def role_change(group):
    return reverse("admin:store_access_role_change", args=[group.pk])


def manager_change(user):
    return reverse("admin:store_access_manager_change", args=[user.pk])


@pytest.fixture
def boss(admin_user):
    return csrf_client(admin_user)


def staff_with(*codenames):
    user = grant(UserFactory(is_staff=True), *codenames)
    return user


def test_the_pages_render(boss, manager):
    assert "Shop manager" in boss.get(ROLES).content.decode()
    assert boss.get(ROLES, {"q": "shop"}).status_code == 200
    assert boss.get(ROLE_ADD).status_code == 200
    html = boss.get(MANAGERS).content.decode()
    assert manager.email in html
    assert "Shop manager" in html
    assert boss.get(MANAGERS, {"q": "mona"}).status_code == 200
    assert boss.get(manager_change(manager)).status_code == 200
    assert boss.get(MANAGER_ADD).status_code == 200


def test_django_groups_are_edited_here_only(boss):
    from django.contrib import admin

    assert not admin.site.is_registered(Group)


def test_the_pages_need_the_managers_capability(manager):
    outsider = csrf_client(staff_with(MANAGE_PRODUCTS))
    assert outsider.get(ROLES).status_code == 403
    assert outsider.get(MANAGERS).status_code == 403
    insider = csrf_client(staff_with(manage("managers")))
    assert insider.get(ROLES).status_code == 200
    assert insider.get(manager_change(manager)).status_code == 200


def test_built_in_roles_are_read_only(boss):
    group = Group.objects.get(store_role__slug="shop_manager")
    html = boss.get(role_change(group)).content.decode()
    assert 'name="_save"' not in html
    response = boss.post(role_change(group), {"name": "Mine"})
    assert response.status_code == 403
    assert Group.objects.filter(name="Shop manager").exists()
    delete = reverse("admin:store_access_role_delete", args=[group.pk])
    assert boss.get(delete).status_code == 403


def test_adding_changing_and_deleting_a_role(boss, manager):
    response = post_form(
        boss,
        ROLE_ADD,
        name="Packers",
        description="Pick and pack",
        capabilities=[MANAGE_ORDERS, manage("inventory")],
    )
    assert response.status_code == 302, form_errors(response)
    group = Group.objects.get(name="Packers")
    assert group.store_role.slug == "packers"
    assert sorted(group.permissions.values_list("codename", flat=True)) == sorted(
        [MANAGE_ORDERS, manage("inventory")]
    )
    assert form_values(boss, role_change(group))["slug"] == "packers"
    response = post_form(boss, role_change(group), name="Pickers", capabilities=[MANAGE_ORDERS])
    assert response.status_code == 302, form_errors(response)
    group.refresh_from_db()
    assert group.name == "Pickers"
    assert list(group.permissions.values_list("codename", flat=True)) == [MANAGE_ORDERS]
    manager.groups.add(group)
    delete = reverse("admin:store_access_role_delete", args=[group.pk])
    assert post_form(boss, delete).status_code == 302
    assert not RoleProfile.objects.filter(slug="packers").exists()
    assert User.objects.filter(pk=manager.pk).exists()


def test_role_refusals_show_on_the_form(boss):
    limited = csrf_client(staff_with(manage("managers"), MANAGE_PRODUCTS))
    response = post_form(limited, ROLE_ADD, name="Sneaky", capabilities=[MANAGE_OPTIONS])
    assert response.status_code == 200
    assert any("do not hold" in e for e in form_errors(response)), form_errors(response)
    response = post_form(boss, ROLE_ADD, name="shop MANAGER")
    assert any("exists" in e for e in form_errors(response)), form_errors(response)
    response = post_form(boss, ROLE_ADD, name="Ok", slug="Bad Slug")
    assert form_errors(response)
    assert not Group.objects.filter(name__in=["Sneaky", "Ok"]).exists()


def test_making_changing_and_removing_a_manager(boss, customer):
    response = post_form(
        boss,
        MANAGER_ADD,
        account=customer.email,
        roles=[str(Group.objects.get(store_role__slug="shop_manager").pk)],
        capabilities=[manage("tax")],
    )
    assert response.status_code == 302, form_errors(response)
    assert state(customer) == {
        "roles": ["shop_manager"],
        "capabilities": [manage("tax")],
        "is_staff": True,
    }
    values = form_values(boss, manager_change(customer))
    assert values["capabilities"] == manage("tax")
    response = post_form(boss, manager_change(customer), roles=None, capabilities=[])
    assert response.status_code == 302, form_errors(response)
    assert state(customer) == {"roles": [], "capabilities": [], "is_staff": True}
    delete = reverse("admin:store_access_manager_delete", args=[customer.pk])
    page = boss.get(delete).content.decode()
    assert "store roles and capabilities only" in page
    assert post_form(boss, delete).status_code == 302
    assert User.objects.filter(pk=customer.pk).exists()
    assert state(customer) == {"roles": [], "capabilities": [], "is_staff": False}


def test_manager_refusals(boss, customer):
    response = post_form(boss, MANAGER_ADD, account="nobody@example.com")
    assert response.status_code == 200
    assert form_errors(response)
    limited = csrf_client(staff_with(manage("managers"), MANAGE_PRODUCTS))
    response = post_form(limited, MANAGER_ADD, account=customer.email, capabilities=[MANAGE_ORDERS])
    assert response.status_code == 200
    assert any("do not hold" in e for e in form_errors(response)), form_errors(response)
    assert state(customer)["capabilities"] == []


def test_the_last_administrator_is_refused_with_a_message():
    only = store_administrator(is_staff=True)
    client = csrf_client(only)
    response = post_form(client, manager_change(only), roles=None)
    assert response.status_code == 302
    messages = [str(m) for m in response.wsgi_request._messages]
    assert any("without an administrator" in m for m in messages), messages
    assert state(only)["roles"] == ["store_administrator"]


def test_the_managers_list_query_count_does_not_grow(boss, django_assert_max_num_queries):
    for _ in range(3):
        people_manager(MANAGE_PRODUCTS)
    with django_assert_max_num_queries(14):
        boss.get(MANAGERS)
    for _ in range(12):
        people_manager(MANAGE_PRODUCTS)
    with django_assert_max_num_queries(14):
        assert boss.get(MANAGERS).status_code == 200
