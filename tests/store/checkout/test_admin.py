"""The admin of checkouts and of the sandbox's charges."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from store.checkout.models import Checkout
from store.common.capabilities import SHOP_MANAGER_ROLE
from store.orders.models import Order
from store.payments.models import SandboxCharge
from tests.accounts.factories import UserFactory
from tests.store.checkout.helpers import DECLINED, complete, started

pytestmark = pytest.mark.django_db


@pytest.fixture
def placed(anon, shop):
    body = started(anon, shop)
    complete(anon, body["id"], payment_data=DECLINED)
    return Checkout.objects.get(pk=body["id"])


def test_checkout_and_charge_pages_render(admin_client, placed):
    for model, obj in ((Checkout, placed), (SandboxCharge, SandboxCharge.objects.get())):
        meta = model._meta
        changelist = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        assert admin_client.get(changelist).status_code == 200
        assert admin_client.get(changelist, {"q": "ana"}).status_code == 200
        change = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
        html = admin_client.get(change).content.decode()
        assert placed.order.order_number in html
        assert admin_client.get(
            reverse(f"admin:{meta.app_label}_{meta.model_name}_add")
        ).status_code == (403)


def test_checkouts_are_not_deleted_from_the_admin(admin_client, placed):
    admin_client.post(
        reverse("admin:store_checkout_checkout_changelist"),
        {"action": "delete_selected", "_selected_action": [placed.pk], "post": "yes"},
    )
    assert Checkout.objects.filter(pk=placed.pk).exists()


def test_the_actions_end_a_hold_and_cancel_an_unpaid_order(admin_client, anon, shop, placed):
    url = reverse("admin:store_checkout_checkout_changelist")
    open_one = started(anon, shop, lamps=1, mugs=0)
    assert shop.stock() == 2
    admin_client.post(url, {"action": "end_hold", "_selected_action": [open_one["id"]]})
    assert Checkout.objects.get(pk=open_one["id"]).status == "expired"
    assert shop.stock() == 3
    admin_client.post(url, {"action": "cancel_unpaid", "_selected_action": [placed.pk]})
    assert Order.objects.get(pk=placed.order_id).status == "cancelled"
    assert Checkout.objects.get(pk=placed.pk).status == "cancelled"


def test_shop_managers_see_checkouts_but_not_the_sandboxs_charges(client, placed):
    manager = UserFactory(is_staff=True)
    manager.groups.add(Group.objects.get(name=SHOP_MANAGER_ROLE))
    client.force_login(manager)
    assert client.get(reverse("admin:store_checkout_checkout_changelist")).status_code == 200
    assert client.get(reverse("admin:store_payments_sandboxcharge_changelist")).status_code == 403
