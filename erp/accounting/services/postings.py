"""The automatic postings of business events (an invoice issued, a payment or refund
recorded or deleted, goods received): each posted once per (source_type, source_id, kind)
after the commit of its change; a failure is recorded on its AutoPosting row and posted again
by event_retry.
"""

from __future__ import annotations

import logging
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation

from django.db import IntegrityError, transaction

from common.errors import ServiceError
from erp.accounting.choices import (
    AccountRole,
    EntryKind,
    FiscalYearStatus,
    PartnerType,
    PostingStatus,
    SourceType,
)
from erp.accounting.models import AutoPosting, FiscalYear, JournalEntry
from erp.accounting.services._shared import (
    NO_YEAR,
    _check_postable,
    _conflict,
    _line,
    _overlapping,
    _post,
    _write_lines,
)
from erp.accounting.services.chart import role_account
from store.common.errors import not_found
from store.common.money import money

logger = logging.getLogger(__name__)


def _next_year_after(year: FiscalYear) -> FiscalYear:
    """The first open year after a closed one (made, as long as the closed one, when none)."""
    later = (
        FiscalYear.objects.select_for_update()
        .filter(start_date__gt=year.end_date, status=FiscalYearStatus.OPEN)
        .order_by("start_date")
        .first()
    )
    if later is not None:
        return later
    start = year.end_date + timedelta(days=1)
    end = start + (year.end_date - year.start_date)
    return _year_made(start, end)


def _year_made(start: date, end: date) -> FiscalYear:
    if _overlapping(start, end).exists():
        raise _conflict(f"No open fiscal year can be made for {start} to {end}.", NO_YEAR)
    name = (
        str(start.year)
        if (start.month, start.day, end.year) == (1, 1, start.year)
        else (f"{start.isoformat()}")
    )
    if FiscalYear.objects.filter(name=name).exists():
        name = f"{start.isoformat()}-{end.isoformat()}"
    try:
        with transaction.atomic():
            return FiscalYear.objects.create(name=name, start_date=start, end_date=end)
    except IntegrityError:  # a concurrent event made it
        made = FiscalYear.objects.select_for_update().filter(start_date=start, end_date=end).first()
        if made is None:
            raise _conflict(
                f"No open fiscal year can be made for {start} to {end}.", NO_YEAR
            ) from None
        return made


def _auto_year(day: date) -> tuple[FiscalYear, date]:
    """Where an event of `day` is posted: its year (the calendar year made when no year holds
    the day); in a closed year, on the first day of the next open one."""
    year = (
        FiscalYear.objects.select_for_update()
        .filter(start_date__lte=day, end_date__gte=day)
        .first()
    )
    if year is None:
        year = _year_made(date(day.year, 1, 1), date(day.year, 12, 31))
    while year.status == FiscalYearStatus.CLOSED:
        year = _next_year_after(year)
        day = year.start_date
    return year, day


def _auto_post(posting: AutoPosting, event: dict) -> JournalEntry | None:
    day = date.fromisoformat(event["date"])
    lines, reference, memo = BUILDERS[(posting.source_type, posting.kind)](event)
    lines = [line for line in lines if line["debit"] > 0 or line["credit"] > 0]
    if not lines:
        return None
    year, day = _auto_year(day)
    entry = JournalEntry.objects.create(
        date=day,
        kind=EntryKind.AUTOMATIC,
        reference=reference[:100],
        memo=memo[:500],
        source_type=posting.source_type,
        source_id=posting.source_id,
    )
    _write_lines(entry, lines)
    _check_postable(entry)
    _post(entry, year)
    return entry


def _posting_row(source_type: str, source_id: str, kind: str, event: dict) -> AutoPosting:
    key = {"source_type": source_type, "source_id": source_id, "kind": kind}
    row = AutoPosting.objects.select_for_update().filter(**key).first()
    if row is not None:
        return row
    try:
        with transaction.atomic():
            return AutoPosting.objects.create(
                **key, status=PostingStatus.FAILED, payload=event, error="Not posted yet."
            )
    except IntegrityError:  # a concurrent delivery made it
        return AutoPosting.objects.select_for_update().get(**key)


def event_post(*, source_type: str, source_id, kind: str, event: dict) -> AutoPosting:
    """Post one business event once: a repeated event answers its row and posts nothing. A
    refusal (a missing role account, no year can be made) leaves the row `failed` with its
    error; event_retry posts it again."""
    source_id = str(source_id)
    try:
        with transaction.atomic():
            row = _posting_row(source_type, source_id, kind, event)
            if row.status == PostingStatus.POSTED:
                return row
            entry = _auto_post(row, event)
            row.status, row.entry, row.error = PostingStatus.POSTED, entry, ""
            row.payload = event
            row.attempts += 1
            row.save()
            return row
    except (ServiceError, KeyError, ValueError, InvalidOperation, OverflowError) as exc:
        logger.warning("accounting: %s:%s:%s not posted: %s", source_type, source_id, kind, exc)
        with transaction.atomic():
            row = _posting_row(source_type, source_id, kind, event)
            if row.status != PostingStatus.POSTED:
                row.status, row.error = PostingStatus.FAILED, str(exc)[:500]
                row.payload = event
                row.attempts += 1
                row.save()
            return row


def event_retry(*, posting_id: int) -> AutoPosting:
    """Post a failed event again (the admin's action); a posted one is left as it is."""
    row = AutoPosting.objects.filter(pk=posting_id).first()
    if row is None:
        raise not_found("auto_posting", posting_id)
    return event_post(
        source_type=row.source_type, source_id=row.source_id, kind=row.kind, event=row.payload
    )


def _amount(event: dict, name: str) -> Decimal:
    return money(Decimal(str(event.get(name) or "0")))


def _invoice_lines(event: dict):
    gross, vat = _amount(event, "gross_total"), _amount(event, "vat_total")
    net = gross - vat
    partner = {
        "partner_type": PartnerType.CUSTOMER if event.get("customer_id") else "",
        "partner_id": event.get("customer_id"),
        "partner_name": (event.get("counterpart_name") or "")[:200],
        "due_date": date.fromisoformat(event["date"]),
    }
    receivable = role_account(AccountRole.RECEIVABLE).pk
    sales = role_account(AccountRole.SALES).pk
    lines = []
    if event.get("is_credit"):
        lines.append(_line(sales, debit=net, description="Sales returned"))
        if vat:
            lines.append(
                _line(role_account(AccountRole.VAT_PAYABLE).pk, debit=vat, description="VAT")
            )
        lines.append(_line(receivable, credit=gross, **partner))
    else:
        lines.append(_line(receivable, debit=gross, **partner))
        lines.append(_line(sales, credit=net, description="Sales"))
        if vat:
            lines.append(
                _line(role_account(AccountRole.VAT_PAYABLE).pk, credit=vat, description="VAT")
            )
    kind = "Credit note" if event.get("is_credit") else "Invoice"
    return lines, _reference(event), f"{kind} {event.get('number', '')}"


def _reference(event: dict) -> str:
    """Receivables are matched by order (an invoice, its credit notes and the order's
    payments share `order:<id>`), else by the invoice."""
    if event.get("order_id"):
        return f"order:{event['order_id']}"
    return f"invoice:{event.get('corrects_id') or event.get('invoice_id')}"


def _payment_lines(event: dict, *, refund: bool):
    amount = _amount(event, "amount")
    partner = {
        "partner_type": PartnerType.CUSTOMER if event.get("customer_id") else "",
        "partner_id": event.get("customer_id"),
        "partner_name": (event.get("customer_name") or "")[:200],
        "due_date": date.fromisoformat(event["date"]),
    }
    bank = role_account(AccountRole.BANK).pk
    receivable = role_account(AccountRole.RECEIVABLE).pk
    if refund:
        # The refund's credit note (erp.invoicing, for an order with an issued invoice) credits
        # the receivable back: together, Dr sales and VAT / Cr bank.
        lines = [_line(receivable, debit=amount, **partner), _line(bank, credit=amount)]
    else:
        lines = [_line(bank, debit=amount), _line(receivable, credit=amount, **partner)]
    what = "Refund" if refund else "Payment"
    return lines, f"order:{event['order_id']}", f"{what} on order {event.get('order_number', '')}"


def _payment_deleted_lines(event: dict):
    lines, reference, memo = _payment_lines(event, refund=event.get("kind") != "refund")
    return lines, reference, f"Deleted: {memo}"


def _goods_received_lines(event: dict):
    amount = _amount(event, "amount")
    day = date.fromisoformat(event["date"])
    partner = {
        "partner_type": PartnerType.SUPPLIER,
        "partner_id": event.get("supplier_id"),
        "partner_name": (event.get("supplier_name") or "")[:200],
        "due_date": day + timedelta(days=int(event.get("payment_terms_days") or 0)),
    }
    lines = [
        _line(role_account(AccountRole.INVENTORY).pk, debit=amount, description="Goods received"),
        _line(role_account(AccountRole.PAYABLE).pk, credit=amount, **partner),
    ]
    return (
        lines,
        f"grn:{event['note_id']}",
        f"Goods received {event.get('number', '')} ({event.get('purchase_order_number', '')})",
    )


BUILDERS = {
    (SourceType.INVOICE, "issued"): _invoice_lines,
    (SourceType.PAYMENT, "payment"): lambda e: _payment_lines(e, refund=False),
    (SourceType.PAYMENT, "refund"): lambda e: _payment_lines(e, refund=True),
    (SourceType.PAYMENT, "deleted"): _payment_deleted_lines,
    (SourceType.GOODS_RECEIVED, "received"): _goods_received_lines,
}


def invoice_issued(event: dict) -> AutoPosting:
    return event_post(
        source_type=SourceType.INVOICE, source_id=event["invoice_id"], kind="issued", event=event
    )


def payment_recorded(event: dict) -> AutoPosting:
    """A payment or refund posts once; a deleted one that was posted is posted back once."""
    if event.get("deleted"):
        posted = AutoPosting.objects.filter(
            source_type=SourceType.PAYMENT,
            source_id=str(event["payment_id"]),
            status=PostingStatus.POSTED,
        ).exclude(kind="deleted")
        if not posted.exists():
            return None
        kind = "deleted"
    else:
        kind = "refund" if event.get("kind") == "refund" else "payment"
    return event_post(
        source_type=SourceType.PAYMENT, source_id=event["payment_id"], kind=kind, event=event
    )


def goods_received(event: dict) -> AutoPosting:
    return event_post(
        source_type=SourceType.GOODS_RECEIVED,
        source_id=event["note_id"],
        kind="received",
        event=event,
    )
