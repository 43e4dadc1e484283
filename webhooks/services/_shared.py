"""What several modules of this package share (private to it): the claim's lease, the
delivery task, giving up a webhook's pending deliveries, disabling a webhook (its owner
e-mailed) and enqueueing a delivery's task through the outbox.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings

from accounts.models import User
from common import outbox
from common.email import send_templated_email
from webhooks.models import Delivery, DeliveryAttempt, Scope, Webhook
from webhooks.services.subscriptions import store_events_changed

logger = logging.getLogger(__name__)

# A worker holds a claimed attempt this long; a 10 s timeout leaves ample margin.
CLAIM_LEASE = dt.timedelta(seconds=settings.WEBHOOK_CLAIM_LEASE_SECONDS)

DELIVER_TASK = "webhooks.deliver"

Outcome = DeliveryAttempt.Outcome
Status = Delivery.Status


def _cancel_pending(webhook: Webhook) -> int:
    return Delivery.objects.filter(webhook=webhook, status=Status.PENDING).update(
        status=Status.FAILED, next_attempt_at=None
    )


def _disable(*, webhook: Webhook, reason: str, now: dt.datetime) -> bool:
    """Set the webhook inactive with `reason`, give up its pending deliveries, e-mail the owner.

    Runs under the caller's lock on the webhook row; False if it was already inactive.
    """
    updated = Webhook.objects.filter(pk=webhook.pk, is_active=True).update(
        is_active=False, disabled_reason=reason, disabled_at=now, updated_at=now
    )
    if not updated:
        return False
    webhook.is_active, webhook.disabled_reason, webhook.disabled_at = False, reason, now
    _cancel_pending(webhook)
    if webhook.scope == Scope.STORE:
        store_events_changed()
    # A store webhook has no owner: the staff member who registered it is told, if still here.
    owner_id = webhook.account_id if webhook.scope == Scope.PORTAL else webhook.created_by_id
    account = User.objects.only("email", "name").filter(pk=owner_id, is_active=True).first()
    if account is not None:
        send_templated_email(
            to=account.email,
            template="webhooks/webhook_disabled",
            context={"account": account, "webhook": webhook, "reason": reason},
        )
    logger.info("webhook %s disabled: %s", webhook.pk, reason)
    return True


def _enqueue_on_commit(delivery_id: int, countdown: float | None = None) -> None:
    outbox.enqueue(
        DELIVER_TASK,
        args=(delivery_id,),
        countdown=countdown,
        dedupe_key=f"{DELIVER_TASK}:{delivery_id}",
    )
