"""Fixtures of the CRM tests: a salesperson (ec_manage_crm) and helpers that make contacts,
leads, activities and paid store orders through the services."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from erp.crm import services
from store.customers import services as customer_services
from store.orders.models import Order
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, grant

CRM = "ec_manage_crm"
BASE = API


@pytest.fixture
def seller(db):
    return grant(UserFactory(email="seller@example.com"), CRM)


@pytest.fixture
def seller_client(store_client, seller, erp_on):
    return store_client(seller)


def make_contact(**fields):
    fields.setdefault("name", "Ada Lovelace")
    return services.contact_create(fields=fields)


def make_lead(**fields):
    fields.setdefault("title", "Big deal")
    fields.setdefault("value", Decimal("1000.00"))
    return services.lead_create(fields=fields)


def make_activity(**fields):
    fields.setdefault("kind", "call")
    fields.setdefault("subject", "Call back")
    fields.setdefault("due_at", timezone.now() + dt.timedelta(days=1))
    return services.activity_create(fields=fields)


def make_customer(email="buyer@example.com", **fields):
    return customer_services.customer_create(fields={"email": email, **fields})


_numbers = iter(range(1, 10**6))


def paid_order(
    customer, total="10.00", *, days_ago=0, status="completed", payment="paid", currency="EUR"
):
    """A store order row for RFM figures (made directly: only its status, payment status,
    total, currency, customer and date matter to the CRM)."""
    number = next(_numbers)
    return Order.objects.create(
        order_key=f"key-{number}",
        order_number=f"T{number}",
        customer=customer,
        status=status,
        payment_status=payment,
        currency=currency,
        total=Decimal(total),
        created_at=timezone.now() - dt.timedelta(days=days_ago),
    )


__all__ = ["BASE", "CRM"]
