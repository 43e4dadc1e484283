"""The points' receivers: loyalty points follow the store's order events.

`order_status_changed` is sent inside the order's transaction: the points are brought up to
date after its commit. `payment_recorded` is sent after the commit. Both run the one idempotent
`points_sync` (earned once per paid order, reversed once on a refund); a failure is logged and
never fails the order's change. The dispatch_uids are the ones the modules' one app used, so a
receiver is never connected twice under two names."""

from __future__ import annotations

import logging

from django.db import transaction
from django.dispatch import receiver

from store.orders.signals import order_status_changed, payment_recorded
from theme.modules import selectors as kernel
from theme.modules.points import services

logger = logging.getLogger(__name__)


def _sync(order_id) -> None:
    try:
        services.points_sync(order_id=order_id)
    except Exception:
        logger.exception("loyalty points of order %s not updated", order_id)


@receiver(order_status_changed, dispatch_uid="theme_modules_points_status")
def points_on_status(sender, order, **kwargs):
    # An order whose points cannot change (no customer, unpaid) costs no transaction.
    if kernel.module_active("points") and services.points_may_change(order):
        order_id = order.pk
        transaction.on_commit(lambda: _sync(order_id))


@receiver(payment_recorded, dispatch_uid="theme_modules_points_payment")
def points_on_payment(sender, event, **kwargs):
    if kernel.module_active("points") and isinstance(event.get("order_id"), int):
        _sync(event["order_id"])
