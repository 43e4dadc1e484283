"""Shared helpers of the e-mail tests: the routes, a staff client with the e-mail capability,
orders to send about."""

from __future__ import annotations

import json
from decimal import Decimal

from django.test import Client

from store.catalog.models import Product
from store.emails.models import SentEmail
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, basic_auth, grant
from tests.store.orders.factories import line, make_order, stocked

EMAILS = f"{API}/emails"
TEMPLATES = f"{EMAILS}/templates"
SETTINGS = f"{EMAILS}/settings"
TEST = f"{EMAILS}/test"
ALL_TYPES = [
    "order_confirmation",
    "new_order",
    "order_on_hold",
    "order_processing",
    "order_completed",
    "order_cancelled",
    "order_refunded",
    "customer_new_account",
    "customer_verify_email",
    "customer_password_reset",
]
ORDER_TYPES = ALL_TYPES[:7]
ACCOUNT_TYPES = ALL_TYPES[7:]
BILLING = {
    "first_name": "Ana",
    "last_name": "Papadopoulou",
    "address_1": "Ermou 12",
    "city": "Athens",
    "postcode": "10431",
    "country": "GR",
    "email": "ana@example.com",
}


def mailer(email: str = "mailer@example.com"):
    """An account holding ec_manage_emails only."""
    return grant(UserFactory(email=email, name="Mel Mailer"), "ec_manage_emails")


def an_order(status: str = "pending", **fields):
    lamp = Product.objects.filter(sku="LAMP").first() or stocked(
        "Lamp", stock=100, price="20.00", sku="LAMP"
    )
    fields.setdefault("billing_address", dict(BILLING))
    fields.setdefault("payment_method", "bank_transfer")
    fields.setdefault("payment_method_title", "Bank transfer")
    fields.setdefault("shipping_total", Decimal("5.00"))
    return make_order(line(lamp, 2), status=status, **fields)


def log(**filters) -> list[tuple[str, str, str]]:
    return list(
        SentEmail.objects.filter(**filters)
        .order_by("id")
        .values_list("type", "recipient", "status")
    )


def csrf_client(user=None) -> Client:
    headers = {"Authorization": basic_auth(user)} if user is not None else {}
    return Client(enforce_csrf_checks=True, headers=headers)


def send(client, method: str, path: str, body=None, **headers):
    data = json.dumps(body) if body is not None and not isinstance(body, (str, bytes)) else body
    return getattr(client, method)(
        path, data=data, content_type="application/json", headers=headers
    )
