"""The order-received page a person reads, reached from the link in the order e-mail."""

import re

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client

from store.orders.models import Order
from store.settings import services as settings_services
from tests.accounts.factories import UserFactory
from tests.store.checkout.helpers import Shop, complete, started

pytestmark = pytest.mark.django_db


@pytest.fixture
def shop(db):
    return Shop()


@pytest.fixture
def ordered(anon, shop, django_capture_on_commit_callbacks):
    """Check out and pay; answers the link the confirmation e-mail carries."""

    def run(**overrides) -> str:
        body = started(anon, shop, **overrides)
        with django_capture_on_commit_callbacks(execute=True):
            payment = {"payment_data": None} if "payment_method" in overrides else {}
            assert complete(anon, body["id"], **payment).status_code == 200
        [message] = [m for m in mail.outbox if m.to == ["ana@example.com"]]
        return re.search(r"^Your order, at any time: (\S+)$", message.body, re.MULTILINE)[1]

    return run


def path_of(link: str) -> str:
    assert link.startswith(f"{settings.FRONTEND_URL}/")
    return link.removeprefix(settings.FRONTEND_URL)


def test_the_order_email_links_to_a_page_a_person_reads(ordered):
    link = ordered(customer_note="Ring twice.")
    response = Client().get(path_of(link))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "no-store" in response["Cache-Control"]
    order = Order.objects.get()
    page = response.content.decode()
    assert f"<h1>Order {order.order_number}</h1>" in page
    assert "Thank you: your payment was received." in page
    assert "<strong>Processing</strong>" in page
    assert "Lamp" in page
    assert "(LAMP)" in page
    assert '<strong id="total">65.72 EUR</strong>' in page
    assert "Ermou 12" in page
    assert "Ring twice." in page
    assert order.order_key in link


def test_an_unpaid_bank_transfer_shows_what_to_pay_and_how(ordered):
    settings_services.settings_update(
        section="payments", values={"bank_transfer_iban": "GR16 0110 1250 0000 0001 2300 695"}
    )
    link = ordered(payment_method="bank_transfer")
    page = Client().get(path_of(link)).content.decode()
    assert "Thank you: we have received your order." in page
    assert "IBAN: GR16 0110 1250 0000 0001 2300 695" in page
    assert f"Reference: {Order.objects.get().order_number}" in page


def test_without_the_key_the_page_tells_nothing(ordered):
    link = ordered()
    order = Order.objects.get()
    wrong = Client().get(f"/order-received/{order.pk}?key=ec_order_wrong")
    missing = Client().get(f"/order-received/{order.pk + 100}?key={order.order_key}")
    no_key = Client().get(f"/order-received/{order.pk}")
    for response in (wrong, missing, no_key):
        assert response.status_code == 403
        assert order.order_number not in response.content.decode()
    assert wrong.content == missing.content == no_key.content
    assert Client().get(path_of(link)).status_code == 200


def test_the_customer_logged_in_reads_it_without_the_key(ordered, customer):
    ordered()
    order = Order.objects.get()
    order.customer.user = customer
    order.customer.save(update_fields=["user"])
    client = Client()
    client.force_login(customer)
    assert client.get(f"/order-received/{order.pk}").status_code == 200
    someone_else = Client()
    someone_else.force_login(UserFactory())
    assert someone_else.get(f"/order-received/{order.pk}").status_code == 403


def test_a_storefront_page_in_the_settings_is_the_e_mail_link(ordered):
    settings_services.settings_update(
        section="checkout",
        values={"order_received_page": "https://shop.example.com/thanks/{order_id}?k={key}"},
    )
    link = ordered()
    order = Order.objects.get()
    assert link == f"https://shop.example.com/thanks/{order.pk}?k={order.order_key}"


def test_the_page_is_rate_limited_as_the_api(ordered, settings):
    link = ordered()
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "order_received": "2/min",
        },
    }
    client = Client()
    assert [client.get(path_of(link)).status_code for _ in range(2)] == [200, 200]
    response = client.get(path_of(link))
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    assert "Too many attempts" in response.content.decode()
