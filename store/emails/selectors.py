"""Reading e-mail templates, settings and the log; the data each type's templates render."""

from __future__ import annotations

from email.utils import formataddr, parseaddr

from django.conf import settings
from django.urls import reverse

from common.compiled import CompiledQuery
from common.links import absolute_url
from store.common.errors import not_found
from store.common.money import money_str
from store.emails import types
from store.emails.models import EmailTemplate
from store.emails.types import EmailType
from store.orders import selectors as order_selectors
from store.orders.choices import OrderStatus, PaymentStatus
from store.orders.models import Order
from store.orders.selectors import order_received_url
from store.payments.gateways import GATEWAYS
from store.settings import selectors as store_settings

ADDRESS_KEYS = (
    "first_name",
    "last_name",
    "company",
    "address_1",
    "address_2",
    "city",
    "state",
    "postcode",
    "country",
    "email",
    "phone",
)


def email_type_get(slug: str) -> EmailType:
    email_type = types.get(slug)
    if email_type is None:
        raise not_found("email_type", slug)
    return email_type


# --- Settings -----------------------------------------------------------------------------------


def email_settings(config: dict | None = None) -> dict:
    """The sender and the types that are on, as the /emails/settings route answers them."""
    config = config or store_settings.get_all()
    section = config["emails"]
    disabled = set(section["disabled_types"])
    return {
        "sender_name": section["sender_name"],
        "sender_address": section["sender_address"],
        "from": sender(config),
        "enabled_types": [slug for slug in types.SLUGS if slug not in disabled],
        "disabled_types": [slug for slug in types.SLUGS if slug in disabled],
    }


def is_enabled(email_type: EmailType, config: dict | None = None) -> bool:
    if not email_type.can_disable:
        return True
    config = config or store_settings.get_all()
    return email_type.slug not in config["emails"]["disabled_types"]


def sender(config: dict | None = None) -> str:
    """The From header: the settings' name and address, else the store's name and the
    server's DEFAULT_FROM_EMAIL address."""
    config = config or store_settings.get_all()
    section = config["emails"]
    name = section["sender_name"] or config["general"]["store_name"]
    address = section["sender_address"] or parseaddr(settings.DEFAULT_FROM_EMAIL)[1]
    return formataddr((name, address))


# --- Templates ----------------------------------------------------------------------------------


def templates_by_type() -> dict[str, EmailTemplate]:
    return {row.type: row for row in EmailTemplate.objects.select_related("updated_by")}


# Read for every e-mail sent: compiled once per connection (common.compiled).
_TEMPLATE = CompiledQuery(
    lambda slug: EmailTemplate.objects.select_related("updated_by").filter(type=slug),
    ("a",),
    ("b",),
)


def template_row(slug: str) -> EmailTemplate | None:
    found: list[EmailTemplate] = _TEMPLATE.instances(slug)
    return found[0] if found else None


def sources(email_type: EmailType, row: EmailTemplate | None) -> dict[str, str]:
    """The template of each part in use: the customised one, else the default."""
    return {
        part: (getattr(row, part) if row is not None else "") or email_type.default(part)
        for part in types.PARTS
    }


def customised_parts(row: EmailTemplate | None) -> dict[str, bool]:
    return {part: bool(row is not None and getattr(row, part)) for part in types.PARTS}


# --- Data for the templates -------------------------------------------------------------------


def store_data(config: dict) -> dict:
    general = config["general"]
    return {"name": general["store_name"], "email": general["store_email"]}


def _address(value) -> dict:
    value = value if isinstance(value, dict) else {}
    return {key: str(value.get(key) or "") for key in ADDRESS_KEYS}


def _when(value) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else ""


def order_for_email(order_id: int) -> Order:
    """The order with its customer and lines; 404 order_not_found."""
    return order_selectors.order_with_lines(order_id)


def admin_url(order: Order) -> str:
    """The order's page in the admin (the store's notice links there)."""
    return absolute_url(reverse("admin:store_orders_order_change", args=[order.pk]))


def recipient_of(order: Order) -> str:
    """Where an order's customer e-mails go: the billing address's e-mail, else the
    customer's."""
    email = (order.billing_address or {}).get("email") or ""
    if not email and order.customer is not None:
        email = order.customer.email
    return str(email)


def order_context(order: Order, *, config: dict, payment_due_at=None) -> dict:
    """Everything an order e-mail may show, as plain data (types.ORDER_VARIABLES). Links
    start with FRONTEND_URL (common.links: this site's public address), whichever request,
    task or command sends the e-mail."""
    billing = _address(order.billing_address)
    customer = order.customer
    gateway = GATEWAYS.get(order.payment_method)
    paid = order.payment_status == PaymentStatus.PAID
    instructions = ""
    if (
        gateway is not None
        and not paid
        and order.status
        not in (
            OrderStatus.CANCELLED,
            OrderStatus.REFUNDED,
            OrderStatus.FAILED,
        )
    ):
        instructions = gateway.instructions(config, order_number=order.order_number or "")
    currency = order.currency
    return {
        "store": store_data(config),
        "order": {
            "id": order.pk,
            "number": order.order_number or "",
            "status": order.status,
            "status_label": str(OrderStatus(order.status).label),
            "payment_status": order.payment_status,
            "date": _when(order.created_at),
            "currency": currency,
            "subtotal": money_str(order.subtotal),
            "discount_total": money_str(order.discount_total),
            "shipping_total": money_str(order.shipping_total),
            "tax_total": money_str(order.tax_total),
            "total": money_str(order.total),
            "amount_refunded": money_str(order.amount_refunded),
            "payment_method_title": order.payment_method_title,
            "shipping_method_title": order.shipping_method_title,
            "customer_note": order.customer_note,
            "url": order_received_url(order, config=config, for_person=True),
            "admin_url": admin_url(order),
            "billing_address": billing,
            "shipping_address": _address(order.shipping_address),
            "items": [
                {
                    "title": item.title,
                    "sku": item.sku,
                    "quantity": item.quantity,
                    "price": money_str(item.unit_price),
                    "subtotal": money_str(item.subtotal),
                    "total": money_str(item.total),
                }
                for item in order.items.all()
            ],
            "coupons": [
                {"code": str(line.get("code", "")), "discount": str(line.get("discount", ""))}
                for line in (order.coupon_lines or [])
                if isinstance(line, dict)
            ],
        },
        "customer": {
            "first_name": billing["first_name"] or (customer.first_name if customer else ""),
            "last_name": billing["last_name"] or (customer.last_name if customer else ""),
            "email": recipient_of(order),
        },
        "payment": {
            "title": order.payment_method_title,
            "paid": paid,
            "instructions": instructions,
            "due_at": _when(payment_due_at),
        },
    }


def account_context(*, user, link: str, token: str, lifetime: str, config: dict) -> dict:
    return {
        "store": store_data(config),
        "account": {"name": user.name or user.email, "email": user.email},
        "link": link,
        "token": token,
        "lifetime": lifetime,
    }


# The made-up order of previews and tests (its page refuses the made-up key, as for any order).
SAMPLE_ORDER_ID = 123456
SAMPLE_ORDER_NUMBER = "EC-123456"
_SAMPLE_ADDRESS = {
    "first_name": "Ana",
    "last_name": "Example",
    "company": "Example Ltd",
    "address_1": "1 Sample Street",
    "address_2": "Floor 2",
    "city": "Athens",
    "state": "Attica",
    "postcode": "10558",
    "country": "GR",
    "email": "ana@example.com",
    "phone": "+30 210 0000000",
}


def sample_context(email_type: EmailType, *, config: dict) -> dict:
    """Made-up data with every documented variable set (previews, tests, the save check)."""
    store = store_data(config)
    if not email_type.about_order:
        return {
            "store": store,
            "account": {"name": "Ana Example", "email": "ana@example.com"},
            "link": absolute_url("/verify-email?token=sample-token"),
            "token": "sample-token",
            "lifetime": "48 hours",
        }
    currency = config["currency"]["currency"]
    status = email_type.order_status or OrderStatus.PENDING
    made_up = Order(pk=SAMPLE_ORDER_ID, order_number=SAMPLE_ORDER_NUMBER, order_key="sample")
    return {
        "store": store,
        "order": {
            "id": SAMPLE_ORDER_ID,
            "number": SAMPLE_ORDER_NUMBER,
            "status": status,
            "status_label": str(OrderStatus(status).label),
            "payment_status": "unpaid",
            "date": "2026-01-15 10:30 UTC",
            "currency": currency,
            "subtotal": "50.00",
            "discount_total": "5.00",
            "shipping_total": "4.90",
            "tax_total": "11.97",
            "total": "61.87",
            "amount_refunded": "61.87" if status == OrderStatus.REFUNDED else "0.00",
            "payment_method_title": "Bank transfer",
            "shipping_method_title": "Flat rate",
            "customer_note": "Please ring twice.",
            "url": order_received_url(made_up, config=config, for_person=True),
            "admin_url": admin_url(made_up),
            "billing_address": dict(_SAMPLE_ADDRESS),
            "shipping_address": dict(_SAMPLE_ADDRESS),
            "items": [
                {
                    "title": "Sample lamp",
                    "sku": "LAMP-1",
                    "quantity": 2,
                    "price": "20.00",
                    "subtotal": "40.00",
                    "total": "49.60",
                },
                {
                    "title": "Sample bulb",
                    "sku": "",
                    "quantity": 1,
                    "price": "10.00",
                    "subtotal": "10.00",
                    "total": "12.40",
                },
            ],
            "coupons": [{"code": "WELCOME5", "discount": "5.00"}],
        },
        "customer": {"first_name": "Ana", "last_name": "Example", "email": "ana@example.com"},
        "payment": {
            "title": "Bank transfer",
            "paid": False,
            "instructions": "Pay to IBAN GR00 0000 0000 0000 0000 0000 000, reference "
            f"{SAMPLE_ORDER_NUMBER}.",
            "due_at": "2026-01-16 10:30 UTC",
        },
    }
