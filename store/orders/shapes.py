"""An order as the lists answer it: the list entry (`order_summary_row`, of a row of
selectors.LIST_COLUMNS; `order_summary` of an instance), the page answer (`page_response`: on
PostgreSQL the entries come written by the database) and the serializer classes that declare
the same shapes for the OpenAPI description.

A public module of the orders app (not its `api`): the customers' routes answer a customer's
orders in these shapes. The orders' other bodies are store.orders.api.serializers.
"""

from __future__ import annotations

import json

from django.http import HttpResponse
from rest_framework import serializers
from rest_framework.response import Response

from common import pg_json
from common.api.fields import IdField, IntegerField
from store.common.formats import iso
from store.common.money import money_str
from store.orders import selectors
from store.orders.choices import FulfillmentStatus, OrderStatus, PaymentStatus


def order_summary(order) -> dict:
    """A list entry, of an order instance."""
    return order_summary_row(selectors.list_row(order))


def order_summary_row(row) -> dict:
    """A list entry, of a row of selectors.LIST_COLUMNS (lists read rows, not instances)."""
    (
        pk,
        number,
        status,
        payment_status,
        fulfillment_status,
        currency,
        total,
        item_count,
        created_at,
        updated_at,
        customer_id,
        email,
        first_name,
        last_name,
        user_id,
    ) = row
    return {
        "id": pk,
        "order_number": number,
        "status": status,
        "payment_status": payment_status,
        "fulfillment_status": fulfillment_status,
        "currency": currency,
        "total": money_str(total),
        "item_count": item_count,
        "customer_id": customer_id,
        "customer": None
        if customer_id is None
        else {
            "id": customer_id,
            "email": email,
            "first_name": first_name,
            "last_name": last_name,
            "user_id": user_id,
        },
        "created_at": iso(created_at),
        "updated_at": iso(updated_at),
    }


def page_body(page, render) -> dict:
    return {
        "orders": [render(order) for order in page.items],
        "total": page.total,
        "page": page.page,
        "per_page": page.per_page,
        "total_pages": page.total_pages,
    }


def page_response(page):
    """The answer of a page of selectors.list_columns() rows: on PostgreSQL the entries are
    JSON text already (common.pg_json) and are joined into the body as they are."""
    if not selectors.lists_json():
        return Response(page_body(page, order_summary_row))
    meta = json.dumps(
        {
            "total": page.total,
            "page": page.page,
            "per_page": page.per_page,
            "total_pages": page.total_pages,
        },
        separators=(",", ":"),
    )
    entries = pg_json.join_entries([row[0] for row in page.items])
    return HttpResponse(f'{{"orders":{entries},{meta[1:]}', content_type="application/json")


class CustomerRefSerializer(serializers.Serializer):
    id = IdField()
    email = serializers.EmailField()
    first_name = serializers.CharField()
    last_name = serializers.CharField()
    user_id = IdField(allow_null=True)


class OrderSummarySerializer(serializers.Serializer):
    id = IdField()
    order_number = serializers.CharField(help_text="Made by the server, e.g. EC-000042.")
    status = serializers.ChoiceField(choices=OrderStatus.choices)
    payment_status = serializers.ChoiceField(choices=PaymentStatus.choices)
    fulfillment_status = serializers.ChoiceField(choices=FulfillmentStatus.choices)
    currency = serializers.CharField()
    total = serializers.CharField(help_text="Decimal string.")
    item_count = IntegerField(help_text="Units in the order.")
    customer_id = IdField(allow_null=True)
    customer = CustomerRefSerializer(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class OrderPageSerializer(serializers.Serializer):
    orders = OrderSummarySerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()
