"""Customer reads."""

from __future__ import annotations

from store.common.errors import not_found
from store.customers.models import Customer


def customer_get(customer_id: int) -> Customer:
    customer = Customer.objects.filter(pk=customer_id).first()
    if customer is None:
        raise not_found("customer", customer_id)
    return customer


def customer_of_user(user) -> Customer | None:
    if user is None or not user.is_authenticated:
        return None
    return Customer.objects.filter(user=user).first()
