"""Writes of the courier app: settings, vouchers (made, cancelled, tracked) and the order's
shipment that follows them, through the orders app's services.

- Making a voucher for an order needs a complete shipping address (409
  `order_no_shipping_address`). The voucher goes on the shipment named, else on the order's
  open shipment without a tracking number, else on a new shipment of every unit not yet in
  one (status pending); the shipment gets the courier as carrier and the voucher number as
  tracking number. A shipment holds one live voucher at a time (409 `voucher_exists`).
- Tracking moves the voucher's status and, when it is its shipment's current voucher, the
  shipment's (created: pending, in transit: shipped, delivered, returned); the order's
  fulfilment status follows the shipments (orders' services).
- Only a voucher not yet collected (created) can be cancelled: 409 `voucher_cancelled` for a
  cancelled one, `voucher_not_cancellable` past pickup. Cancelling clears the shipment's
  tracking number, so the shipment can get a new voucher.

The courier is called under the order's (or the voucher's) row lock, so two requests cannot
both make or cancel; when the store refuses after the courier made a voucher, that voucher is
cancelled at the courier again.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from common import sealed
from common.errors import ServiceError
from store.common.addresses import REQUIRED_ADDRESS, Address, address_clean
from store.common.errors import invalid_params, not_found, rule_broken
from store.common.problems import Problems
from store.courier import secrets, selectors
from store.courier.models import CourierAccount, Voucher, VoucherStatus
from store.courier.providers import provider_class
from store.courier.providers.base import Parcel
from store.orders import services as order_services
from store.orders.choices import TERMINAL, OrderSource, ShipmentStatus
from store.orders.models import Order, Shipment
from store.settings import selectors as store_settings

log = logging.getLogger(__name__)

SHIPMENT_STATUS = {
    VoucherStatus.CREATED: ShipmentStatus.PENDING,
    VoucherStatus.IN_TRANSIT: ShipmentStatus.SHIPPED,
    VoucherStatus.DELIVERED: ShipmentStatus.DELIVERED,
    VoucherStatus.RETURNED: ShipmentStatus.RETURNED,
}
# Kilograms per unit of the store's weight setting.
KG_PER_UNIT = {"kg": Decimal(1), "g": Decimal("0.001"), "lb": Decimal("0.45359237"),
               "oz": Decimal("0.028349523125")}  # fmt: skip
MAX_PICKUP_DAYS = 14


# --- Settings ------------------------------------------------------------------------------------


@transaction.atomic
def settings_update(*, changes: dict[str, dict]) -> None:
    """Per provider: `enabled`, `sender` (an address), `default_weight` (kg), `credentials`
    (only the names sent change; "" removes one; a masked value sent back as it was shown
    changes nothing)."""
    problems = Problems()
    for name, fields in changes.items():
        cls = provider_class(name)
        if "sender" in fields:
            cleaned, errors = address_clean(fields["sender"] or {})
            problems.extend(errors, prefix=f"{name}.sender")
            fields["sender"] = Address.of(cleaned).stored()
        if "default_weight" in fields and fields["default_weight"] is None:
            problems.add(f"{name}.default_weight", "A weight in kilograms (0.001-1000).")
        unknown = set(fields.get("credentials") or {}) - set(cls.credential_fields)
        for key in sorted(unknown):
            problems.add(f"{name}.credentials.{key}", f"{cls.title} takes no {key}.")
    problems.raise_if_any()
    for name, fields in changes.items():
        account = CourierAccount.objects.select_for_update().filter(provider=name).first()
        account = account or selectors.account_of(name)
        for key in ("enabled", "sender", "default_weight"):
            if key in fields:
                setattr(account, key, fields[key])
        if "credentials" in fields:
            stored = secrets.unseal(account.credentials)
            for key, value in (fields["credentials"] or {}).items():
                if sealed.is_mask_of(value, stored.get(key, ""), mask=secrets.mask):
                    continue  # the masked value shown, sent back: unchanged
                stored[key] = value or ""
            account.credentials = secrets.seal(stored)
        account.save()


def connection_test(name: str) -> dict:
    courier = selectors.provider(name)
    return {"provider": name, "ok": True, "message": courier.test_connection()}


# --- Making vouchers -----------------------------------------------------------------------------


def _pickup_date(fields: dict):
    today = timezone.localdate()
    day = fields.get("pickup_date") or today
    if not today <= day <= today + timedelta(days=MAX_PICKUP_DAYS):
        raise invalid_params(
            {"pickup_date": f"From today to {MAX_PICKUP_DAYS} days ahead ({today} or later)."}
        )
    return day


def _order_weight(order: Order) -> Decimal | None:
    """The items' weight in kg (the variant's, else the product's); None when one is unknown."""
    unit = store_settings.get_value("general", "weight_unit")
    total = Decimal(0)
    for item in order.items.select_related("product", "variant"):
        weight = (item.variant and item.variant.weight) or (item.product and item.product.weight)
        if not weight:
            return None
        total += Decimal(weight) * item.quantity
    return (total * KG_PER_UNIT.get(unit, Decimal(1))).quantize(Decimal("0.001")) or None


def _recipient_of(order: Order) -> dict:
    shipping = Address.of(order.shipping_address)
    missing = shipping.missing(REQUIRED_ADDRESS)
    if missing:
        raise rule_broken(
            f"Order {order.pk} has no complete shipping address (missing: {', '.join(missing)}).",
            code="order_no_shipping_address",
            status=409,
        )
    billing = Address.of(order.billing_address)
    recipient = dict(order.shipping_address)
    for key in ("phone", "email"):
        if not recipient.get(key) and getattr(billing, key):
            recipient[key] = getattr(billing, key)
    return recipient


def _cod_default(order: Order) -> Decimal:
    if order.payment_method != "cash_on_delivery":
        return Decimal(0)
    return max(order.total - order.amount_paid, Decimal(0))


def _make(courier, account, parcel: Parcel, **links) -> Voucher:
    """Ask the courier for a voucher and keep it (called inside a transaction)."""
    created = courier.create(parcel)
    try:
        with transaction.atomic():
            return Voucher.objects.create(
                provider=courier.name,
                number=created.number,
                label=created.label,
                recipient=parcel.recipient,
                sender=parcel.sender,
                weight=parcel.weight,
                parcels=parcel.parcels,
                cod_amount=parcel.cod_amount,
                currency=parcel.currency,
                reference=parcel.reference,
                note=parcel.note,
                pickup_date=parcel.pickup_date,
                **links,
            )
    except Exception:
        _undo(courier, created.number)
        raise


def _undo(courier, number: str) -> None:
    try:
        courier.cancel(number)
    except ServiceError:
        log.warning(
            "courier %s: voucher %s made but not kept, and not cancelled", courier.name, number
        )


def _parcel(fields: dict, account: CourierAccount, *, recipient: dict, **defaults) -> Parcel:
    return Parcel(
        recipient=recipient,
        sender=account.sender or selectors.sender_default(),
        weight=fields.get("weight") or defaults.get("weight") or account.default_weight,
        parcels=fields.get("parcels") or 1,
        pickup_date=_pickup_date(fields),
        cod_amount=fields.get("cod_amount", defaults.get("cod_amount")) or Decimal(0),
        currency=defaults.get("currency") or selectors.store_currency(),
        reference=fields.get("reference") or defaults.get("reference") or "",
        note=fields.get("note") or "",
    )


@transaction.atomic
def voucher_create(*, provider: str, fields: dict, actor=None) -> Voucher:
    """A voucher for an order (`order_id`: as order_voucher_create) or for an address alone
    (`recipient`, complete)."""
    if fields.get("order_id"):
        return order_voucher_create(
            order_id=fields["order_id"], fields={**fields, "provider": provider}, actor=actor
        )
    courier, account = selectors.enabled_provider(provider)
    recipient = fields.get("recipient") or {}
    missing = Address.of(recipient).missing(REQUIRED_ADDRESS)
    if missing:
        raise invalid_params(
            {"recipient": f"Give order_id or a complete address (missing: {', '.join(missing)})."}
        )
    courier.ensure_configured()
    return _make(courier, account, _parcel(fields, account, recipient=recipient))


@transaction.atomic
def order_voucher_create(*, order_id: int, fields: dict, actor=None) -> Voucher:
    name = fields.get("provider") or "sandbox"
    courier, account = selectors.enabled_provider(name)
    order = Order.objects.select_for_update().filter(pk=order_id).first()
    if order is None:
        raise not_found("order", order_id)
    if order.status in TERMINAL:
        raise rule_broken(f"A {order.status} order ships nothing.", code="order_closed", status=409)
    recipient = _recipient_of(order)
    shipment = _shipment_for(order, fields.get("shipment_id"))
    courier.ensure_configured()
    parcel = _parcel(
        fields,
        account,
        recipient=recipient,
        weight=_order_weight(order),
        cod_amount=_cod_default(order),
        currency=order.currency,
        reference=order.order_number or str(order.pk),
    )
    voucher = _make(courier, account, parcel, order=order)
    try:
        tracking = {
            "carrier": courier.title,
            "service": courier.name,
            "tracking_number": voucher.number,
            "tracking_url": "",
        }
        with transaction.atomic():
            if shipment is None:
                shipment = order_services.shipment_create(
                    order_id=order.pk,
                    fields={"status": ShipmentStatus.PENDING, **tracking},
                    actor=actor,
                )
            else:
                order_services.shipment_update(
                    shipment_id=shipment.pk, fields=tracking, actor=actor
                )
    except Exception:
        _undo(courier, voucher.number)
        raise
    voucher.shipment = shipment
    voucher.save(update_fields=["shipment", "updated_at"])
    return voucher


def _shipment_for(order: Order, shipment_id: int | None) -> Shipment | None:
    """The shipment the voucher goes on: the one named (404 when it is another order's), else
    the order's latest open one without a tracking number; None: a new one."""
    if shipment_id:
        shipment = selectors.shipment_of_order(order.pk, shipment_id)
        if shipment.status in (ShipmentStatus.CANCELLED, ShipmentStatus.RETURNED):
            raise rule_broken(
                f"Shipment {shipment.pk} is {shipment.status}.", code="shipment_closed", status=409
            )
    else:
        shipment = (
            order.shipments.filter(
                status__in=(ShipmentStatus.PENDING, ShipmentStatus.SHIPPED), tracking_number=""
            )
            .order_by("-created_at", "-id")
            .first()
        )
    if shipment is not None:
        live = selectors.active_voucher_of(shipment.pk)
        if live is not None:
            raise rule_broken(
                f"Shipment {shipment.pk} already has voucher {live.number} ({live.status}); "
                "cancel it first.",
                code="voucher_exists",
                status=409,
            )
    return shipment


# --- Cancelling and tracking --------------------------------------------------------------------


def _locked(voucher_id: int) -> Voucher:
    voucher = Voucher.objects.select_for_update().filter(pk=voucher_id).first()
    if voucher is None:
        raise not_found("voucher", voucher_id)
    return voucher


def _is_current(voucher: Voucher) -> Shipment | None:
    """The voucher's shipment while the voucher is the one it tracks."""
    if voucher.shipment_id is None:
        return None
    shipment = Shipment.objects.filter(pk=voucher.shipment_id).first()
    if shipment is None or shipment.tracking_number != voucher.number:
        return None
    return shipment


@transaction.atomic
def voucher_cancel(*, voucher_id: int, actor=None, source=OrderSource.API) -> Voucher:
    voucher = _locked(voucher_id)
    if voucher.status == VoucherStatus.CANCELLED:
        raise rule_broken(
            f"Voucher {voucher.number} is already cancelled.", code="voucher_cancelled", status=409
        )
    if voucher.status != VoucherStatus.CREATED:
        raise rule_broken(
            f"Voucher {voucher.number} is {voucher.status}: only a voucher not yet collected "
            "can be cancelled.",
            code="voucher_not_cancellable",
            status=409,
        )
    selectors.provider(voucher.provider).cancel(voucher.number)
    voucher.status = VoucherStatus.CANCELLED
    voucher.cancelled_at = timezone.now()
    voucher.save(update_fields=["status", "cancelled_at", "updated_at"])
    shipment = _is_current(voucher)
    if shipment is not None:
        order_services.shipment_update(
            shipment_id=shipment.pk,
            fields={"tracking_number": "", "tracking_url": ""},
            actor=actor,
            source=source,
        )
    return voucher


def voucher_track(*, voucher_id: int, now=None, actor=None, source=OrderSource.API) -> Voucher:
    """Ask the courier where the voucher is (not for a cancelled one: answered as kept) and
    move the voucher, its shipment and the order's fulfilment status along. Running it twice
    changes nothing more."""
    voucher = selectors.voucher_by_id(voucher_id)
    if voucher.status == VoucherStatus.CANCELLED:
        return voucher
    now = now or timezone.now()
    tracking = selectors.provider(voucher.provider).track(
        voucher.number, created_at=voucher.created_at, now=now
    )
    return _apply_tracking(voucher.pk, tracking, now=now, actor=actor, source=source)


@transaction.atomic
def _apply_tracking(voucher_id: int, tracking, *, now, actor, source) -> Voucher:
    voucher = _locked(voucher_id)
    if voucher.status == VoucherStatus.CANCELLED:  # cancelled while the courier answered
        return voucher
    voucher.events = tracking.events
    voucher.status = tracking.status
    voucher.tracked_at = now
    if tracking.status == VoucherStatus.DELIVERED and voucher.delivered_at is None:
        voucher.delivered_at = tracking.delivered_at or now
    voucher.save(update_fields=["events", "status", "tracked_at", "delivered_at", "updated_at"])
    shipment = _is_current(voucher)
    wanted = SHIPMENT_STATUS.get(tracking.status)
    if shipment is not None and wanted and shipment.status != wanted:
        fields = {"status": wanted}
        if wanted == ShipmentStatus.DELIVERED:
            fields["delivered_at"] = voucher.delivered_at
        order_services.shipment_update(
            shipment_id=shipment.pk, fields=fields, actor=actor, source=source
        )
    return voucher


def refresh_tracking(*, limit: int = 200, stale_minutes: int = 30, now=None) -> int:
    """Track the open vouchers not tracked for `stale_minutes` (the beat's task, the command):
    each on its own; a courier that fails is tried again next time. Answers how many moved on."""
    now = now or timezone.now()
    done = 0
    for voucher_id in selectors.open_vouchers(
        tracked_before=now - timedelta(minutes=stale_minutes), limit=limit
    ):
        try:
            voucher_track(voucher_id=voucher_id, now=now, source=OrderSource.SYSTEM)
        except ServiceError as exc:
            log.warning("courier tracking of voucher %s failed: %s", voucher_id, exc)
            continue
        done += 1
    return done
