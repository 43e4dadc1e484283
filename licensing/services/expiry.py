"""Ending what is past its end: a subscription (with its licences), and the beat's sweep of
subscriptions, licences and packs."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from common.events import DomainEvent, publish, publish_many
from licensing.models import (
    License,
    LicenseStatus,
    Pack,
    PackStatus,
    Subscription,
    SubscriptionStatus,
)
from licensing.services._shared import _audit_rows, _now


def subscription_expire(*, subscription_id: int, now: datetime | None = None) -> int | None:
    """End a subscription now: its active licences expire and license.expired is published
    with the count. Answers that count, or None when it was not active (nothing changed)."""
    now = _now(now)
    with transaction.atomic():
        subscription = (
            Subscription.objects.select_for_update(of=("self",))
            .select_related("owner")
            .filter(pk=subscription_id, status=SubscriptionStatus.ACTIVE)
            .first()
        )
        if subscription is None:
            return None
        subscription.status = SubscriptionStatus.EXPIRED
        subscription.expired_at = now
        subscription.save(update_fields=["status", "expired_at"])
        rows = list(
            License.objects.filter(subscription=subscription, status=LicenseStatus.ACTIVE)
            .select_for_update()
            .order_by("pk")
            .values_list("pk", "license_key")
        )
        expired = License.objects.filter(pk__in=[pk for pk, _key in rows]).update(
            status=LicenseStatus.EXPIRED, updated_at=now
        )
        _expired_in_trail(rows, note=f"Subscription {subscription.pk} ended.")
        publish(
            account=subscription.owner,
            event="license.expired",
            data={
                "customer_id": subscription.customer_id,
                "licenses_revoked": expired,
                "subscription_id": subscription.pk,
            },
        )
    return expired


def _expired_in_trail(rows: list[tuple[int, str]], *, note: str) -> None:
    change = {"status": [LicenseStatus.ACTIVE.value, LicenseStatus.EXPIRED.value]}
    _audit_rows(((pk, key, change) for pk, key in rows), action="expired", note=note)


@dataclass
class ExpiryResult:
    subscriptions: int = 0
    licenses: int = 0
    packs: int = 0


def expire_due(*, now: datetime | None = None, progress=None) -> ExpiryResult:
    """Move what is past its end to expired: subscriptions (with their licences), licences
    past `expires_at`, and packs past their `expires_at`. Running it again changes nothing.

    Licences expiring by date publish one license.expired per owner and customer, with
    `subscription_id` null.
    """
    now = _now(now)
    result = ExpiryResult()
    due = list(
        Subscription.objects.filter(
            status=SubscriptionStatus.ACTIVE, current_period_end__lte=now
        ).values_list("pk", flat=True)
    )
    for subscription_id in progress(due) if progress else due:
        expired = subscription_expire(subscription_id=subscription_id, now=now)
        if expired is not None:
            result.subscriptions += 1
            result.licenses += expired
    with transaction.atomic():
        rows = list(
            License.objects.filter(status=LicenseStatus.ACTIVE, expires_at__lte=now)
            .select_for_update(of=("self",))
            .select_related("owner")
            .order_by("pk")
        )
        License.objects.filter(pk__in=[row.pk for row in rows]).update(
            status=LicenseStatus.EXPIRED, updated_at=now
        )
        _expired_in_trail([(row.pk, row.license_key) for row in rows], note="Past its expiry.")
        groups: dict[tuple[int, int | None], list[License]] = defaultdict(list)
        for row in rows:
            groups[(row.owner_id, row.customer_id)].append(row)
        publish_many(
            DomainEvent(
                account=members[0].owner,
                event="license.expired",
                data={
                    "customer_id": customer_id,
                    "licenses_revoked": len(members),
                    "subscription_id": None,
                },
            )
            for (_owner_id, customer_id), members in groups.items()
        )
        result.licenses += len(rows)
        result.packs = Pack.objects.filter(
            status=PackStatus.ACTIVE, expires_at__isnull=False, expires_at__lte=now
        ).update(status=PackStatus.EXPIRED)
    return result
