"""Capabilities held through roles; one check for every view; manage_options everywhere."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import URLPattern, URLResolver, get_resolver

from store.common.capabilities import (
    ADMINISTRATOR_ROLE,
    APP_LABEL,
    CODENAMES,
    SHOP_MANAGER_ROLE,
    has_capability,
)
from store.common.permissions import LOGGED_IN, PUBLIC, StoreAccess
from store.common.views import StoreViewMixin
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error
from tests.store.catalog.factories import make_product

pytestmark = pytest.mark.django_db

# Routes with a rate limit, per method (spec: no built-in global limit): coupon codes can be
# guessed; completing, order-received lookups, the checkout's account routes; against stock
# hoarding, starting a checkout and every cart write.
STRICT_LIMITS = {
    ("rest/ec/v1/coupons/apply", "POST"): "coupon_validate",
    ("rest/ec/v1/coupons/validate", "POST"): "coupon_validate",
    ("rest/ec/v1/checkout/<id:checkout_id>/complete", "POST"): "checkout_complete",
    ("rest/ec/v1/order-received/<id:order_id>", "GET"): "order_received",
    ("rest/ec/v1/checkout/check-email", "POST"): "checkout_check_email",
    ("rest/ec/v1/checkout/login", "POST"): "checkout_login",
    ("rest/ec/v1/checkout/create-account", "POST"): "checkout_create_account",
    ("rest/ec/v1/checkout", "POST"): "checkout_start",
    ("rest/ec/v1/cart/items", "POST"): "cart_write",
    ("rest/ec/v1/cart/items/<str:item_id>", "PATCH"): "cart_write",
    ("rest/ec/v1/cart/items/<str:item_id>", "PUT"): "cart_write",
    ("rest/ec/v1/cart/items/<str:item_id>", "DELETE"): "cart_write",
    ("rest/ec/v1/cart/clear", "POST"): "cart_write",
    ("rest/ec/v1/cart/shipping-address", "POST"): "cart_write",
    ("rest/ec/v1/cart/shipping-method", "POST"): "cart_write",
    ("rest/ec/v1/coupons/remove", "POST"): "cart_write",
    ("rest/ec/v1/checkout/<id:checkout_id>", "PATCH"): "cart_write",
    ("rest/ec/v1/checkout/<id:checkout_id>", "PUT"): "cart_write",
    ("rest/ec/v1/checkout/<id:checkout_id>/validate", "POST"): "cart_write",
    ("rest/ec/v1/emails/test", "POST"): "email_test",  # it mails any address
    # A store webhook's test ping sends a request to an outside address at once
    ("rest/ec/v1/webhooks/<id:webhook_id>/test", "POST"): "webhook_send",
    (
        "rest/ec/v1/webhooks/<id:webhook_id>/deliveries/<id:delivery_id>/redeliver",
        "POST",
    ): "webhook_send",
}


def scope_of(view, method: str) -> str | None:
    """The rate-limit scope of one method: `throttle_scopes`, or a view-wide old-style one."""
    scope = view.throttle_scope_for(method)
    if scope is None and view.throttle_classes:
        scope = view.throttle_scope
    return scope


def walk(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def store_views():
    return [
        (route, getattr(cb, "cls", None) or getattr(cb, "view_class", None))
        for route, cb in walk(get_resolver().url_patterns)
        if route.startswith("rest/ec/v1/")
    ]


def test_every_store_view_uses_the_store_base_and_declares_known_access():
    views = store_views()
    assert len(views) >= 35
    for route, view in views:
        assert view is not None, route
        assert issubclass(view, StoreViewMixin), route
        assert StoreAccess in view.permission_classes, route
        assert not route.endswith("/"), route
        for method in ("get", "post", "put", "patch", "delete"):
            if hasattr(view, method):
                # spec: no built-in rate limit; a few routes have one (STRICT_LIMITS).
                scope = STRICT_LIMITS.get((route, method.upper()))
                assert scope_of(view, method) == scope, (route, method)
                access = view.access.get(method.upper(), view.access.get("*"))
                assert access is not None, f"{route} {method}: access not declared"
                assert access in (PUBLIC, LOGGED_IN) or access in CODENAMES, (route, access)


def test_store_views_do_not_use_the_portal_defaults():
    from accounts.authentication import AppPasswordAuthentication, BearerTokenAuthentication
    from store.common.authentication import StoreSessionAuthentication

    for route, view in store_views():
        classes = view.authentication_classes
        assert BearerTokenAuthentication not in classes, route
        if route not in ("rest/ec/v1/auth/nonce", "rest/ec/v1/docs/playground"):
            assert classes == [StoreSessionAuthentication, AppPasswordAuthentication], route
        parsers = {p.media_type for p in view.parser_classes}
        if route.startswith("rest/ec/v1/checkout"):
            # JSON only, so that a cross-site form cannot log in or place an order.
            assert parsers == {"application/json"}, route
        else:
            assert parsers == {"application/json", "multipart/form-data"}, route


def test_every_capability_is_a_django_permission():
    stored = set(
        Permission.objects.filter(content_type__app_label=APP_LABEL).values_list(
            "codename", flat=True
        )
    )
    assert stored == set(CODENAMES)
    assert {
        "manage_options",
        "ec_manage_products",
        "ec_manage_orders",
        "ec_manage_customers",
        "ec_manage_settings",
        "ec_manage_managers",
    } <= stored


def test_the_seeded_roles():
    manager = Group.objects.get(name=SHOP_MANAGER_ROLE)
    codenames = set(
        manager.permissions.filter(content_type__app_label=APP_LABEL).values_list(
            "codename", flat=True
        )
    )
    assert codenames == {
        "ec_manage_products",
        "ec_manage_reviews",
        "ec_manage_orders",
        "ec_manage_customers",
        "ec_manage_coupons",
        "ec_manage_inventory",
        "ec_manage_shipping",
        "ec_manage_reports",
        # The theme's page builder (edit any layout, edit a layout)
        "edit_posts",
        "edit_post",
    }
    # ...plus the admin screens of the catalog.
    assert manager.permissions.filter(
        content_type__app_label="store_catalog", codename="change_product"
    ).exists()
    administrator = Group.objects.get(name=ADMINISTRATOR_ROLE)
    assert list(administrator.permissions.values_list("codename", flat=True)) == ["manage_options"]


def test_has_capability_rules(manager, admin_user, customer):
    assert has_capability(manager, "ec_manage_products")
    assert not has_capability(manager, "ec_manage_settings")
    assert not has_capability(manager, "manage_options")
    assert has_capability(admin_user, "ec_manage_settings")  # superusers hold everything
    assert not has_capability(customer, "ec_manage_products")
    with pytest.raises(ValueError, match="Unknown store capability"):
        has_capability(manager, "ec_manage_everything")


def test_manage_options_is_accepted_for_every_capability():
    boss = UserFactory()
    boss.groups.add(Group.objects.get(name=ADMINISTRATOR_ROLE))
    assert not boss.is_superuser
    for codename in CODENAMES:
        assert has_capability(boss, codename), codename


def test_inactive_accounts_hold_nothing(manager):
    manager.is_active = False
    assert not has_capability(manager, "ec_manage_products")


@pytest.mark.parametrize(
    ("who", "status"),
    [
        ("anonymous", 401),
        ("customer", 403),
        ("manager", 201),
        ("administrator", 201),
        ("superuser", 201),
    ],
)
def test_the_permission_matrix_of_a_product_write(
    who, status, store_client, anon, customer, manager, admin_user
):
    administrator = UserFactory(email="opts@example.com")
    administrator.groups.add(Group.objects.get(name=ADMINISTRATOR_ROLE))
    client = {
        "anonymous": anon,
        "customer": store_client(customer) if who == "customer" else None,
        "manager": store_client(manager) if who == "manager" else None,
        "administrator": store_client(administrator) if who == "administrator" else None,
        "superuser": store_client(admin_user) if who == "superuser" else None,
    }[who]
    from store.catalog.models import Product

    response = client.post(f"{API}/products", {"title": "Lamp"}, format="json")
    assert response.status_code == status, response.content
    assert Product.objects.filter(title="Lamp").count() == (1 if status == 201 else 0)


def test_a_shop_manager_may_not_change_settings_but_an_administrator_may(store_client, manager):
    error(
        store_client(manager).patch(
            f"{API}/settings/inventory", {"low_stock_threshold": 5}, format="json"
        ),
        403,
    )
    administrator = UserFactory()
    administrator.groups.add(Group.objects.get(name=ADMINISTRATOR_ROLE))
    response = store_client(administrator).patch(
        f"{API}/settings/inventory", {"low_stock_threshold": 5}, format="json"
    )
    assert response.status_code == 200


def test_refused_writes_change_nothing(store_client, customer):
    product = make_product(title="Desk", regular_price="99.00")
    client = store_client(customer)
    error(client.patch(f"{API}/products/{product.pk}", {"title": "Hacked"}, format="json"), 403)
    error(client.delete(f"{API}/products/{product.pk}"), 403)
    product.refresh_from_db()
    assert product.title == "Desk"


def fresh(user):
    return type(user).objects.get(pk=user.pk)  # no per-request caches carried over


@pytest.mark.parametrize("holding", ["none", "direct", "role", "admin", "superuser", "inactive"])
def test_the_check_answers_what_django_has_perm_answers_in_one_query(
    holding, django_assert_num_queries
):
    user = UserFactory(is_superuser=holding == "superuser", is_active=holding != "inactive")
    if holding in ("direct", "inactive"):
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=APP_LABEL, codename="ec_manage_orders")
        )
    if holding == "role":
        user.groups.add(Group.objects.get(name=SHOP_MANAGER_ROLE))
    if holding == "admin":
        user.groups.add(Group.objects.get(name=ADMINISTRATOR_ROLE))
    django = fresh(user)
    expected = {
        c
        for c in CODENAMES
        if django.is_active
        and (django.has_perm(f"{APP_LABEL}.{c}") or django.has_perm(f"{APP_LABEL}.manage_options"))
    }
    user = fresh(user)
    with django_assert_num_queries(0 if holding in ("superuser", "inactive") else 1):
        verdicts = {c for c in CODENAMES if has_capability(user, c)}
    assert verdicts == expected
    assert (verdicts == set(CODENAMES)) is (holding in ("admin", "superuser"))
    assert bool(verdicts) is (holding not in ("none", "inactive"))
