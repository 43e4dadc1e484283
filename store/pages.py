"""The order-received page a shopper reads: `/order-received/{id}?key=<order key>`.

The order e-mail links here (unless the store's `checkout.order_received_page` names the
storefront's own page). The same rule as `GET /rest/ec/v1/order-received/{id}` decides who may
read it (the order's key, or the logged-in account the order belongs to), under the same rate
limit; anyone else gets one answer whether or not the order exists, so ids cannot be probed.

A shopper's page reads several sub-apps (the order, its payment method's instructions, the
store's name), so it sits at the store's level, beside store/urls.py, not inside one of them.
"""

from __future__ import annotations

from django.views import View

from common.pages import page, too_many, wait_for
from store.orders import selectors
from store.orders.choices import PaymentStatus
from store.payments.gateways import GATEWAYS
from store.settings import selectors as store_settings

TEMPLATE = "store/order_received.html"
ADDRESS_LINES = (
    ("first_name", "last_name"),
    ("company",),
    ("address_1",),
    ("address_2",),
    ("postcode", "city"),
    ("state", "country"),
    ("email",),
    ("phone",),
)


def address_lines(address: dict) -> list[str]:
    lines = []
    for names in ADDRESS_LINES:
        line = " ".join(str(address.get(name) or "").strip() for name in names).strip()
        if line:
            lines.append(line)
    return lines


class OrderReceivedPage(View):
    def get(self, request, order_id: int):
        store_name = store_settings.get_value("general", "store_name")
        context = {"store_name": store_name}
        wait = wait_for(request, "order_received")
        if wait:
            return too_many(request, TEMPLATE, context, wait)
        order = selectors.order_received(order_id)
        user = request.user
        owner = (
            order is not None
            and user.is_authenticated
            and order.customer is not None
            and order.customer.user_id == user.pk
        )
        if order is None or not (owner or selectors.key_matches(order, request.GET.get("key"))):
            context["error"] = (
                "This order can be read with the link from its confirmation e-mail, or by its "
                "customer when logged in."
            )
            return page(request, TEMPLATE, context, status=403)
        gateway = GATEWAYS.get(order.payment_method)
        paid = order.payment_status == PaymentStatus.PAID
        instructions = ""
        if gateway is not None and not paid:
            instructions = gateway.instructions(
                store_settings.get_all(), order_number=order.order_number or ""
            )
        context |= {
            "order": order,
            "items": list(order.items.all()),
            "shipments": list(order.shipments.all()),
            "paid": paid,
            "instructions": instructions,
            "billing": address_lines(order.billing_address),
            "shipping": address_lines(order.shipping_address),
        }
        return page(request, TEMPLATE, context)
