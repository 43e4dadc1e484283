"""The split of the modules' one app into one app per module keeps every row and every content
type: migrated back to the state before the split, rows written there in each moved model,
then migrated forward, the rows are read through the modules' own models, and each content
type is the same row (the same id) under the module's label, so a granted permission and the
admin's history follow it. One test, transactional (migrations need their own transactions):
it moves the database twice and leaves it fully migrated."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.admin.models import ADDITION, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse
from django.utils import timezone

from store.cart.models import Cart
from tests.accounts.factories import UserFactory
from tests.store.catalog.factories import make_product
from tests.store.orders.factories import make_order
from theme.modules.b2b.models import CustomerGroup, CustomerGroupMember
from theme.modules.bundles.models import Bundle, BundleItem
from theme.modules.points.models import PointsEntry
from theme.modules.promotions.models import Promotion
from theme.modules.quotes.models import Quote, QuoteItem
from theme.modules.recently_viewed.models import RecentlyViewed
from theme.modules.recover_cart.models import CartRecovery

KERNEL = "theme_modules"
SPLIT = (KERNEL, "0003_split_into_module_apps")
BEFORE = (KERNEL, "0002_admin_names")
#: Each moved model's new app label.
MOVED = {
    RecentlyViewed: "theme_modules_recently_viewed",
    Bundle: "theme_modules_bundles",
    BundleItem: "theme_modules_bundles",
    PointsEntry: "theme_modules_points",
    Promotion: "theme_modules_promotions",
    Quote: "theme_modules_quotes",
    QuoteItem: "theme_modules_quotes",
    CustomerGroup: "theme_modules_b2b",
    CustomerGroupMember: "theme_modules_b2b",
    CartRecovery: "theme_modules_recover_cart",
}
NEW_APPS = sorted(set(MOVED.values()))


def _migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    ContentType.objects.clear_cache()
    return executor


def _write_before_the_split(old, user, product, order, cart) -> dict[str, int]:
    """One row in each moved model, through the models as they were in the kernel app."""

    def model(name):
        return old.get_model(KERNEL, name)

    now = timezone.now()
    bundle = model("Bundle").objects.create(title="Duo", slug="duo", discount_percent=5)
    quote = model("Quote").objects.create(name="Ann", email="ann@example.com")
    group = model("CustomerGroup").objects.create(name="Trade", discount_percent=Decimal(7))
    rows = {
        "RecentlyViewed": model("RecentlyViewed").objects.create(
            user_id=user.pk, product_id=product.pk
        ),
        "Bundle": bundle,
        "BundleItem": model("BundleItem").objects.create(
            bundle=bundle, product_id=product.pk, quantity=2
        ),
        "PointsEntry": model("PointsEntry").objects.create(
            user_id=user.pk, order_id=order.pk, kind="earned", points=12
        ),
        "Promotion": model("Promotion").objects.create(name="Ten", kind="percent", value=10),
        "Quote": quote,
        "QuoteItem": model("QuoteItem").objects.create(
            quote=quote, product_id=product.pk, quantity=3
        ),
        "CustomerGroup": group,
        "CustomerGroupMember": model("CustomerGroupMember").objects.create(
            group=group, user_id=user.pk
        ),
        "CartRecovery": model("CartRecovery").objects.create(
            cart_id=cart.pk, email="ann@example.com", cart_updated_at=now
        ),
    }
    return {name: row.pk for name, row in rows.items()}


@pytest.mark.slow(reason="migrates the database back before the split and forward again")
@pytest.mark.postgresql_only  # the SQLite test database is built from the models, not migrated
@pytest.mark.django_db(transaction=True)
def test_the_split_keeps_every_row_and_content_type():
    user = UserFactory(email="ann@example.com")
    product = make_product(title="Lamp")
    order = make_order()
    cart = Cart.objects.create(user=user)
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    try:
        executor = _migrate([BEFORE, *((label, None) for label in NEW_APPS)])
        # Unapplied, the modules' apps gave their content types back to the kernel's label.
        old_types = dict(ContentType.objects.filter(app_label=KERNEL).values_list("model", "pk"))
        assert set(old_types) == {model._meta.model_name for model in MOVED}
        assert not ContentType.objects.filter(app_label__in=NEW_APPS).exists()

        old = executor.loader.project_state([BEFORE]).apps
        ids = _write_before_the_split(old, user, product, order, cart)
        change_bundle = Permission.objects.get(
            content_type_id=old_types["bundle"], codename="change_bundle"
        )
        user.user_permissions.add(change_bundle)
        LogEntry.objects.create(
            user_id=user.pk,
            content_type_id=old_types["bundle"],
            object_id=str(ids["Bundle"]),
            object_repr="Duo",
            action_flag=ADDITION,
        )

        _migrate(leaves)
    except BaseException:
        _migrate(leaves)  # the database as the other tests need it, whatever failed
        raise

    for model, label in MOVED.items():
        name = model._meta.model_name
        assert model.objects.filter(pk=ids[model.__name__]).exists(), name
        content_type = ContentType.objects.get_for_model(model)
        assert (content_type.app_label, content_type.pk) == (label, old_types[name])
    assert not ContentType.objects.filter(app_label=KERNEL).exists()

    bundle = Bundle.objects.get()
    assert [(i.product_id, i.quantity) for i in bundle.items.all()] == [(product.pk, 2)]
    assert list(CustomerGroup.objects.get().members.all()) == [user]
    assert PointsEntry.objects.get().order_id == order.pk
    assert Quote.objects.get().items.get().quantity == 3
    # The permission granted before the split is the module's now; the admin's history entry
    # points at the bundle under its new label.
    fresh = get_user_model().objects.get(pk=user.pk)
    assert fresh.has_perm("theme_modules_bundles.change_bundle")
    entry = LogEntry.objects.get()
    assert entry.get_edited_object() == bundle
    assert entry.get_admin_url() == reverse(
        "admin:theme_modules_bundles_bundle_change", args=[bundle.pk]
    )
