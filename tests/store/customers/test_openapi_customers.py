"""The customers' and my account's operations in the store's OpenAPI description: every
method, its query parameters and its answers."""

import pytest

from store.docs.schema import store_schema_document

pytestmark = pytest.mark.django_db

OPERATIONS = {
    "/customers": {"get", "post"},
    "/customers/{customer_id}": {"get", "put", "patch", "delete"},
    "/customers/stats": {"get"},
    "/customers/find-by-email": {"get"},
    "/customers-with-stats": {"get"},
    "/customers/{customer_id}/orders": {"get"},
    "/customers/{customer_id}/stats": {"get"},
    "/customers/{customer_id}/profile": {"get"},
    "/customers/{customer_id}/top-products": {"get"},
    "/customers/{customer_id}/spending-history": {"get"},
    "/customers/{customer_id}/addresses": {"get", "post"},
    "/addresses/{address_id}": {"get", "put", "patch", "delete"},
    "/account": {"get"},
    "/account/addresses": {"get"},
    "/account/addresses/{address_type}": {"get", "put"},
    "/account/details": {"get", "put", "patch"},
    "/account/password": {"post", "put"},
}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return store_schema_document()


def test_every_operation_is_described(schema):
    for path, methods in OPERATIONS.items():
        described = {
            m for m in schema["paths"][path] if m in {"get", "post", "put", "patch", "delete"}
        }
        assert described == methods, path
        for method in methods:
            operation = schema["paths"][path][method]
            assert operation["summary"], (path, method)
            assert operation["tags"] == (
                ["My account"] if path.startswith("/account") else ["Customers"]
            )


def test_the_lists_document_their_filters(schema):
    names = {p["name"] for p in schema["paths"]["/customers"]["get"]["parameters"]}
    assert names == {
        "page",
        "per_page",
        "search",
        "email",
        "status",
        "registered",
        "has_orders",
        "country",
        "date_from",
        "date_to",
        "orderby",
        "order",
    }
    stats = schema["paths"]["/customers-with-stats"]["get"]["parameters"]
    orderby = next(p for p in stats if p["name"] == "orderby")
    assert {"orders_count", "total_spent", "last_order"} <= set(orderby["schema"]["enum"])
    kinds = schema["paths"]["/account/addresses/{address_type}"]["get"]["parameters"]
    assert next(p for p in kinds if p["name"] == "address_type")["schema"]["enum"] == [
        "billing",
        "shipping",
    ]


def test_creating_posts_take_an_idempotency_key(schema):
    for path in ("/customers", "/customers/{customer_id}/addresses"):
        names = {p["name"] for p in schema["paths"][path]["post"]["parameters"]}
        assert "Idempotency-Key" in names, path


def test_refusals_are_documented(schema):
    assert "404" in schema["paths"]["/customers/find-by-email"]["get"]["responses"]
    assert "409" in schema["paths"]["/customers/{customer_id}"]["patch"]["responses"]
    assert "429" in schema["paths"]["/account/password"]["post"]["responses"]
    assert "204" in schema["paths"]["/customers/{customer_id}"]["delete"]["responses"]
