"""Reads of marketplace sync: the accounts (settings), the marketplace orders and their events."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from django.db.models import Q, QuerySet

from store.common.errors import not_found
from store.marketplace import secrets
from store.marketplace.models import MarketplaceAccount, MarketplaceEvent, MarketplaceOrder
from store.marketplace.providers import PROVIDERS, provider_class
from store.marketplace.providers.base import MarketplaceProvider

#: The newest events shown with a marketplace order.
ORDER_EVENTS = 20


def account_of(name: str) -> MarketplaceAccount:
    """A marketplace's settings row, or its defaults (unsaved, disabled) when it has none."""
    provider_class(name)
    return MarketplaceAccount.objects.filter(marketplace=name).first() or MarketplaceAccount(
        marketplace=name
    )


def accounts() -> list[MarketplaceAccount]:
    saved = {row.marketplace: row for row in MarketplaceAccount.objects.all()}
    return [saved.get(name) or MarketplaceAccount(marketplace=name) for name in PROVIDERS]


def provider(name: str, account: MarketplaceAccount | None = None) -> MarketplaceProvider:
    cls = provider_class(name)
    account = account or account_of(name)
    return cls(secrets.unseal(account.credentials))


def webhook_secret(account: MarketplaceAccount) -> str:
    return str(secrets.unseal(account.webhook_secret).get("secret", ""))


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def order_list(
    *,
    marketplace: str | None = None,
    state: str | None = None,
    import_status: str | None = None,
    search: str | None = None,
    date_from: date | None = None,
    date_to: date | None = None,
) -> QuerySet[MarketplaceOrder]:
    """Newest first, with their store orders (one query per page, whatever its length)."""
    rows = MarketplaceOrder.objects.select_related("order")
    if marketplace:
        rows = rows.filter(marketplace=marketplace)
    if state:
        rows = rows.filter(state=state)
    if import_status:
        rows = rows.filter(import_status=import_status)
    if search:
        rows = rows.filter(Q(code__icontains=search) | Q(order__order_number__iexact=search))
    if date_from is not None:
        rows = rows.filter(created_at__gte=_day_start(date_from))
    if date_to is not None:
        rows = rows.filter(created_at__lt=_day_start(date_to + timedelta(days=1)))
    return rows.order_by("-created_at", "-id")


def order_get(pk: int) -> MarketplaceOrder:
    row = MarketplaceOrder.objects.select_related("order").filter(pk=pk).first()
    if row is None:
        raise not_found("marketplace_order", pk)
    return row


def order_events(row: MarketplaceOrder) -> list[MarketplaceEvent]:
    return list(
        MarketplaceEvent.objects.filter(marketplace=row.marketplace, order_code=row.code).order_by(
            "-received_at", "-id"
        )[:ORDER_EVENTS]
    )
