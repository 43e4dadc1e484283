"""The quote requests' read: newest first, optionally by status, with their items."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from theme.modules.quotes.models import Quote, QuoteItem


def quotes(*, status: str | None = None) -> QuerySet[Quote]:
    """The requests (of `status`, when given), items and products prefetched (paged by the
    caller)."""
    rows = Quote.objects.all()
    if status:
        rows = rows.filter(status=status)
    items = Prefetch("items", queryset=QuoteItem.objects.select_related("product"))
    return rows.prefetch_related(items)
