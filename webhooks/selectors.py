"""Reads. Every portal webhook is fetched through its account: another account's id is a 404.
Store webhooks (scope `store`) are fetched by id among the store's only."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import User
from common.errors import NotFound
from webhooks.models import Delivery, DeliveryAttempt, Scope, Webhook

DELIVERY_LOG_DEFAULT_LIMIT = 25
DELIVERY_LOG_MAX_LIMIT = 100


def webhook_list(*, account: User) -> QuerySet[Webhook]:
    return Webhook.objects.filter(account=account, scope=Scope.PORTAL).order_by("id")


def webhook_get(*, account: User, webhook_id: int) -> Webhook:
    webhook = Webhook.objects.filter(account=account, scope=Scope.PORTAL, pk=webhook_id).first()
    if webhook is None:
        raise NotFound("Webhook not found.", code="webhook_not_found")
    return webhook


def delivery_log_list(*, webhook: Webhook, limit: int) -> QuerySet[DeliveryAttempt]:
    """The webhook's newest log entries first, with their delivery (body, id) in one query."""
    limit = max(1, min(limit, DELIVERY_LOG_MAX_LIMIT))
    return (
        DeliveryAttempt.objects.filter(webhook=webhook)
        .select_related("delivery")
        .order_by("-id")[:limit]
    )


def delivery_log_get(*, webhook: Webhook, log_id: int) -> DeliveryAttempt:
    entry = (
        DeliveryAttempt.objects.filter(webhook=webhook, pk=log_id)
        .select_related("delivery")
        .first()
    )
    if entry is None:
        raise NotFound("Delivery log entry not found.", code="delivery_not_found")
    return entry


def delivery_list_for_admin() -> QuerySet[Delivery]:
    return Delivery.objects.select_related("webhook", "webhook__account")


# --- Store webhooks -------------------------------------------------------------------------


def store_webhook_list(*, active: bool | None = None) -> QuerySet[Webhook]:
    """The store's webhooks, oldest first; `active` true or false filters (absent: all)."""
    webhooks = Webhook.objects.filter(scope=Scope.STORE).order_by("id")
    if active is not None:
        webhooks = webhooks.filter(is_active=active)
    return webhooks


def store_webhook_get(*, webhook_id: int) -> Webhook:
    webhook = Webhook.objects.filter(scope=Scope.STORE, pk=webhook_id).first()
    if webhook is None:
        raise NotFound(f"No webhook with id {webhook_id}.", code="webhook_not_found")
    return webhook


def store_delivery_list(
    *, webhook: Webhook, status: str | None = None, event: str | None = None
) -> QuerySet[Delivery]:
    """The webhook's deliveries (one per event sent, pings included), newest first."""
    deliveries = Delivery.objects.filter(webhook=webhook).order_by("-id")
    if status:
        deliveries = deliveries.filter(status=status)
    if event:
        deliveries = deliveries.filter(event=event)
    return deliveries.defer("claim_token", "claimed_by_task")


def delivery_logs_of(delivery_ids: list[int]) -> dict[int, list[DeliveryAttempt]]:
    """The log entries of some deliveries, oldest first, in one query."""
    logs: dict[int, list[DeliveryAttempt]] = {pk: [] for pk in delivery_ids}
    if delivery_ids:
        for entry in (
            DeliveryAttempt.objects.filter(delivery_id__in=delivery_ids)
            .defer("response_body")
            .order_by("id")
        ):
            logs[entry.delivery_id].append(entry)
    return logs


def store_delivery_get(*, webhook: Webhook, delivery_id: int) -> Delivery:
    delivery = Delivery.objects.filter(webhook=webhook, pk=delivery_id).first()
    if delivery is None:
        raise NotFound(f"No delivery with id {delivery_id}.", code="delivery_not_found")
    return delivery
