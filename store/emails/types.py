"""The e-mails the store sends: one EmailType each, with the variables its templates may use.

The list is declared in code (like the store's capabilities and settings sections); a type's
default subject and bodies are the files defaults/<slug>.subject.txt, .html and .txt. A
template reaches only the variables listed here (store.emails.rendering): plain values, dicts
and lists, never a model or any other Python object.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

DEFAULTS_DIR = Path(__file__).resolve().parent / "defaults"

CUSTOMER = "customer"
STORE = "store"

STORE_VARIABLES = {
    "store.name": "The store's name (settings: general.store_name).",
    "store.email": "The store's e-mail address (settings: general.store_email).",
}
_ADDRESS = (
    "first_name, last_name, company, address_1, address_2, city, state, postcode, country, "
    "email, phone (empty strings when not given)"
)
ORDER_VARIABLES = {
    **STORE_VARIABLES,
    "order.id": "The order's id.",
    "order.number": "The order number, e.g. EC-000042.",
    "order.status": "The status code (pending, on_hold, processing, shipped, completed, "
    "cancelled, refunded, failed).",
    "order.status_label": "The status for people, e.g. On hold.",
    "order.payment_status": "unpaid, partially_paid, paid, partially_refunded or refunded.",
    "order.date": "When the order was placed, e.g. 2026-11-23 14:05 UTC.",
    "order.currency": "ISO 4217 code, e.g. EUR.",
    "order.subtotal": "Sum of the lines before discounts, a decimal string.",
    "order.discount_total": "The discount, a decimal string.",
    "order.shipping_total": "Shipping without tax, a decimal string.",
    "order.tax_total": "All tax, a decimal string.",
    "order.total": "What the order costs, a decimal string.",
    "order.amount_refunded": "What was refunded so far, a decimal string.",
    "order.payment_method_title": "How it is paid, e.g. Bank transfer (may be empty).",
    "order.shipping_method_title": "How it is shipped (may be empty).",
    "order.customer_note": "The shopper's note (may be empty).",
    "order.url": "The order's page for its customer (the order-received page).",
    "order.admin_url": "The order's page in the admin (for the store's own e-mails).",
    "order.billing_address": f"A dict: {_ADDRESS}.",
    "order.shipping_address": "A dict, as billing_address.",
    "order.items": "A list of lines: title, sku, quantity, price, subtotal, total.",
    "order.coupons": "A list of the coupons used: code, discount.",
    "customer.first_name": "The billing first name (or the customer's).",
    "customer.last_name": "The billing last name (or the customer's).",
    "customer.email": "Where the order's e-mails go.",
    "payment.title": "The payment method's title.",
    "payment.paid": "true once the order is paid in full.",
    "payment.instructions": "What to do to pay (bank details, ...), empty once paid.",
    "payment.due_at": "Pay by then or the order is cancelled, e.g. 2026-11-23 15:05 UTC "
    "(empty when there is no deadline).",
}
ACCOUNT_VARIABLES = {
    **STORE_VARIABLES,
    "account.name": "The account holder's name.",
    "account.email": "The account's e-mail address.",
    "link": "The page that uses the one-time token (verify the address, choose a password).",
    "token": "The bare one-time token (for API clients).",
    "lifetime": "How long the link works, e.g. 48 hours.",
}


@dataclass(frozen=True)
class EmailType:
    slug: str
    title: str
    description: str
    recipient: str  # CUSTOMER or STORE
    variables: dict[str, str]
    about_order: bool = True
    can_disable: bool = True
    order_status: str = ""  # the status change that sends it (status e-mails only)

    def names(self) -> frozenset[str]:
        """The top-level names its templates may use (store, order, ...)."""
        return frozenset(name.split(".", 1)[0] for name in self.variables)

    def default(self, part: str) -> str:
        """The built-in template of one part: subject, body_html or body_text."""
        return _read(self.slug, part)


_SUFFIX = {"subject": ".subject.txt", "body_html": ".html", "body_text": ".txt"}
PARTS = tuple(_SUFFIX)


@cache
def _read(slug: str, part: str) -> str:
    text = (DEFAULTS_DIR / f"{slug}{_SUFFIX[part]}").read_text(encoding="utf-8")
    return text.strip() if part == "subject" else text


@cache
def layout() -> str:
    """The HTML frame every HTML body is set in (not editable)."""
    return (DEFAULTS_DIR / "_layout.html").read_text(encoding="utf-8")


def _status(slug: str, status: str, label: str, description: str) -> EmailType:
    return EmailType(
        slug=slug,
        title=f"Order {label}",
        description=description,
        recipient=CUSTOMER,
        variables=ORDER_VARIABLES,
        order_status=status,
    )


TYPES: dict[str, EmailType] = {
    t.slug: t
    for t in (
        EmailType(
            slug="order_confirmation",
            title="Order confirmation",
            description="To the shopper when the checkout places the order (with the payment "
            "instructions of an offline method).",
            recipient=CUSTOMER,
            variables=ORDER_VARIABLES,
        ),
        EmailType(
            slug="new_order",
            title="New order",
            description="To the store (settings: general.store_email) when the checkout "
            "places an order.",
            recipient=STORE,
            variables=ORDER_VARIABLES,
        ),
        _status(
            "order_on_hold",
            "on_hold",
            "on hold",
            "To the customer when the store puts the order on hold (awaiting payment).",
        ),
        _status(
            "order_processing",
            "processing",
            "processing",
            "To the customer when the order moves to processing (paid, being prepared).",
        ),
        _status(
            "order_completed",
            "completed",
            "completed",
            "To the customer when the order is completed.",
        ),
        _status(
            "order_cancelled",
            "cancelled",
            "cancelled",
            "To the customer when the order is cancelled (by the store, or left unpaid).",
        ),
        _status(
            "order_refunded",
            "refunded",
            "refunded",
            "To the customer when the order is refunded.",
        ),
        EmailType(
            slug="customer_new_account",
            title="New account",
            description="To the shopper who creates an account at the checkout: welcome, and "
            "the link that verifies the address.",
            recipient=CUSTOMER,
            variables=ACCOUNT_VARIABLES,
            about_order=False,
            can_disable=False,
        ),
        EmailType(
            slug="customer_verify_email",
            title="Verify e-mail address",
            description="To a store customer's account asking to verify its address again.",
            recipient=CUSTOMER,
            variables=ACCOUNT_VARIABLES,
            about_order=False,
            can_disable=False,
        ),
        EmailType(
            slug="customer_password_reset",
            title="Password reset",
            description="To a store customer's account that asked to reset its password.",
            recipient=CUSTOMER,
            variables=ACCOUNT_VARIABLES,
            about_order=False,
            can_disable=False,
        ),
    )
}
SLUGS = tuple(TYPES)
# The status moves that send an e-mail, and which.
BY_STATUS = {t.order_status: t for t in TYPES.values() if t.order_status}


def get(slug: str) -> EmailType | None:
    return TYPES.get(slug) if isinstance(slug, str) else None


# The choice lists of the API's bodies (named in the OpenAPI description's enums).
EMAIL_TYPE_CHOICES = list(SLUGS)
ORDER_EMAIL_TYPE_CHOICES = [t.slug for t in TYPES.values() if t.about_order]
