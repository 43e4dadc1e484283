"""POST /checkout/{id}/complete: the order placed, stock and coupons, payment, e-mail."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.conf import settings
from django.core import mail
from django.utils import timezone

from store.cart.models import Cart, CartItem
from store.catalog.services import products as product_services
from store.checkout.models import Checkout
from store.coupons.models import Coupon, CouponUse
from store.customers.models import Customer
from store.inventory.models import StockMovement
from store.orders.models import Order, Payment
from store.payments.models import SandboxCharge
from store.settings import services as settings_services
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error
from tests.store.cart.helpers import add
from tests.store.checkout.helpers import (
    CARD,
    CHECKOUT,
    DECLINED,
    complete,
    start,
    started,
)
from tests.store.coupons.factories import make_coupon
from tests.store.customers.factories import CustomerFactory

pytestmark = pytest.mark.django_db

ANSWER_KEYS = {
    "checkout_id",
    "order_id",
    "order_number",
    "order_key",
    "order_received_url",
    "status",
    "payment_status",
    "total",
    "currency",
    "payment_method",
    "payment_method_title",
    "transaction_id",
    "instructions",
    "payment_due_at",
}


@pytest.fixture
def mails(django_capture_on_commit_callbacks):
    """Run a call with its on-commit callbacks (the e-mail task) and answer its response."""

    def run(call):
        with django_capture_on_commit_callbacks(execute=True):
            return call()

    return run


def test_a_card_payment_places_a_paid_order(anon, shop, mails):
    body = started(anon, shop, customer_note="Ring twice.")
    response = mails(lambda: complete(anon, body["id"]))
    assert response.status_code == 200, response.content
    answer = response.json()
    assert set(answer) == ANSWER_KEYS
    order = Order.objects.get()
    charge = SandboxCharge.objects.get()
    assert answer == {
        "checkout_id": body["id"],
        "order_id": order.pk,
        "order_number": order.order_number,
        "order_key": order.order_key,
        "order_received_url": f"{settings.FRONTEND_URL}{API}/order-received/{order.pk}"
        f"?key={order.order_key}",
        "status": "processing",
        "payment_status": "paid",
        "total": "65.72",
        "currency": "EUR",
        "payment_method": "sandbox_card",
        "payment_method_title": "Credit or debit card",
        "transaction_id": charge.transaction_id,
        "instructions": "",
        "payment_due_at": None,
    }
    assert order.order_number == f"EC-{order.pk:06d}"
    # The order: the cart's lines and totals, to the cent.
    assert (order.subtotal, order.shipping_total, order.shipping_tax, order.tax_total) == (
        Decimal("48.00"),
        Decimal("5.00"),
        Decimal("1.20"),
        Decimal("12.72"),
    )
    assert (order.total, order.amount_paid, order.source) == (
        Decimal("65.72"),
        Decimal("65.72"),
        "checkout",
    )
    lines = [(i.title, i.quantity, i.unit_price, i.tax, i.total) for i in order.items.all()]
    assert lines == [
        ("Lamp", 2, Decimal("20.00"), Decimal("9.60"), Decimal("49.60")),
        ("Mug", 1, Decimal("8.00"), Decimal("1.92"), Decimal("9.92")),
    ]
    assert order.billing_address["email"] == "ana@example.com"
    assert order.shipping_address["city"] == "Athens"
    assert (order.shipping_method, order.shipping_method_title) == (
        f"flat_rate:{shop.courier.pk}",
        "Courier",
    )
    assert order.customer_note == "Ring twice."
    assert order.customer.email == "ana@example.com"
    # The card payment.
    payment = Payment.objects.get()
    assert (payment.kind, payment.status, payment.amount, payment.method) == (
        "payment",
        "completed",
        Decimal("65.72"),
        "sandbox_card",
    )
    assert (payment.transaction_id, payment.note) == (charge.transaction_id, "visa ending 4242")
    assert (charge.amount, charge.reference, charge.last4, charge.status) == (
        Decimal("65.72"),
        order.order_number,
        "4242",
        "approved",
    )
    # The stock: the checkout's hold became the order's, in the ledger.
    assert shop.stock() == 3
    moves = list(
        StockMovement.objects.filter(product=shop.lamp, reference_type__in=["cart", "order"])
        .order_by("id")
        .values_list("reason", "quantity", "reference_type")
    )
    assert moves == [
        ("checkout_hold", -2, "cart"),
        ("checkout_hold_released", 2, "cart"),
        ("order_placed", -2, "order"),
    ]
    # The cart is emptied (it stays, for the session).
    cart = Cart.objects.get()
    assert (cart.items.count(), cart.applied_coupons.count(), cart.stock_held) == (0, 0, False)
    checkout = Checkout.objects.get()
    assert (checkout.status, checkout.order, checkout.payment_due_at) == ("completed", order, None)
    assert checkout.completed_at is not None
    # One e-mail to the shopper.
    assert [m.to for m in mail.outbox] == [["ana@example.com"]]
    message = mail.outbox[0]
    assert message.subject == f"Your Emporion Store order {order.order_number} is confirmed"
    assert "2 x Lamp (LAMP)" in message.body
    assert "Total: 65.72 EUR" in message.body
    # It links to the page a person reads (tests/store/test_pages.py follows the link).
    link = f"{settings.FRONTEND_URL}/order-received/{order.pk}?key={order.order_key}"
    assert link in message.body


def test_the_order_received_page_answers_with_the_key(anon, shop):
    body = started(anon, shop)
    answer = complete(anon, body["id"]).json()
    response = anon.get(answer["order_received_url"].removeprefix(settings.FRONTEND_URL))
    assert response.status_code == 200
    page = response.json()
    assert (page["order_number"], page["total"], page["payment_status"]) == (
        answer["order_number"],
        "65.72",
        "paid",
    )
    assert "order_key" not in page
    error(
        anon.get(f"{API}/order-received/{answer['order_id']}?key=wrong"), 403, "invalid_order_key"
    )


def test_completing_twice_answers_the_same_order(anon, shop, mails):
    body = started(anon, shop)
    first = mails(lambda: complete(anon, body["id"])).json()
    again = mails(lambda: complete(anon, body["id"], payment_data={}))
    assert again.status_code == 200, again.content
    assert again.json() == first
    assert Order.objects.count() == 1
    assert SandboxCharge.objects.count() == 1
    assert Payment.objects.count() == 1
    assert len(mail.outbox) == 1
    assert shop.stock() == 3


def test_coupons_are_counted_and_recorded_on_the_order(anon, shop):
    make_coupon("TEN", "percent", 10, usage_limit=5)
    add(anon, shop.lamp.pk, 2)
    anon.post(f"{API}/coupons/apply", {"code": "ten"}, format="json")
    checkout = start(anon).json()
    assert checkout["cart"]["total"] == "50.84"
    use = CouponUse.objects.get()
    assert (use.status, use.order_reference) == ("held", f"checkout:{checkout['id']}")
    assert complete(anon, checkout["id"]).status_code == 200
    order = Order.objects.get()
    assert (order.discount_total, order.total) == (Decimal("4.00"), Decimal("50.84"))
    assert order.coupon_lines == [{"code": "TEN", "discount": "4.00", "discount_tax": "0.96"}]
    use.refresh_from_db()
    assert use.status == "confirmed"
    assert Coupon.objects.get().usage_count == 1
    page = anon.get(f"{API}/order-received/{order.pk}?key={order.order_key}").json()
    assert page["coupons"] == [{"code": "TEN", "discount": "4.00", "discount_tax": "0.96"}]


def test_a_declined_card_keeps_the_order_for_another_try(anon, shop, mails):
    body = started(anon, shop)
    before = timezone.now()
    response = mails(lambda: complete(anon, body["id"], payment_data=DECLINED))
    payload = error(response, 402, "payment_declined")
    order = Order.objects.get()
    assert payload["message"].startswith(
        f"The card was declined (card_declined). Order {order.order_number} is kept until "
    )
    assert payload["data"]["params"] == {"payment_data": "card_declined: The card was declined."}
    assert (order.status, order.payment_status) == ("pending", "unpaid")
    failed = Payment.objects.get()
    assert (failed.status, failed.note) == ("failed", "visa ending 0002: card_declined")
    checkout = Checkout.objects.get()
    assert (checkout.status, checkout.payment_attempts) == ("awaiting_payment", 1)
    assert checkout.payment_error["code"] == "card_declined"
    assert before + timedelta(minutes=59) < checkout.payment_due_at
    assert checkout.payment_due_at <= timezone.now() + timedelta(minutes=60)
    assert shop.stock() == 3  # the order holds its stock meanwhile
    assert Cart.objects.get().items.count() == 0
    assert mail.outbox == []  # nothing to confirm yet
    read = anon.get(f"{CHECKOUT}/{body['id']}").json()
    assert read["status"] == "awaiting_payment"
    assert read["order"]["status"] == "pending"
    assert read["payment"]["last_error"]["code"] == "card_declined"
    # Another card: the same order is paid.
    response = mails(lambda: complete(anon, body["id"]))
    assert response.status_code == 200, response.content
    answer = response.json()
    assert (answer["order_id"], answer["status"], answer["payment_status"]) == (
        order.pk,
        "processing",
        "paid",
    )
    checkout.refresh_from_db()
    assert (checkout.status, checkout.payment_attempts, checkout.payment_due_at) == (
        "completed",
        2,
        None,
    )
    assert Order.objects.count() == 1
    assert list(Payment.objects.order_by("id").values_list("status", flat=True)) == [
        "failed",
        "completed",
    ]
    assert len(mail.outbox) == 1


def test_after_a_declined_card_the_shopper_may_pay_by_bank_transfer(anon, shop, mails):
    body = started(anon, shop)
    complete(anon, body["id"], payment_data=DECLINED)
    response = mails(lambda: complete(anon, body["id"], payment_method="bank_transfer"))
    assert response.status_code == 200, response.content
    answer = response.json()
    assert (answer["status"], answer["payment_status"], answer["payment_method"]) == (
        "on_hold",
        "unpaid",
        "bank_transfer",
    )
    assert answer["instructions"].endswith(
        f"Reference: {answer['order_number']}\nUnpaid orders are cancelled after 2 hours."
    )
    assert answer["payment_due_at"] is not None
    order = Order.objects.get()
    assert (order.payment_method, order.payment_method_title) == (
        "bank_transfer",
        "Direct bank transfer",
    )


def test_bank_transfer_leaves_the_order_on_hold_with_instructions(anon, shop, mails):
    settings_services.settings_update(
        section="payments",
        values={
            "bank_transfer_iban": "GR16 0110 1250 0000 0001 2300 695",
            "bank_transfer_bic": "X",
            "bank_transfer_hold_hours": 1,
        },
    )
    body = started(anon, shop, payment_method="bank_transfer")
    before = timezone.now()
    response = mails(lambda: complete(anon, body["id"], payment_data=None))
    assert response.status_code == 200, response.content
    answer = response.json()
    assert (answer["status"], answer["payment_status"], answer["transaction_id"]) == (
        "on_hold",
        "unpaid",
        None,
    )
    assert answer["instructions"] == (
        "IBAN: GR16 0110 1250 0000 0001 2300 695\nBIC: X\n"
        f"Reference: {answer['order_number']}\nUnpaid orders are cancelled after 1 hour."
    )
    checkout = Checkout.objects.get()
    assert checkout.status == "completed"
    # held payments.bank_transfer_hold_hours, shorter here than the checkout's 2 hours
    assert before + timedelta(hours=1) <= checkout.payment_due_at
    assert checkout.payment_due_at <= timezone.now() + timedelta(hours=1)
    assert not SandboxCharge.objects.exists()
    assert not Payment.objects.exists()
    message = mail.outbox[0]
    assert message.subject == f"We have received your Emporion Store order {answer['order_number']}"
    assert "IBAN: GR16 0110 1250 0000 0001 2300 695" in message.body
    assert "Please pay by" in message.body


def test_cash_on_delivery_sends_the_order_to_processing_unpaid(anon, shop, mails):
    body = started(anon, shop, payment_method="cash_on_delivery")
    answer = mails(lambda: complete(anon, body["id"], payment_data=None)).json()
    assert (answer["status"], answer["payment_status"], answer["payment_due_at"]) == (
        "processing",
        "unpaid",
        None,
    )
    assert answer["instructions"] == "Pay in cash when the order is delivered."
    assert Checkout.objects.get().payment_due_at is None


def test_a_free_order_needs_no_payment_method(anon, shop):
    make_coupon("ALL", "percent", 100, free_shipping=True)
    add(anon, shop.lamp.pk, 1)
    anon.post(f"{API}/coupons/apply", {"code": "ALL"}, format="json")
    checkout = start(anon, payment_method="").json()
    assert (checkout["needs_payment"], checkout["cart"]["total"]) == (False, "0.00")
    answer = anon.post(f"{CHECKOUT}/{checkout['id']}/complete", {}, format="json").json()
    assert (answer["status"], answer["total"], answer["payment_method"]) == (
        "processing",
        "0.00",
        "",
    )


def test_card_data_is_checked_before_anything_is_placed(anon, shop):
    body = started(anon, shop)
    payload = error(
        complete(anon, body["id"], payment_data={"card_number": "4242 4242 4242 4241"}),
        400,
        "invalid_param",
    )
    assert set(payload["data"]["params"]) == {
        "payment_data.card_number",
        "payment_data.exp_month",
        "payment_data.exp_year",
        "payment_data.cvc",
    }
    error(complete(anon, body["id"], payment_data=None), 400, "invalid_param")
    payload = error(complete(anon, body["id"], payment_data={**CARD, "cvc": "12"}), 400)
    assert list(payload["data"]["params"]) == ["payment_data.cvc"]
    assert not Order.objects.exists()
    assert Checkout.objects.get().status == "open"
    assert shop.stock() == 3
    assert Cart.objects.get().items.count() == 2


def test_an_expired_card_is_declined(anon, shop):
    body = started(anon, shop)
    last_year = timezone.now().year - 1
    payload = error(
        complete(anon, body["id"], payment_data={**CARD, "exp_year": last_year}),
        402,
        "payment_declined",
    )
    assert "(expired_card)" in payload["message"]


def test_an_incomplete_checkout_is_refused_naming_each_field(anon, shop):
    add(anon, shop.lamp.pk, 1)
    checkout = anon.post(CHECKOUT, {"payment_method": "sandbox_card"}, format="json").json()
    payload = error(complete(anon, checkout["id"]), 400, "checkout_incomplete")
    assert "email" in payload["data"]["params"]
    assert "billing_address.city" in payload["data"]["params"]
    assert not Order.objects.exists()
    assert not SandboxCharge.objects.exists()


def test_the_expected_total_guards_against_a_price_change(anon, shop):
    body = started(anon, shop)
    product_services.product_update(product_id=shop.mug.pk, fields={"regular_price": "9.00"})
    payload = error(complete(anon, body["id"], expected_total="65.72"), 409, "total_changed")
    assert payload["message"].startswith("The total is now 66.96 (you expected 65.72)")
    assert not Order.objects.exists()
    assert complete(anon, body["id"], expected_total="66.96").status_code == 200


def test_a_cart_that_changed_while_pricing_is_refused(anon, shop):
    body = started(anon, shop)
    product_services.product_update(product_id=shop.mug.pk, fields={"status": "archived"})
    payload = error(complete(anon, body["id"]), 409, "cart_changed")
    assert "Mug was removed from your cart" in payload["message"]
    assert not Order.objects.exists()
    assert CartItem.objects.count() == 1  # removed, as reading the cart would
    assert complete(anon, body["id"]).status_code == 200
    assert [item.title for item in Order.objects.get().items.all()] == ["Lamp"]


def test_stock_that_ran_out_meanwhile_refuses_with_nothing_placed(anon, shop):
    from store.checkout.services import expiry

    body = started(anon, shop, lamps=2)
    expiry.checkout_hold_expire(checkout_id=body["id"], force=True)
    product_services.product_update(product_id=shop.lamp.pk, fields={"stock_quantity": 1})
    payload = error(complete(anon, body["id"]), 409, "insufficient_stock")
    assert "Lamp: 1 available, 2 wanted" in payload["message"]
    assert not Order.objects.exists()
    assert Checkout.objects.get().status == "expired"
    assert shop.stock() == 1


def test_prices_entered_with_tax_give_an_order_of_the_same_total(anon, shop):
    settings_services.settings_update(section="tax", values={"prices_include_tax": True})
    product_services.product_update(product_id=shop.mug.pk, fields={"regular_price": "9.99"})
    make_coupon("THREE", "fixed_cart", 3)
    body = started(anon, shop, lamps=0, mugs=3)
    anon.post(f"{API}/coupons/apply", {"code": "THREE"}, format="json")
    cart = anon.patch(f"{CHECKOUT}/{body['id']}", {}, format="json").json()["cart"]
    answer = complete(anon, body["id"]).json()
    order = Order.objects.get()
    assert answer["total"] == cart["total"]
    assert (str(order.subtotal), str(order.discount_total), str(order.tax_total)) == (
        cart["subtotal"],
        cart["discount"],
        cart["tax"],
    )
    assert order.subtotal - order.discount_total + order.shipping_total + order.tax_total == (
        order.total
    )


def test_a_logged_in_customers_order_is_theirs(store_client, customer, shop):
    client = store_client(customer)
    body = started(client, shop, email="shopper@example.com")
    answer = complete(client, body["id"]).json()
    order = Order.objects.get()
    assert order.customer.user == customer
    mine = client.get(f"{API}/account/orders").json()
    assert [entry["id"] for entry in mine["orders"]] == [answer["order_id"]]


def test_an_unverified_account_does_not_take_over_a_guest_history(store_client, shop):
    guest = CustomerFactory(email="kim@example.com")
    user = UserFactory(email="kim@example.com", email_verified=False)
    client = store_client(user)
    body = started(client, shop, email="kim@example.com")
    assert complete(client, body["id"]).status_code == 200
    order = Order.objects.get()
    assert order.customer == guest
    guest.refresh_from_db()
    assert guest.user is None
    assert client.get(f"{API}/account/orders").json()["orders"] == []
    assert Customer.objects.count() == 1


def test_the_store_is_told_of_new_orders(anon, shop, mails):
    settings_services.settings_update(section="general", values={"store_email": "shop@example.com"})
    body = started(anon, shop, payment_method="cash_on_delivery")
    answer = mails(lambda: complete(anon, body["id"], payment_data=None)).json()
    assert [m.to for m in mail.outbox] == [["ana@example.com"], ["shop@example.com"]]
    assert mail.outbox[1].subject == f"New order {answer['order_number']}: 65.72 EUR"


def test_completion_is_rate_limited(anon, shop, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "checkout_complete": "2/min",
        },
    }
    body = started(anon, shop)
    error(complete(anon, body["id"], payment_data=None), 400)
    assert complete(anon, body["id"]).status_code == 200
    response = complete(anon, body["id"])
    error(response, 429, "throttled")
    assert int(response["Retry-After"]) >= 1
    assert anon.get(f"{CHECKOUT}/{body['id']}").status_code == 200  # reading is not limited


def test_the_order_received_lookup_is_rate_limited(anon, shop, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "order_received": "3/min",
        },
    }
    answer = complete(anon, started(anon, shop)["id"]).json()
    path = f"{API}/order-received/{answer['order_id']}"
    assert anon.get(f"{path}?key={answer['order_key']}").status_code == 200
    error(anon.get(f"{path}?key=guess-1"), 403, "invalid_order_key")
    error(anon.get(f"{path}?key=guess-2"), 403, "invalid_order_key")
    response = anon.get(f"{path}?key={answer['order_key']}")
    error(response, 429, "throttled")
    assert int(response["Retry-After"]) >= 1


def test_a_completed_checkout_whose_order_was_deleted(anon, shop):
    from store.orders import services as order_services

    body = started(anon, shop)
    order_id = complete(anon, body["id"]).json()["order_id"]
    order_services.order_delete(order_id=order_id)
    error(complete(anon, body["id"]), 409, "checkout_order_deleted")
    read = anon.get(f"{CHECKOUT}/{body['id']}").json()
    assert (read["status"], read["order"]) == ("completed", None)
