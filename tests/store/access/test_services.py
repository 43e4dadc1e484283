"""store.access.services beyond the routes: caches, deny by default, seeding, the migration."""

import importlib

import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import Group
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory, force_authenticate

from common.errors import Conflict, Forbidden
from store.access import selectors, services
from store.access.models import RoleProfile
from store.common.capabilities import (
    MANAGE_OPTIONS,
    MANAGE_ORDERS,
    MANAGE_PRODUCTS,
    SHOP_MANAGER_ROLE,
    capabilities_of,
    has_capability,
)
from store.common.permissions import PUBLIC
from store.common.views import StoreAPIView
from tests.accounts.factories import UserFactory
from tests.store.access.helpers import people_manager, store_administrator, with_role

pytestmark = pytest.mark.django_db


def test_a_change_forgets_the_actors_cached_capabilities():
    me, other = store_administrator(), store_administrator()
    assert has_capability(me, MANAGE_OPTIONS)  # cached on the object now
    assert me.has_perm("store_access.manage_options")  # Django's own cache too
    services.manager_update(actor=me, user_id=me.pk, fields={"roles": []})
    assert not has_capability(me, MANAGE_OPTIONS)
    assert not me.has_perm("store_access.manage_options")
    assert has_capability(other, MANAGE_OPTIONS)


def test_a_role_change_forgets_the_actors_cache_when_they_hold_it():
    me = store_administrator()
    role = services.role_create(actor=me, fields={"name": "Crew", "capabilities": [MANAGE_ORDERS]})
    me.groups.add(role)
    holder = people_manager()
    holder.groups.add(role)
    assert has_capability(holder, MANAGE_ORDERS)
    services.role_update(actor=holder, slug="crew", fields={"capabilities": []})
    assert not has_capability(holder, MANAGE_ORDERS)


def test_a_refusal_keeps_everything():
    only = store_administrator()
    before = selectors.manager_state(only)
    with pytest.raises(Conflict) as refused:
        services.manager_remove(actor=only, user_id=only.pk)
    assert refused.value.code == "last_administrator"
    only.refresh_from_db()
    assert selectors.manager_state(only) == before
    assert capabilities_of(only) >= {MANAGE_OPTIONS}


def test_the_system_may_do_anything():
    user = UserFactory()
    services.role_assign(user=user, role_name=SHOP_MANAGER_ROLE)
    assert selectors.manager_state(user) == {
        "roles": ["shop_manager"],
        "capabilities": [],
        "is_staff": False,
    }
    services.manager_assign(actor=None, user_id=user.pk, capabilities=[MANAGE_OPTIONS])
    assert has_capability(type(user).objects.get(pk=user.pk), MANAGE_PRODUCTS)


def test_the_seeded_roles_are_restored_and_keep_their_slugs():
    group = Group.objects.get(name=SHOP_MANAGER_ROLE)
    group.permissions.clear()
    RoleProfile.objects.filter(group=group).update(built_in=False, slug="renamed")
    services.roles_ensure_defaults()
    services.roles_ensure_defaults()
    profile = RoleProfile.objects.get(group=group)
    assert (profile.slug, profile.built_in) == ("shop_manager", True)
    assert has_capability(with_role(UserFactory(), SHOP_MANAGER_ROLE), MANAGE_ORDERS)


def test_the_migration_gives_existing_groups_a_slug():
    migration = importlib.import_module("store.access.migrations.0003_role_slugs")
    first = Group.objects.create(name="Night Shift")
    second = Group.objects.create(name="night-shift")
    RoleProfile.objects.create(group=Group.objects.create(name="Taken"), slug="taken")
    Group.objects.create(name="TAKEN!")
    migration.forwards(django_apps, None)
    slugs = dict(RoleProfile.objects.values_list("group__name", "slug"))
    assert slugs[first.name] == "night_shift"
    assert slugs[second.name] == "night_shift_2"
    assert slugs["TAKEN!"] == "taken_2"
    assert slugs[SHOP_MANAGER_ROLE] == "shop_manager"


# --- Deny by default (store.common.permissions) -------------------------------------------------


class Undeclared(StoreAPIView):
    """A view that declares no access at all."""

    def get(self, request):
        return Response({"ok": True})


class PartlyDeclared(StoreAPIView):
    access = {"GET": PUBLIC}

    def get(self, request):
        return Response({"ok": True})

    def post(self, request):
        return Response({"ok": True})


def call(view, method: str, user=None):
    request = getattr(APIRequestFactory(), method)("/rest/ec/v1/x", {}, format="json")
    if user is not None:
        force_authenticate(request, user=user)
    return view.as_view()(request)


@pytest.mark.parametrize(
    ("view", "method"), [(Undeclared, "get"), (PartlyDeclared, "post")], ids=["none", "partly"]
)
def test_a_method_without_declared_access_needs_manage_options(view, method):
    assert call(view, method).status_code == 401
    assert call(view, method, UserFactory()).status_code == 403
    manager = with_role(UserFactory(), SHOP_MANAGER_ROLE)
    assert call(view, method, manager).status_code == 403
    assert call(view, method, people_manager(MANAGE_PRODUCTS)).status_code == 403
    assert call(view, method, store_administrator()).status_code == 200
    assert call(view, method, UserFactory(is_superuser=True)).status_code == 200
    assert call(PartlyDeclared, "get").status_code == 200


def test_the_actors_capabilities_are_read_again_under_the_lock():
    """A request cached its caller's capabilities; a change that landed since counts."""
    me, other = store_administrator(), store_administrator()
    assert has_capability(me, MANAGE_OPTIONS)  # cached, as the permission check does
    services.manager_update(
        actor=other, user_id=me.pk, fields={"roles": [], "capabilities": [MANAGE_PRODUCTS]}
    )
    customer = UserFactory()
    with pytest.raises(Forbidden) as refused:
        services.manager_assign(actor=me, user_id=customer.pk, capabilities=[MANAGE_ORDERS])
    assert refused.value.code == "capability_not_held"
    assert selectors.manager_state(customer)["capabilities"] == []
