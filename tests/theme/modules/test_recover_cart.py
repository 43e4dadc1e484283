"""Abandoned-cart recovery: the beat task e-mails (through the store's e-mails, after the
commit) the shopper of an idle cart a signed, expiring link; following it restores the cart
into the visitor's session."""

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone
from rest_framework.test import APIClient

from store.cart.models import Cart
from store.emails.models import SentEmail
from tests.store.cart.helpers import add, cart_of, token_of
from tests.store.catalog.factories import make_product
from tests.theme.modules.conftest import BASE, error, modules_off
from theme.modules.recover_cart import tasks
from theme.modules.recover_cart.models import CartRecovery

pytestmark = pytest.mark.django_db


@pytest.fixture
def abandoned(store_client, customer):
    client = store_client(customer)
    lamp = make_product(title="Lamp", regular_price="12.00")
    desk = make_product(title="Desk", regular_price="80.00")
    assert add(client, lamp.pk, 2).status_code == 200
    assert add(client, desk.pk, 1).status_code == 200
    idle(Cart.objects.get(user=customer))
    return client


def idle(cart, hours=5):
    Cart.objects.filter(pk=cart.pk).update(updated_at=timezone.now() - timedelta(hours=hours))


def run(capture) -> int:
    with capture(execute=True):
        return tasks.recover_abandoned_carts()


def link_path(message) -> str:
    link = re.search(r"https?://\S+/recover-cart/[^\s\"<]+", message.body).group(0)
    return "/" + link.split("/", 3)[3]


def test_the_link_in_the_email_restores_the_cart(
    abandoned, customer, django_capture_on_commit_callbacks
):
    assert run(django_capture_on_commit_callbacks) == 1
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [customer.email]
    assert SentEmail.objects.get().type == "cart_recovery"
    visitor = APIClient()
    response = visitor.get(link_path(message))
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["restored"] == 2
    assert body["cart"]["item_count"] == 3
    assert token_of(visitor)  # the visitor's session now has the cart
    assert cart_of(visitor)["item_count"] == 3
    assert visitor.get(link_path(message)).json()["restored"] == 0  # again: nothing added
    assert cart_of(visitor)["item_count"] == 3
    assert CartRecovery.objects.get().restored_at is not None


def test_one_email_per_idle_spell(abandoned, customer, django_capture_on_commit_callbacks):
    assert run(django_capture_on_commit_callbacks) == 1
    assert run(django_capture_on_commit_callbacks) == 0
    cart = Cart.objects.get(user=customer)
    Cart.objects.filter(pk=cart.pk).update(updated_at=timezone.now())
    assert run(django_capture_on_commit_callbacks) == 0  # active again: not abandoned
    Cart.objects.filter(pk=cart.pk).update(
        updated_at=timezone.now() - timedelta(hours=4, minutes=1)
    )
    assert run(django_capture_on_commit_callbacks) == 1
    assert len(mail.outbox) == 2


def test_fresh_empty_or_anonymous_carts_get_nothing(customer, django_capture_on_commit_callbacks):
    guest = APIClient()
    add(guest, make_product(title="Chair").pk)
    idle(Cart.objects.get(user__isnull=True))  # no address known
    Cart.objects.create(
        token="e" * 43, user=customer, updated_at=timezone.now() - timedelta(days=1)
    )
    assert run(django_capture_on_commit_callbacks) == 0
    assert mail.outbox == []


def test_bad_and_expired_links_are_refused(
    abandoned, anon, time_machine, django_capture_on_commit_callbacks
):
    run(django_capture_on_commit_callbacks)
    path = link_path(mail.outbox[0])
    error(anon.get(path + "x"), 400, "invalid_token")
    error(anon.get(f"{BASE}/recover-cart/nonsense"), 400, "invalid_token")
    error(anon.get(f"{BASE}/recover-cart/" + "a" * 600), 400, "invalid_token")
    time_machine.move_to(timezone.now() + timedelta(hours=169))
    error(anon.get(path), 400, "token_expired")


def test_a_link_to_a_deleted_cart_is_gone(abandoned, anon, django_capture_on_commit_callbacks):
    run(django_capture_on_commit_callbacks)
    path = link_path(mail.outbox[0])
    Cart.objects.all().delete()
    error(anon.get(path), 410, "cart_gone")


def test_nothing_is_sent_while_the_module_is_off(
    settings, abandoned, django_capture_on_commit_callbacks
):
    modules_off(settings, "recover_cart")
    assert run(django_capture_on_commit_callbacks) == 0
    assert mail.outbox == []


def test_a_guest_cart_with_a_checkout_address_is_mailed(django_capture_on_commit_callbacks):
    from tests.store.checkout.helpers import Shop, started

    guest = APIClient()
    started(guest, Shop(), email="guest@example.com")
    idle(Cart.objects.get())
    assert run(django_capture_on_commit_callbacks) == 1
    assert mail.outbox[0].to == ["guest@example.com"]
    visitor = APIClient()
    assert visitor.get(link_path(mail.outbox[0])).json()["restored"] == 2
