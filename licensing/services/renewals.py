"""Renewal orders: pricing a one-year renewal, opening a checkout with the payment provider,
and confirming the paid transaction (which extends the licences once)."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts.models import User
from common import audit
from common.errors import NotFound, ServiceError, ValidationFailed
from common.links import absolute_url, site_url
from licensing.dates import add_years
from licensing.keys import ALPHABET
from licensing.models import (
    License,
    LicenseStatus,
    RenewalOrder,
    RenewalOrderItem,
    RenewalOrderStatus,
    Tier,
)
from licensing.payments import get_provider
from licensing.services._shared import (
    _audit_rows,
    _check_ids,
    _now,
    _require_business_bundle,
)
from licensing.services.rules import visible_licenses


def _order_code() -> str:
    return "RN-" + "".join(secrets.choice(ALPHABET) for _ in range(10))


def _return_url(provider_name: str) -> str:
    if settings.RENEWAL_RETURN_URL:
        return absolute_url(settings.RENEWAL_RETURN_URL)
    if provider_name == "sandbox":
        return ""
    return absolute_url("/renewals/complete")


def renewal_order_create(
    *, user: User, license_ids: Iterable[int], now: datetime | None = None
) -> RenewalOrder:
    """Price a one-year renewal of the caller's licences among `license_ids` (others are
    skipped) into a pending order and open a checkout with the payment provider."""
    now = _now(now)
    ids = _check_ids(license_ids, "license_ids")
    if not ids:
        raise ValidationFailed({"license_ids": ["Give at least one licence id."]})
    licenses = list(
        visible_licenses(user)
        .filter(pk__in=ids)
        .select_related("product", "customer")
        .order_by("pk")
    )
    if not licenses:
        raise NotFound("None of these licences is yours.", code="license_not_found")
    revoked = [lic.license_key for lic in licenses if lic.status == LicenseStatus.REVOKED]
    if revoked:
        raise ServiceError(
            "Revoked licences cannot be renewed; reactivate them first: " + ", ".join(revoked),
            code="license_revoked",
        )
    for license in licenses:
        if license.tier == Tier.BUSINESS:
            _require_business_bundle(
                user,
                license.customer,
                now,
                f"Renewing business-tier licence {license.license_key}",
            )
    amount = sum((lic.product.yearly_price(lic.tier) for lic in licenses), Decimal("0.00"))
    if amount <= 0:
        raise ServiceError(
            "These licences have no renewal price; nothing to pay.", code="nothing_to_pay"
        )
    provider = get_provider()
    code = _order_code()
    while RenewalOrder.objects.filter(code=code).exists():
        code = _order_code()
    checkout = provider.create_checkout(
        order_code=code,
        description=f"Renewal of {len(licenses)} licence{'s' if len(licenses) != 1 else ''} "
        f"({code})",
        amount=amount,
        currency=settings.LICENSE_CURRENCY,
        base_url=site_url(),
        return_url=_return_url(provider.name),
    )
    with transaction.atomic():
        order = RenewalOrder.objects.create(
            owner=user,
            code=code,
            amount=amount,
            currency=settings.LICENSE_CURRENCY,
            provider=provider.name,
            provider_reference=checkout.reference,
            checkout_url=checkout.url,
            created_at=now,
        )
        RenewalOrderItem.objects.bulk_create(
            RenewalOrderItem(
                order=order,
                license=lic,
                license_key=lic.license_key,
                product=lic.product,
                tier=lic.tier,
                price=lic.product.yearly_price(lic.tier),
                previous_expires_at=lic.expires_at,
            )
            for lic in licenses
        )
    return order


def _already_confirmed(order: RenewalOrder, transaction_id: str) -> RenewalOrder:
    if order.transaction_id == transaction_id:
        return order
    raise ServiceError(
        f"Order {order.code} was already paid with another transaction.",
        code="renewal_already_confirmed",
    )


def renewal_confirm(
    *, user: User, order_code: str, transaction_id: str, now: datetime | None = None
) -> RenewalOrder:
    """Check the transaction with the payment provider; when it paid this order in full,
    extend each licence one year from the later of now and its expiry, once. Confirming again
    with the same transaction answers the same result and changes nothing."""
    now = _now(now)
    order_code, transaction_id = order_code.strip().upper(), transaction_id.strip()
    order = RenewalOrder.objects.filter(owner=user, code=order_code).first()
    if order is None:
        raise NotFound("Renewal order not found.", code="renewal_order_not_found")
    if order.status == RenewalOrderStatus.PAID:
        return _already_confirmed(order, transaction_id)
    check = get_provider(order.provider).check_transaction(transaction_id=transaction_id)
    if check is None:
        raise ServiceError(
            "The payment provider knows no such transaction; nothing was changed.",
            code="transaction_not_found",
        )
    if check.order_code != order.code:
        raise ServiceError(
            f"Transaction {transaction_id} does not belong to order {order.code}; nothing was "
            "changed.",
            code="transaction_mismatch",
        )
    if not check.paid:
        raise ServiceError(
            f"Transaction {transaction_id} is not paid; nothing was changed.",
            code="payment_not_completed",
        )
    if check.amount != order.amount or (check.currency or "").upper() != order.currency:
        raise ServiceError(
            f"Transaction {transaction_id} paid {check.amount} {check.currency}, not "
            f"{order.amount} {order.currency}; nothing was changed.",
            code="transaction_mismatch",
        )
    try:
        with transaction.atomic():
            order = RenewalOrder.objects.select_for_update().get(pk=order.pk)
            if order.status == RenewalOrderStatus.PAID:  # a concurrent confirm won
                return _already_confirmed(order, transaction_id)
            items = list(order.items.all())
            license_ids = [item.license_id for item in items if item.license_id]
            licenses = {
                lic.pk: lic
                for lic in License.objects.select_for_update()
                .filter(pk__in=license_ids)
                .order_by("pk")
            }
            renewed = []
            for item in items:
                license = licenses.get(item.license_id)
                if license is None:
                    continue
                trail = audit.track(license, ("status", "expires_at", "invoiced_at"))
                license.expires_at = add_years(max(now, license.expires_at), 1)
                if license.status == LicenseStatus.EXPIRED:
                    license.status = LicenseStatus.ACTIVE
                license.invoiced_at = license.invoiced_at or now
                item.new_expires_at = license.expires_at
                renewed.append((license.pk, license.license_key, trail.changes()))
            License.objects.bulk_update(
                licenses.values(), ["expires_at", "status", "invoiced_at", "updated_at"]
            )
            _audit_rows(renewed, action="renewed", note=f"Renewal order {order.code}.")
            RenewalOrderItem.objects.bulk_update(items, ["new_expires_at"])
            order.status = RenewalOrderStatus.PAID
            order.transaction_id = transaction_id
            order.paid_at = now
            order.save(update_fields=["status", "transaction_id", "paid_at"])
    except IntegrityError:
        raise ServiceError(
            f"Transaction {transaction_id} has already confirmed another order.",
            code="transaction_mismatch",
        ) from None
    return order
