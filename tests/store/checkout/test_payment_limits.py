"""The payment gateways' country and total limits at the checkout: choosing a method (POST,
PATCH, PUT /checkout, complete) refuses one the lists leave out, by the same rule."""

import pytest
from django.test import Client

from store.checkout.models import Checkout
from store.orders.models import Order
from store.settings import services as settings_services
from tests.fixtures.store import API, error
from tests.store.cart.helpers import add
from tests.store.checkout.helpers import ADDRESS, CHECKOUT, DECLINED, complete, start, started

pytestmark = pytest.mark.django_db

# The shop's cart of 2 lamps and a mug, shipped to Greece: 65.72.


def limit(**values) -> None:
    settings_services.settings_update(section="payments", values=values)


def offered(client) -> tuple[list[str], list[str]]:
    """The ids of /checkout/payment-methods and of /payment/methods for the client's cart."""
    checkout = client.get(f"{CHECKOUT}/payment-methods").json()["payment_methods"]
    payment = client.get(f"{API}/payment/methods").json()["payment_methods"]
    return [m["id"] for m in checkout], [m["id"] for m in payment]


def test_a_method_not_offered_in_the_carts_country_is_refused_at_start(anon, shop):
    limit(sandbox_card_countries=["DE", "AT"])
    add(anon, shop.lamp.pk, 2)
    add(anon, shop.mug.pk, 1)
    start(anon, payment_method="cash_on_delivery")  # the cart now ships to GR
    ids, same = offered(anon)
    assert "sandbox_card" not in ids
    assert ids == same
    Checkout.objects.all().delete()
    body = error(start(anon), 400, "payment_method_unavailable")
    assert "not offered in GR" in body["message"]
    assert "DE, AT" in body["message"]
    assert not Checkout.objects.exists()  # nothing kept


@pytest.mark.parametrize(
    ("values", "why"),
    [
        ({"sandbox_card_max_total": "50.00"}, "up to a total of 50.00 (this one is 65.72)"),
        ({"sandbox_card_min_total": "100.00"}, "from a total of 100.00 (this one is 65.72)"),
    ],
)
def test_a_method_outside_its_totals_is_refused_at_start(anon, shop, values, why):
    limit(**values)
    add(anon, shop.lamp.pk, 2)
    add(anon, shop.mug.pk, 1)
    body = error(start(anon), 400, "payment_method_unavailable")
    assert why in body["message"]
    assert "offered: bank_transfer, cash_on_delivery" in body["message"]
    assert not Checkout.objects.exists()


def test_the_address_sent_with_the_method_is_the_one_checked(anon, shop):
    """A method offered only in Cyprus is accepted with a Cypriot address in the same body."""
    from tests.store.shipping.factories import make_method, make_zone

    make_method(make_zone("Cyprus", countries=["CY"]), "flat_rate", "CY post", cost="9.00")
    limit(cash_on_delivery_countries=["CY"])
    body = started(anon, shop)
    cyprus = {**ADDRESS, "region": "", "city": "Nicosia", "postcode": "1010", "country": "CY"}
    url = f"{CHECKOUT}/{body['id']}"
    error(
        anon.patch(url, {"payment_method": "cash_on_delivery"}, format="json"),
        400,
        "payment_method_unavailable",
    )
    response = anon.patch(
        url, {"payment_method": "cash_on_delivery", "shipping_address": cyprus}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["payment_method"] == "cash_on_delivery"


@pytest.mark.parametrize("method", ["patch", "put"])
def test_a_method_outside_its_limits_is_refused_on_update(anon, shop, method):
    body = started(anon, shop)
    limit(bank_transfer_max_total="20.00")
    response = getattr(anon, method)(
        f"{CHECKOUT}/{body['id']}",
        {"payment_method": "bank_transfer", "customer_note": "Not kept."},
        format="json",
    )
    answer = error(response, 400, "payment_method_unavailable")
    assert "up to a total of 20.00" in answer["message"]
    checkout = Checkout.objects.get()
    assert (checkout.payment_method, checkout.customer_note) == ("sandbox_card", "")


def test_the_limits_are_checked_again_at_complete(anon, shop):
    """The cart grew past the method's maximum after it was chosen."""
    limit(sandbox_card_max_total="70.00")
    body = started(anon, shop)
    assert add(anon, shop.mug.pk, 1).status_code == 200  # 65.72 + 9.92
    validation = anon.post(f"{CHECKOUT}/{body['id']}/validate").json()
    assert [p["code"] for p in validation["problems"]] == ["payment_method_unavailable"]
    answer = error(complete(anon, body["id"]), 400, "payment_method_unavailable")
    assert "up to a total of 70.00 (this one is 75.64)" in answer["message"]
    assert not Order.objects.exists()
    # A method the cart qualifies for, sent with complete, places the order.
    response = complete(anon, body["id"], payment_method="cash_on_delivery")
    assert response.status_code == 200, response.content
    assert Order.objects.get().payment_method == "cash_on_delivery"


def test_a_method_sent_with_complete_is_checked(anon, shop):
    body = started(anon, shop)
    limit(bank_transfer_countries=["FR"])
    error(
        complete(anon, body["id"], payment_method="bank_transfer"),
        400,
        "payment_method_unavailable",
    )
    assert not Order.objects.exists()


def test_switching_a_placed_order_to_a_method_outside_its_limits_is_refused(anon, shop):
    body = started(anon, shop)
    assert complete(anon, body["id"], payment_data=DECLINED).status_code == 402
    limit(bank_transfer_min_total="100.00")
    answer = error(
        complete(anon, body["id"], payment_method="bank_transfer"),
        400,
        "payment_method_unavailable",
    )
    assert "from a total of 100.00 (this one is 65.72)" in answer["message"]
    order = Order.objects.get()
    assert (order.payment_method, order.status) == ("sandbox_card", "pending")


def test_a_free_cart_needs_no_method_whatever_the_limits(anon, shop):
    from tests.store.coupons.factories import make_coupon

    make_coupon("ALL", "percent", 100, free_shipping=True)
    limit(sandbox_card_min_total="10.00")
    add(anon, shop.lamp.pk, 1)
    anon.post(f"{API}/coupons/apply", {"code": "ALL"}, format="json")
    response = start(anon)
    assert response.status_code == 201, response.content


def test_a_refusal_is_json_with_csrf_checks(shop):
    limit(sandbox_card_countries=["DE"])
    browser = Client(enforce_csrf_checks=True)
    browser.post(f"{API}/cart/items", {"product_id": shop.lamp.pk}, content_type="application/json")
    response = browser.post(
        CHECKOUT,
        {"email": "a@example.com", "billing_address": ADDRESS, "payment_method": "sandbox_card"},
        content_type="application/json",
    )
    assert response["Content-Type"].startswith("application/json")
    assert response.status_code in (400, 403)
