"""Reads. Every webhook is fetched through its account: another account's id is a 404."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import User
from common.errors import NotFound
from webhooks.models import Delivery, DeliveryAttempt, Webhook

DELIVERY_LOG_DEFAULT_LIMIT = 25
DELIVERY_LOG_MAX_LIMIT = 100


def webhook_list(*, account: User) -> QuerySet[Webhook]:
    return Webhook.objects.filter(account=account).order_by("id")


def webhook_get(*, account: User, webhook_id: int) -> Webhook:
    webhook = Webhook.objects.filter(account=account, pk=webhook_id).first()
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
