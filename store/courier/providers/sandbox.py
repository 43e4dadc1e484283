"""The sandbox courier: vouchers made and tracked locally, no parcel ever moves.

Its tracking follows the time since the voucher was made, the same for the same clock: picked
up after 2 hours, at the hub after 12, out for delivery after 24, delivered after 30. It works
in development (DEBUG) and wherever COURIER_SANDBOX_ALLOWED is set; elsewhere it answers 409
`courier_not_configured` (a shop must not print labels no courier will collect).
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.conf import settings

from store.courier.models import VoucherStatus
from store.courier.providers.base import (
    CourierProvider,
    Created,
    Parcel,
    Tracking,
    not_configured,
)

# (hours after creation, status from then on, what happened, where)
STAGES = (
    (0, VoucherStatus.CREATED, "Voucher created, awaiting pickup", "Sender"),
    (2, VoucherStatus.IN_TRANSIT, "Picked up by the courier", "Sender"),
    (12, VoucherStatus.IN_TRANSIT, "Arrived at the sorting hub", "Hub"),
    (24, VoucherStatus.IN_TRANSIT, "Out for delivery", "Destination station"),
    (30, VoucherStatus.DELIVERED, "Delivered", "Recipient"),
)


def sandbox_events(created_at: datetime, now: datetime) -> Tracking:
    events, status, delivered_at = [], VoucherStatus.CREATED, None
    for hours, stage_status, description, location in STAGES:
        at = created_at + timedelta(hours=hours)
        if at > now:
            break
        status = stage_status
        if status == VoucherStatus.DELIVERED:
            delivered_at = at
        events.append(
            {
                "at": at.isoformat(),
                "status": stage_status,
                "description": description,
                "location": location,
            }
        )
    return Tracking(status=status, events=events, delivered_at=delivered_at)


class SandboxCourier(CourierProvider):
    name = "sandbox"
    title = "Sandbox courier"
    sandbox = True

    def ensure_configured(self) -> None:
        if not settings.COURIER_SANDBOX_ALLOWED:
            raise not_configured(
                "The sandbox courier works only in development or with COURIER_SANDBOX_ALLOWED."
            )

    def test_connection(self) -> str:
        self.ensure_configured()
        return "The sandbox courier answers (no parcel is collected)."

    def create(self, parcel: Parcel) -> Created:
        self.ensure_configured()
        return Created(number="SBX" + "".join(secrets.choice("0123456789") for _ in range(10)))

    def cancel(self, number: str) -> None:
        self.ensure_configured()

    def track(self, number: str, *, created_at: datetime, now: datetime) -> Tracking:
        self.ensure_configured()
        return sandbox_events(created_at, now)
