"""Reads of the courier app: settings, the provider a route names, vouchers, pickup lists,
labels."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from django.db.models import Count, Sum
from django.db.models.functions import Coalesce

from store.common.errors import not_found, rule_broken
from store.common.pagination import Page, paginate
from store.courier import secrets
from store.courier.models import OPEN_STATUSES, CourierAccount, Voucher, VoucherStatus
from store.courier.providers import PROVIDERS, provider_class
from store.courier.providers.base import CourierProvider
from store.orders.models import Order, Shipment
from store.settings import selectors as store_settings


def _labels():
    """The label drawing (reportlab), loaded with the first label drawn rather than with every
    process that loads the app (a fifth of a second of start-up)."""
    from store.courier import labels

    return labels


def account_of(name: str) -> CourierAccount:
    """A provider's settings row, or its defaults (unsaved) when it has none: the sandbox is
    enabled by default, the real couriers once configured."""
    cls = provider_class(name)
    account = CourierAccount.objects.filter(provider=name).first()
    return account or CourierAccount(provider=name, enabled=cls.sandbox)


def accounts() -> list[CourierAccount]:
    saved = {row.provider: row for row in CourierAccount.objects.all()}
    return [
        saved.get(name) or CourierAccount(provider=name, enabled=cls.sandbox)
        for name, cls in PROVIDERS.items()
    ]


def provider(name: str, account: CourierAccount | None = None) -> CourierProvider:
    """The provider a route names (404 `courier_provider_not_found`), with its credentials."""
    cls = provider_class(name)
    account = account or account_of(name)
    return cls(secrets.unseal(account.credentials))


def enabled_provider(name: str) -> tuple[CourierProvider, CourierAccount]:
    account = account_of(name)
    courier = provider(name, account)
    if not account.enabled:
        raise rule_broken(
            f"The {courier.title} courier is disabled (PATCH /courier/settings enables it).",
            code="courier_disabled",
            status=409,
        )
    return courier, account


def sender_default() -> dict:
    general = store_settings.get_section("general")
    return {"company": general["store_name"], "country": general["store_country"]}


def store_currency() -> str:
    return store_settings.get_value("currency", "currency")


def _vouchers():
    return Voucher.objects.select_related("order", "shipment")


def voucher_get(name: str, number: str) -> Voucher:
    provider_class(name)
    voucher = _vouchers().filter(provider=name, number=number).first()
    if voucher is None:
        raise not_found("voucher", number)
    return voucher


def voucher_by_id(voucher_id: int) -> Voucher:
    voucher = _vouchers().filter(pk=voucher_id).first()
    if voucher is None:
        raise not_found("voucher", voucher_id)
    return voucher


def order_get(order_id: int) -> Order:
    order = Order.objects.filter(pk=order_id).first()
    if order is None:
        raise not_found("order", order_id)
    return order


def shipment_of_order(order_id: int, shipment_id: int) -> Shipment:
    """The order's shipment (404 when the order or the shipment is not there, or the shipment
    is another order's)."""
    order_get(order_id)
    shipment = Shipment.objects.filter(pk=shipment_id, order_id=order_id).first()
    if shipment is None:
        raise not_found("shipment", shipment_id)
    return shipment


def shipment_voucher(order_id: int, shipment_id: int) -> Voucher:
    """The shipment's latest voucher (404 `voucher_not_found` when it has none)."""
    shipment = shipment_of_order(order_id, shipment_id)
    voucher = _vouchers().filter(shipment=shipment).order_by("-created_at", "-id").first()
    if voucher is None:
        raise not_found("voucher")
    return voucher


def active_voucher_of(shipment_id: int) -> Voucher | None:
    return (
        Voucher.objects.filter(shipment_id=shipment_id)
        .exclude(status=VoucherStatus.CANCELLED)
        .first()
    )


def _pickup(name: str, day: date):
    provider_class(name)
    return (
        _vouchers()
        .filter(provider=name, pickup_date=day)
        .exclude(status=VoucherStatus.CANCELLED)
        .order_by("id")
    )


def pickup_totals(name: str, day: date) -> dict:
    totals = _pickup(name, day).aggregate(
        vouchers=Count("id"),
        parcels=Coalesce(Sum("parcels"), 0),
        weight=Coalesce(Sum("weight"), Decimal(0)),
        cod_amount=Coalesce(Sum("cod_amount"), Decimal(0)),
    )
    return totals


def pickup_page(name: str, day: date, *, page: int, per_page: int) -> Page:
    return paginate(_pickup(name, day), page=page, per_page=per_page)


def pickup_list_pdf(*, provider_title: str, day: date, rows: list[dict], totals: dict) -> bytes:
    """The printable pickup list of a provider's day (store.courier.labels)."""
    return _labels().pickup_list_pdf(
        provider_title=provider_title, day=day, rows=rows, totals=totals
    )


def pickup_rows(name: str, day: date) -> list[Voucher]:
    return list(_pickup(name, day))


def open_vouchers(*, tracked_before: datetime, limit: int) -> list[int]:
    """Vouchers whose tracking may still change and was not read since `tracked_before`."""
    rows = Voucher.objects.filter(status__in=OPEN_STATUSES).exclude(tracked_at__gte=tracked_before)
    return list(rows.order_by("tracked_at", "id").values_list("id", flat=True)[:limit])


def label_of(voucher: Voucher) -> bytes:
    """The voucher's PDF label: the provider's own when it sent one, else drawn (the same
    label every time). A cancelled voucher has none (409 `voucher_cancelled`)."""
    if voucher.status == VoucherStatus.CANCELLED:
        raise rule_broken(
            f"Voucher {voucher.number} was cancelled; it has no label.",
            code="voucher_cancelled",
            status=409,
        )
    stored = bytes(voucher.label or b"")
    if stored:
        return stored
    return _labels().label_pdf(
        {
            "provider_title": provider_class(voucher.provider).title,
            "number": voucher.number,
            "sender": voucher.sender,
            "recipient": voucher.recipient,
            "weight": voucher.weight,
            "parcels": voucher.parcels,
            "cod_amount": voucher.cod_amount,
            "currency": voucher.currency,
            "reference": voucher.reference,
            "pickup_date": voucher.pickup_date.isoformat(),
        }
    )
