"""A guest's checkout through the Store API from a page of the site (its cookies, its Origin),
then the order-received link of the confirmation e-mail opened as the shopper would."""

import re

from django.core import mail

from store.orders.models import Order
from tests.fixtures.store import API
from tests.fixtures.waiting import wait_until
from tests.store.checkout.helpers import CARD, Shop, details


def test_a_guest_checkout_then_the_order_received_link(browser):
    shop = Shop()
    browser.open("/")  # the storefront's page, whose scripts call the Store API

    def call(path: str, body: dict, status: int = 200) -> dict:
        answer = browser.fetch("POST", f"{API}{path}", body)
        assert answer["status"] == status, (path, answer)
        return answer["json"]

    call("/cart/items", {"product_id": shop.lamp.pk, "quantity": 2})  # the cart's cookie
    checkout = call("/checkout", details(email="ana@example.com"), status=201)
    done = call(f"/checkout/{checkout['id']}/complete", {"payment_data": CARD})
    assert (done["status"], done["payment_status"]) == ("processing", "paid")

    wait_until(
        lambda: any(message.to == ["ana@example.com"] for message in mail.outbox),
        timeout=10,
        what="the order's e-mail to the shopper",
        details=lambda: str([message.to for message in mail.outbox]),
    )
    body = next(message.body for message in mail.outbox if message.to == ["ana@example.com"])
    link = re.search(r"(https?://\S+/order-received/\d+\?key=\S+)", body)[1]
    assert link == (f"{browser.base_url}/order-received/{done['order_id']}?key={done['order_key']}")

    browser.open(link)
    browser.wait_for("h1", text=f"Order {done['order_number']}")
    assert "Thank you: your payment was received." in browser.text("#result")
    assert browser.text("#total") == f"{done['total']} EUR"
    assert "Lamp (LAMP)" in browser.text("table")
    answer = browser.page_answer(f"/order-received/{done['order_id']}")
    assert (answer.status, answer.headers.get("referrer-policy")) == (200, "same-origin")

    # Without the key (another visitor, no account): refused, saying how it can be read.
    browser.open(f"/order-received/{done['order_id']}")
    browser.wait_for("#result", text="with the link from its confirmation e-mail")
    assert f"Order {done['order_number']}" not in browser.text()
    assert Order.objects.get(pk=done["order_id"]).customer.email == "ana@example.com"
