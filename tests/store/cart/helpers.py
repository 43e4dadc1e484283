"""Shared helpers of the cart tests: a shopper's client and the cart calls."""

from contextlib import contextmanager

from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from store.common.cart_session import CART_COOKIE
from tests.fixtures.store import API

CART = f"{API}/cart"


def add(client: APIClient, product_id, quantity=None, **body):
    data = {"product_id": product_id, **body}
    if quantity is not None:
        data["quantity"] = quantity
    return client.post(f"{CART}/items", data, format="json")


def cart_of(client: APIClient) -> dict:
    response = client.get(CART)
    assert response.status_code == 200, response.content
    return response.json()["cart"]


def token_of(client: APIClient) -> str | None:
    morsel = client.cookies.get(CART_COOKIE)
    return morsel.value if morsel is not None else None


def money_fields(cart: dict) -> dict:
    return {key: cart[key] for key in ("subtotal", "discount", "shipping", "tax", "total")}


TRANSACTION_CONTROL = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK", "BEGIN", "COMMIT")


@contextmanager
def max_sql_queries(most: int):
    """Fail when the block runs more than `most` SQL statements, not counting transaction
    control (BEGIN, COMMIT, savepoints): those differ between a test wrapped in a transaction
    and production, and cost no table access."""
    with CaptureQueriesContext(connection) as context:
        yield context
    done = [
        q["sql"] for q in context.captured_queries if not q["sql"].startswith(TRANSACTION_CONTROL)
    ]
    assert len(done) <= most, f"{len(done)} queries (at most {most}):\n" + "\n".join(done)
