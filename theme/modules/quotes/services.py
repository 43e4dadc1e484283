"""The quote requests' writes: a request recorded with its products, its status changed by
staff."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from store.common.accounts import logged_in
from store.common.errors import invalid_params, not_found
from theme.modules import selectors as kernel
from theme.modules.quotes.models import Quote, QuoteItem


@transaction.atomic
def quote_request(*, user: Any, fields: dict[str, Any], items: list[dict[str, Any]]) -> Quote:
    """Record a request for quote: the products (active, each once) with their quantities."""
    ids = [item["product_id"] for item in items]
    if len(set(ids)) != len(ids):
        raise invalid_params({"items": ["Name each product once."]})
    kernel.active_products(ids)
    quote = Quote.objects.create(user=logged_in(user), **fields)
    QuoteItem.objects.bulk_create(
        QuoteItem(quote=quote, product_id=item["product_id"], quantity=item["quantity"])
        for item in items
    )
    return quote


@transaction.atomic
def quote_status_set(*, quote_id: int, status: str) -> Quote:
    quote = Quote.objects.select_for_update().filter(pk=quote_id).first()
    if quote is None:
        raise not_found("quote", quote_id)
    quote.status = status
    quote.save(update_fields=["status"])
    return quote
