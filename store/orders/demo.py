"""Demo orders for `manage.py seed_demo`, in several statuses (idempotent: made once).

They go through the services like real orders, so the stock, the payments, the shipments and
the history are what the API would make. The demo developer account is a customer; its
orders show under /account/orders.
"""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth import get_user_model

from store.catalog.models import Product, Variant
from store.customers import services as customer_services
from store.customers.models import Customer
from store.orders import services
from store.orders.choices import OrderSource
from store.orders.models import Order

GUEST = "guest.shopper@example.com"
ADDRESS = {
    "first_name": "Dev",
    "last_name": "Eloper",
    "address_1": "Ermou 12",
    "city": "Athens",
    "postcode": "10563",
    "country": "GR",
    "email": "developer@example.com",
    "phone": "+30 210 000 0000",
}
GUEST_ADDRESS = {
    "first_name": "Gia",
    "last_name": "Guest",
    "address_1": "Tsimiski 40",
    "city": "Thessaloniki",
    "postcode": "54623",
    "country": "GR",
    "email": GUEST,
}


def _line(sku: str, quantity: int) -> dict:
    variant = Variant.objects.filter(sku=sku).first()
    if variant is not None:
        return {"product_id": variant.product_id, "variant_id": variant.pk, "quantity": quantity}
    return {"product_id": Product.objects.get(sku=sku).pk, "quantity": quantity}


def _order(customer, address, lines, **fields):
    return services.order_create(
        items=lines,
        customer=customer,
        billing_address=address,
        shipping_address=address,
        payment_method=fields.pop("payment_method", "card"),
        payment_method_title=fields.pop("payment_method_title", "Credit card"),
        shipping_method="courier",
        shipping_method_title="Courier (2-3 days)",
        shipping_total=Decimal("4.50"),
        source=OrderSource.SYSTEM,
        **fields,
    )


def _pay(order, *, refund: bool = False) -> None:
    services.payment_create(
        order_id=order.pk,
        fields={"amount": order.total, "transaction_id": f"demo-{order.pk}"},
        source=OrderSource.SYSTEM,
    )
    if refund:
        services.payment_create(
            order_id=order.pk,
            fields={"amount": order.total, "kind": "refund", "note": "Changed their mind."},
            source=OrderSource.SYSTEM,
        )


def _move(order, *statuses: str) -> None:
    for status in statuses:
        services.order_status_set(order_id=order.pk, status=status, source=OrderSource.SYSTEM)


def seed() -> list[str]:
    developer = get_user_model().objects.filter(email="developer@example.com").first()
    if not Order.objects.filter(customer__email__in=[GUEST, "developer@example.com"]).exists():
        me = (
            customer_services.customer_for_user(user=developer)
            if developer is not None
            else customer_services.customer_for_email(email="developer@example.com")
        )
        guest = Customer.objects.filter(email=GUEST).first() or customer_services.customer_create(
            fields={"email": GUEST, "first_name": "Gia", "last_name": "Guest"}
        )
        _order(me, ADDRESS, [_line("TOTE-1", 1)], customer_note="Gift wrap, please.")

        paid = _order(me, ADDRESS, [_line("CAP-1", 2), _line("TEE-RED-M", 1)])
        _pay(paid)
        _move(paid, "processing")

        shipped = _order(guest, GUEST_ADDRESS, [_line("HOOD-BLACK-L", 1)])
        _pay(shipped)
        _move(shipped, "processing")
        services.shipment_create(
            order_id=shipped.pk,
            fields={"carrier": "ACS", "tracking_number": "ACS123456789GR"},
            source=OrderSource.SYSTEM,
        )
        _move(shipped, "shipped")

        done = _order(me, ADDRESS, [_line("TOTE-1", 2)])
        _pay(done)
        _move(done, "processing")
        services.shipment_create(
            order_id=done.pk,
            fields={"carrier": "ELTA", "tracking_number": "EL987654321GR", "status": "delivered"},
            source=OrderSource.SYSTEM,
        )
        _move(done, "completed")

        cancelled = _order(guest, GUEST_ADDRESS, [_line("CAP-1", 1)])
        _move(cancelled, "cancelled")

        refunded = _order(guest, GUEST_ADDRESS, [_line("TOTE-1", 1)])
        _pay(refunded, refund=True)
        _move(refunded, "processing", "refunded")

        _order(
            me,
            ADDRESS,
            [_line("TEE-BLUE-S", 2)],
            status="on_hold",
            payment_method="bank_transfer",
            payment_method_title="Bank transfer",
        )
    orders = Order.objects.filter(source=OrderSource.SYSTEM).select_related("customer")
    return [
        f"  {order.order_number:<10} {order.status:<11} {order.payment_status:<19} "
        f"{order.total:>8} {order.currency}  {order.customer.email if order.customer else ''}"
        for order in orders.order_by("pk")
    ]
