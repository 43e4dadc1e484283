"""Marketplace sync: every write of the app (the webhook, the import, the actions, settings).

- `webhook_receive` verifies a marketplace's notification (its signature, then its payload),
  records it once per (marketplace, event id) and enqueues its processing through the outbox
  (published at commit; kept and published later while the broker is down). A replay answers
  the first event's outcome and changes nothing.
- `event_process` (the worker's task) imports a new order as a store order through
  store.orders.services.order_create (its rules, totals and stock), once per (marketplace,
  order code): a unique row locked for the import. An order whose lines do not all match a
  product or variant by SKU, or that the store refuses (stock, address), is recorded as failed
  with the reason, with nothing of it created; `order_import_retry` imports it again. A
  cancellation cancels the store order with order_status_set (its stock comes back).
- `order_acknowledge`, `order_reject`, `order_ship` call the marketplace (store.marketplace.
  client) under the marketplace order's lock, so a repeated or concurrent call answers the first
  and calls the marketplace once; shipping records the store shipment (shipment_create).
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from common import net, outbox
from common.errors import ServiceError
from common.jsonload import loads
from store.catalog.models import Product, Variant
from store.common.errors import not_found, rule_broken
from store.common.problems import Problems
from store.marketplace import client, secrets, selectors
from store.marketplace.models import (
    EventStatus,
    ImportStatus,
    MarketplaceAccount,
    MarketplaceEvent,
    MarketplaceOrder,
)
from store.marketplace.providers import PROVIDERS, provider_class
from store.marketplace.providers.base import (
    NEW_ORDER,
    ORDER_UPDATED,
    SIGNATURE_HEADER,
    ParsedLine,
    ParsedOrder,
    invalid_payload,
    verify,
)
from store.orders import services as order_services
from store.orders.choices import TERMINAL, OrderSource, OrderStatus, PaymentKind
from store.orders.models import Order

logger = logging.getLogger(__name__)

PROCESS_TASK = "store_marketplace.process_event"
SOURCE = OrderSource.MARKETPLACE
#: An event the worker failed on (an unexpected error) is tried again this many times in all.
MAX_ATTEMPTS = 5
#: The order statuses an imported order may get (not a terminal one: it holds its stock).
IMPORT_STATUSES = (OrderStatus.PENDING, OrderStatus.ON_HOLD, OrderStatus.PROCESSING)
MIN_SECRET_LENGTH = 16


# --- The webhook ----------------------------------------------------------------------------------


def _too_large() -> ServiceError:
    limit = settings.MARKETPLACE_WEBHOOK_MAX_BYTES
    return rule_broken(
        f"The body is larger than {limit} bytes.", code="payload_too_large", status=413
    )


def check_length(content_length) -> None:
    """413 `payload_too_large` before the body is read, when its declared length is too big."""
    try:
        length = int(content_length or 0)
    except (TypeError, ValueError):
        return
    if length > settings.MARKETPLACE_WEBHOOK_MAX_BYTES:
        raise _too_large()


def event_answer(row: MarketplaceEvent, *, replayed: bool) -> dict:
    return {
        "received": True,
        "replayed": replayed,
        "marketplace": row.marketplace,
        "event_id": row.event_id,
        "type": row.type,
        "order_code": row.order_code,
        "status": row.status,
        "outcome": row.outcome,
    }


def webhook_receive(*, marketplace: str, body: bytes, headers) -> dict:
    """Verify, record and enqueue a marketplace's notification; answer what became of it.

    404 `marketplace_not_found` for a marketplace unknown or not enabled (the same answer, so
    a caller learns nothing of the settings); 413 `payload_too_large`; 401 `invalid_signature`
    (no secret set, no or a malformed header, another secret, outside the tolerance); 400
    `invalid_payload` for a body that is not the marketplace's JSON (checked after the
    signature). A replay (the same event id) is answered with the first's outcome.
    """
    account = None
    if marketplace in PROVIDERS:
        account = MarketplaceAccount.objects.filter(marketplace=marketplace, enabled=True).first()
    if account is None:
        raise not_found("marketplace", marketplace)
    if len(body) > settings.MARKETPLACE_WEBHOOK_MAX_BYTES:
        raise _too_large()
    verify(body, headers.get(SIGNATURE_HEADER, ""), selectors.webhook_secret(account))
    try:
        payload = loads(body)
        # A number too large for a float (1e400) reads as infinity, which no JSON column
        # stores: refused here, before anything is written.
        json.dumps(payload, allow_nan=False)
    except ValueError as exc:
        raise invalid_payload({"body": [str(exc)[:200]]}) from exc
    event = provider_class(marketplace)().parse(payload, headers)
    with transaction.atomic():
        try:
            with transaction.atomic():
                row = MarketplaceEvent.objects.create(
                    marketplace=marketplace,
                    event_id=event.event_id,
                    type=event.type,
                    order_code=event.order.code if event.order else "",
                    payload=payload,
                )
        except IntegrityError:
            row = MarketplaceEvent.objects.get(marketplace=marketplace, event_id=event.event_id)
            return event_answer(row, replayed=True)
        outbox.enqueue(PROCESS_TASK, args=(row.pk,), dedupe_key=f"{PROCESS_TASK}:{row.pk}")
    row.refresh_from_db()  # processed already when the worker runs eagerly (development, tests)
    return event_answer(row, replayed=False)


# --- Processing (the worker) -------------------------------------------------------------------


def event_process(*, event_pk: int) -> str:
    """Act on a recorded event once: answers its outcome. Running it again changes nothing.

    An unexpected error leaves the event `failed` with the error (retried by
    `process_pending` up to MAX_ATTEMPTS times in all); the import's own refusals are not
    errors (the marketplace order records them).
    """
    try:
        with transaction.atomic():
            row = MarketplaceEvent.objects.select_for_update().filter(pk=event_pk).first()
            if row is None or row.status == EventStatus.PROCESSED:
                return row.outcome if row else "missing"
            outcome, imported = _apply(row)
            row.status = EventStatus.PROCESSED
            row.outcome = outcome
            row.error = ""
            row.attempts += 1
            row.processed_at = timezone.now()
            row.save(update_fields=["status", "outcome", "error", "attempts", "processed_at"])
    except Exception as exc:
        logger.exception("marketplace event %s failed", event_pk)
        MarketplaceEvent.objects.filter(pk=event_pk).exclude(status=EventStatus.PROCESSED).update(
            status=EventStatus.FAILED,
            error=f"{exc.__class__.__name__}: {exc}"[:500],
            attempts=F("attempts") + 1,
        )
        raise
    if imported is not None:
        _auto_acknowledge(imported)
    return outcome


def _apply(row: MarketplaceEvent) -> tuple[str, MarketplaceOrder | None]:
    """(outcome, the marketplace order imported now, for the auto-acknowledgement)."""
    event = provider_class(row.marketplace)().parse(row.payload, {})  # the id is kept
    if event.kind not in (NEW_ORDER, ORDER_UPDATED) or event.order is None:
        return "ignored", None
    account = selectors.account_of(row.marketplace)
    parsed = event.order
    order_row, created = _order_row(row.marketplace, parsed)
    if created:
        if parsed.cancelled:  # sold and cancelled before we saw it: nothing to import
            _failure(order_row, "cancelled_before_import", "Cancelled at the marketplace first.")
            order_row.save()
            return "ignored", None
        _import(order_row, account)
        if order_row.import_status == ImportStatus.IMPORTED:
            return "imported", order_row
        return "import_failed", None
    if event.kind == NEW_ORDER:
        return "duplicate", None
    # An update of an order we know: its state, and a cancellation's effect.
    was_cancelled = _closed(order_row)
    order_row.state = parsed.state
    order_row.data = {**parsed.data(), "lines": order_row.data.get("lines", [])}
    order_row.save(update_fields=["state", "data", "updated_at"])
    if not parsed.cancelled:
        return "updated", None
    if was_cancelled:
        return "duplicate", None
    if order_row.order_id is None:
        return "cancelled", None
    title = provider_class(order_row.marketplace).title
    try:
        with transaction.atomic():
            order_services.order_status_set(
                order_id=order_row.order_id,
                status=OrderStatus.CANCELLED,
                note=f"Cancelled at {title} ({parsed.state}).",
                source=SOURCE,
            )
            _refund_collected(order_row, title)
    except ServiceError as exc:
        logger.warning("marketplace order %s: cancel refused: %s", order_row.pk, exc.detail)
        return "cancel_refused", None
    return "cancelled", None


def _record_collected(order, order_row: MarketplaceOrder, title: str, *, actor=None) -> None:
    """The marketplace collected the buyer's money (Smart Cart and the generic channel sell as
    the marketplace): the store order is paid, in full, by the marketplace."""
    if order.total > 0:
        order_services.payment_create(
            order_id=order.pk,
            fields={
                "amount": order.total,
                "method": f"marketplace_{order_row.marketplace}",
                "transaction_id": order_row.code[:200],
                "note": f"Collected by {title} (order {order_row.code}).",
            },
            actor=actor,
            source=SOURCE,
        )


def _refund_collected(order_row: MarketplaceOrder, title: str, *, actor=None) -> None:
    """A cancelled or rejected marketplace order: the marketplace gives the buyer back what it
    collected, so what the order shows as paid is refunded (nothing when nothing is paid)."""
    paid, refunded = (
        Order.objects.filter(pk=order_row.order_id)
        .values_list("amount_paid", "amount_refunded")
        .get()
    )
    owed = paid - refunded
    if owed > 0:
        order_services.payment_create(
            order_id=order_row.order_id,
            fields={
                "kind": PaymentKind.REFUND,
                "amount": owed,
                "method": f"marketplace_{order_row.marketplace}",
                "transaction_id": order_row.code[:200],
                "note": f"Refunded by {title} (order {order_row.code} cancelled).",
            },
            actor=actor,
            source=SOURCE,
        )


def _closed(order_row: MarketplaceOrder) -> bool:
    cls = provider_class(order_row.marketplace)
    return order_row.rejected_at is not None or order_row.state in cls.cancelled_states


def _order_row(marketplace: str, parsed: ParsedOrder) -> tuple[MarketplaceOrder, bool]:
    """The marketplace order of `parsed`, locked; made now (True) when there was none. Made
    at most once: a concurrent maker waits on the unique (marketplace, code), then finds it."""
    lookup = {"marketplace": marketplace, "code": parsed.code}
    found = MarketplaceOrder.objects.select_for_update().filter(**lookup).first()
    if found is not None:
        return found, False
    try:
        with transaction.atomic():
            row = MarketplaceOrder.objects.create(
                **lookup,
                state=parsed.state,
                import_status=ImportStatus.FAILED,
                failure_code="not_imported",
                data=parsed.data(),
                currency=parsed.currency,
                total=parsed.total,
            )
    except IntegrityError:
        return MarketplaceOrder.objects.select_for_update().get(**lookup), False
    return row, True


def _items(lines: list[ParsedLine], problems: Problems) -> list[dict]:
    """Order items of the marketplace's lines, matched by SKU: a variant's, a product's, or
    (digits) a product id. Three queries whatever the number of lines."""
    skus = {line.sku for line in lines}
    variants = {v.sku: v for v in Variant.objects.filter(sku__in=skus)}
    products = {p.sku: p for p in Product.objects.filter(sku__in=skus)}
    ids = {int(sku) for sku in skus if sku.isdigit() and len(sku) < 18}
    by_id = {p.pk: p for p in Product.objects.filter(pk__in=ids)} if ids else {}
    items = []
    for index, line in enumerate(lines):
        entry = {
            "quantity": line.quantity,
            "price": line.unit_price,
            "title": line.title[:255],
            "sku": line.sku,
        }
        if line.sku in variants:
            variant = variants[line.sku]
            entry.update(product_id=variant.product_id, variant_id=variant.pk)
        elif line.sku in products:
            entry["product_id"] = products[line.sku].pk
        elif line.sku.isdigit() and int(line.sku) in by_id:
            entry["product_id"] = int(line.sku)
        else:
            problems.add(f"lines.{index}.sku", f"No product or variant has SKU {line.sku!r}.")
            continue
        items.append(entry)
    return items


def _failure(order_row: MarketplaceOrder, code: str, message: str) -> None:
    order_row.import_status = ImportStatus.FAILED
    order_row.failure_code = code[:40]
    order_row.failure_message = message[:1000]


def _describe(exc: ServiceError) -> str:
    if exc.errors:
        named = "; ".join(
            f"{name}: {' '.join(map(str, msgs))}" for name, msgs in exc.errors.items()
        )
        return f"{exc.detail} ({named})"
    return str(exc.detail)


def _import(order_row: MarketplaceOrder, account: MarketplaceAccount, *, actor=None) -> None:
    """Make the store order of a locked marketplace order, all or nothing; a refusal is kept
    on the row (import_status failed, failure_code, failure_message)."""
    parsed = ParsedOrder.of(order_row.data)
    title = provider_class(order_row.marketplace).title
    order_row.import_attempts += 1
    problems = Problems()
    items = _items(parsed.lines, problems)
    if problems.errors:
        message = "; ".join(f"{n}: {' '.join(m)}" for n, m in problems.errors.items())
        _failure(order_row, "unknown_sku", f"Lines not matched by SKU: {message}")
    else:
        try:
            with transaction.atomic():
                order = order_services.order_create(
                    items=items,
                    status=account.order_status,
                    currency=parsed.currency,
                    billing_address=parsed.billing_address,
                    shipping_address=parsed.shipping_address,
                    payment_method=f"marketplace_{order_row.marketplace}",
                    payment_method_title=f"Paid on {title}",
                    shipping_method=account.shipping_method,
                    shipping_method_title=account.shipping_method_title or title,
                    shipping_total=parsed.shipping_total,
                    customer_note=parsed.note,
                    admin_note=f"{title} order {parsed.code}.",
                    actor=actor,
                    source=SOURCE,
                )
                _record_collected(order, order_row, title, actor=actor)
        except ServiceError as exc:
            _failure(order_row, exc.code, _describe(exc))
        else:
            order_row.order = order
            order_row.import_status = ImportStatus.IMPORTED
            order_row.failure_code = ""
            order_row.failure_message = ""
    order_row.save()


def _auto_acknowledge(order_row: MarketplaceOrder) -> None:
    account = selectors.account_of(order_row.marketplace)
    if not account.auto_acknowledge:
        return
    try:
        order_acknowledge(marketplace_order_id=order_row.pk)
    except ServiceError as exc:  # kept unacknowledged: staff acknowledge it by hand
        logger.warning("marketplace order %s: auto-acknowledge failed: %s", order_row.pk, exc)


def process_pending(*, limit: int = 100, older_than_seconds: int = 120) -> int:
    """Process the events the worker has not (a task lost, a failure): pending ones older
    than `older_than_seconds`, failed ones tried fewer than MAX_ATTEMPTS times. Answers how
    many were processed now."""
    since = timezone.now() - timedelta(seconds=older_than_seconds)
    pending = MarketplaceEvent.objects.filter(status=EventStatus.PENDING, received_at__lt=since)
    failed = MarketplaceEvent.objects.filter(status=EventStatus.FAILED, attempts__lt=MAX_ATTEMPTS)
    ids = list(
        (pending | failed).order_by("received_at", "id").values_list("pk", flat=True)[:limit]
    )
    done = 0
    for pk in ids:
        try:
            event_process(event_pk=pk)
        except Exception:  # noqa: BLE001, S112 - logged and recorded on the event; the rest run
            continue
        done += 1
    return done


# --- Staff actions -----------------------------------------------------------------------------


def _locked(pk: int) -> MarketplaceOrder:
    row = MarketplaceOrder.objects.select_for_update().filter(pk=pk).first()
    if row is None:
        raise not_found("marketplace_order", pk)
    return row


def _check_open(order_row: MarketplaceOrder) -> None:
    if _closed(order_row):
        raise rule_broken(
            f"The marketplace order is {order_row.state}.",
            code="marketplace_order_closed",
            status=409,
        )


def _check_imported(order_row: MarketplaceOrder) -> None:
    if order_row.import_status != ImportStatus.IMPORTED or order_row.order_id is None:
        raise rule_broken(
            "The marketplace order has no store order (its import failed: "
            f"{order_row.failure_code}); fix it and POST .../import.",
            code="marketplace_order_not_imported",
            status=409,
        )


@transaction.atomic
def order_acknowledge(
    *, marketplace_order_id: int, options: dict | None = None, actor=None
) -> MarketplaceOrder:
    """Accept the order at the marketplace, once: again (or concurrently) answers the first.
    409 `marketplace_order_closed` (cancelled or rejected), `marketplace_order_not_imported`;
    502 `marketplace_unavailable` (nothing changed)."""
    row = _locked(marketplace_order_id)
    if row.acknowledged_at is not None:
        return row
    _check_open(row)
    _check_imported(row)
    parsed = ParsedOrder.of(row.data)
    provider = selectors.provider(row.marketplace)
    client.call(
        provider,
        action="acknowledge",
        order=parsed,
        request=provider.acknowledge_request(parsed, options or {}),
    )
    row.acknowledged_at = timezone.now()
    row.state = "accepted"
    row.save(update_fields=["acknowledged_at", "state", "updated_at"])
    return row


@transaction.atomic
def order_reject(*, marketplace_order_id: int, reason: str, actor=None) -> MarketplaceOrder:
    """Refuse the order at the marketplace and cancel its store order (its stock comes back).
    Again answers the first. 409 `marketplace_order_acknowledged` once accepted or shipped,
    `marketplace_order_closed` once cancelled there."""
    row = _locked(marketplace_order_id)
    if row.rejected_at is not None:
        return row
    _check_open(row)
    if row.acknowledged_at is not None or row.shipped_at is not None:
        raise rule_broken(
            "The order was accepted at the marketplace; it can no longer be rejected.",
            code="marketplace_order_acknowledged",
            status=409,
        )
    parsed = ParsedOrder.of(row.data)
    provider = selectors.provider(row.marketplace)
    if row.order_id is not None and row.order.status not in TERMINAL:
        order_services.order_status_set(
            order_id=row.order_id,
            status=OrderStatus.CANCELLED,
            note=f"Rejected at {provider.title}: {reason}",
            actor=actor,
            source=SOURCE,
        )
        _refund_collected(row, provider.title, actor=actor)
    client.call(
        provider, action="reject", order=parsed, request=provider.reject_request(parsed, reason)
    )
    row.rejected_at = timezone.now()
    row.reject_reason = reason
    row.state = "rejected"
    row.save(update_fields=["rejected_at", "reject_reason", "state", "updated_at"])
    return row


@transaction.atomic
def order_ship(
    *,
    marketplace_order_id: int,
    tracking_number: str,
    carrier: str,
    tracking_url: str = "",
    actor=None,
) -> MarketplaceOrder:
    """Record the store shipment (shipment_create: every unit not yet shipped) and tell the
    marketplace. Again with the same tracking number answers the first; another is 409
    `marketplace_order_shipped`."""
    row = _locked(marketplace_order_id)
    if row.shipped_at is not None:
        if row.tracking_number == tracking_number:
            return row
        raise rule_broken(
            f"The order was shipped already, with tracking number {row.tracking_number!r}.",
            code="marketplace_order_shipped",
            status=409,
        )
    _check_open(row)
    _check_imported(row)
    order_services.shipment_create(
        order_id=row.order_id,
        fields={
            "carrier": carrier,
            "tracking_number": tracking_number,
            "tracking_url": tracking_url,
        },
        actor=actor,
        source=SOURCE,
    )
    parsed = ParsedOrder.of(row.data)
    provider = selectors.provider(row.marketplace)
    request = provider.ship_request(parsed, tracking_number, carrier)
    if request is not None:
        client.call(provider, action="ship", order=parsed, request=request)
    row.shipped_at = timezone.now()
    row.tracking_number = tracking_number
    row.carrier = carrier
    row.save(update_fields=["shipped_at", "tracking_number", "carrier", "updated_at"])
    return row


def order_import_retry(*, marketplace_order_id: int, actor=None) -> MarketplaceOrder:
    """Import a failed marketplace order again (after its products or stock were fixed); the
    outcome is kept on the row either way. 409 `marketplace_order_imported` when it has its
    store order, `marketplace_order_closed` when cancelled or rejected."""
    with transaction.atomic():
        row = _locked(marketplace_order_id)
        if row.import_status == ImportStatus.IMPORTED:
            raise rule_broken(
                "The marketplace order was imported already.",
                code="marketplace_order_imported",
                status=409,
            )
        _check_open(row)
        _import(row, selectors.account_of(row.marketplace), actor=actor)
    if row.import_status == ImportStatus.IMPORTED:
        _auto_acknowledge(row)
    return row


# --- Settings ------------------------------------------------------------------------------------


@transaction.atomic
def settings_update(*, changes: dict[str, dict]) -> None:
    """Per marketplace: `enabled`, `webhook_secret` (at least 16 characters; "" removes it),
    `credentials` (only the names sent change; "" removes one), `auto_acknowledge`,
    `order_status`, `shipping_method`, `shipping_method_title`. A marketplace cannot be
    enabled without a webhook secret (400 `webhook_secret_required`). A credential named
    `*_url` is an address the server calls: it must be https:// and public (common.net; 400
    naming it, with one message whatever the host is or resolves to). All or nothing."""
    problems = Problems()
    credentials = {name: dict(fields.get("credentials") or {}) for name, fields in changes.items()}
    # The addresses first, before any row is locked: resolving a name may take a while.
    for name, given in credentials.items():
        known = provider_class(name).credential_fields
        for key, value in given.items():
            if key in known and key.endswith("_url") and value:
                try:
                    given[key] = net.check_url(value, reveal=False).url
                except net.UrlNotAllowed as exc:
                    problems.add(f"{name}.credentials.{key}", str(exc))
    rows = {}
    for name, fields in changes.items():
        cls = provider_class(name)
        unknown = set(credentials[name]) - set(cls.credential_fields)
        for key in sorted(unknown):
            problems.add(f"{name}.credentials.{key}", f"{cls.title} takes no {key}.")
        if "order_status" in fields and fields["order_status"] not in IMPORT_STATUSES:
            problems.add(f"{name}.order_status", "pending, on_hold or processing.")
        secret = fields.get("webhook_secret")
        if secret and len(secret) < MIN_SECRET_LENGTH:
            problems.add(
                f"{name}.webhook_secret", f'At least {MIN_SECRET_LENGTH} characters (or "").'
            )
        row = MarketplaceAccount.objects.select_for_update().filter(marketplace=name).first()
        row = row or MarketplaceAccount(marketplace=name)
        rows[name] = row
        has_secret = (
            bool(secret) if "webhook_secret" in fields else bool(selectors.webhook_secret(row))
        )
        if fields.get("enabled", row.enabled) and not has_secret:
            problems.add(
                f"{name}.webhook_secret",
                "A marketplace is enabled only with a webhook secret.",
                code="webhook_secret_required",
            )
    problems.raise_if_any()
    for name, fields in changes.items():
        row = rows[name]
        for key in (
            "enabled",
            "auto_acknowledge",
            "order_status",
            "shipping_method",
            "shipping_method_title",
        ):
            if key in fields:
                setattr(row, key, fields[key])
        if "webhook_secret" in fields:
            row.webhook_secret = secrets.seal({"secret": fields["webhook_secret"] or ""})
        if "credentials" in fields:
            stored = secrets.unseal(row.credentials)
            for key, value in credentials[name].items():
                stored[key] = value or ""
            row.credentials = secrets.seal(stored)
        row.save()
