"""Drafts: made, changed while they are drafts, deleted (an issued document never is: it is
cancelled by a credit note). Their lines' amounts and totals are computed here, never taken
from the caller.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction

from common.errors import ServiceError
from erp.invoicing import selectors
from erp.invoicing.choices import CREDIT_TYPES, EXEMPT_CATEGORY, InvoiceStatus
from erp.invoicing.models import Invoice, InvoiceSeries
from erp.invoicing.services._shared import NOT_DRAFT, _conflict, _invoice_for_update, _write_lines
from store.common.accounts import logged_in
from store.common.addresses import Address
from store.common.problems import Problems
from store.customers.models import Customer
from store.tax import selectors as tax_selectors


def _check_lines(lines: list[dict], problems: Problems) -> None:
    for index, line in enumerate(lines):
        where = f"lines.{index}"
        gross = Decimal(line["quantity"]) * Decimal(line["unit_price"])
        if Decimal(line.get("discount") or 0) > gross:
            problems.add(f"{where}.discount", "The discount exceeds quantity x unit price.")
        category = line["vat_category"]
        if line.get("vat_exemption") and category != EXEMPT_CATEGORY:
            problems.add(
                f"{where}.vat_exemption",
                f"Only 0% lines (VAT category {EXEMPT_CATEGORY}) take an exemption category.",
            )


def _check_counterpart(fields: dict, problems: Problems) -> None:
    vat_number = fields.get("counterpart_vat_number")
    if not vat_number:
        return
    country = fields.get("counterpart_country") or ""
    if country and country not in tax_selectors.eu_countries():
        return  # a third country's tax number: kept as given
    try:
        fields["counterpart_vat_number"] = tax_selectors.vat_number_clean(
            vat_number, name="counterpart_vat_number"
        )
    except ServiceError as exc:  # the store's 400, named
        problems.extend(exc.errors or {"counterpart_vat_number": [exc.detail]})


def _draft_fields(fields: dict, problems: Problems, *, creating: bool) -> dict:
    fields = dict(fields)
    if "series_id" in fields or creating:
        series_id = fields.pop("series_id", None)
        if series_id is None:
            series = selectors.settings_row().default_series
            if series is None:
                problems.add("series_id", "Give a series (or set the default series).")
        else:
            series = InvoiceSeries.objects.filter(pk=series_id).first()
            if series is None:
                problems.add("series_id", f"No invoice series with id {series_id}.")
        if series is not None:
            if not series.active:
                problems.add("series_id", f"The series {series.code} is not active.")
            if series.document_type in CREDIT_TYPES:
                problems.add(
                    "series_id",
                    "Credit notes are made by POST /invoices/{id}/cancel, not as drafts.",
                )
            fields["series"] = series
            fields["document_type"] = series.document_type
    if "customer_id" in fields:
        customer_id = fields.pop("customer_id")
        customer = Customer.objects.filter(pk=customer_id).first() if customer_id else None
        if customer_id and customer is None:
            problems.add("customer_id", f"No customer with id {customer_id}.")
        fields["customer"] = customer
        if customer is not None and not fields.get("counterpart_name"):
            fields["counterpart_name"] = customer.company or " ".join(
                filter(None, (customer.first_name, customer.last_name))
            )
    if "billing_address" in fields:
        fields["billing_address"] = Address.of(fields["billing_address"] or {}).stored()
        if not fields.get("counterpart_country") and fields["billing_address"].get("country"):
            fields["counterpart_country"] = fields["billing_address"]["country"]
    _check_counterpart(fields, problems)
    if "lines" in fields:
        _check_lines(fields["lines"], problems)
    return fields


@transaction.atomic
def invoice_create(*, fields: dict, user=None) -> Invoice:
    """A draft: its series (default: the settings' default series), counterpart, currency,
    payment method and lines (each with its VAT category); totals are computed."""
    problems = Problems()
    fields = _draft_fields(fields, problems, creating=True)
    problems.raise_if_any()
    lines = fields.pop("lines", [])
    invoice = Invoice.objects.create(created_by=logged_in(user), **fields)
    _write_lines(invoice, lines)
    return invoice


@transaction.atomic
def invoice_update(*, invoice_id: int, fields: dict) -> Invoice:
    """Only a draft changes (409 `invoice_not_draft`); `lines`, when given, replace them all."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status != InvoiceStatus.DRAFT:
        raise _conflict(
            f"{invoice} is issued: it cannot change (cancel it by a credit note).", NOT_DRAFT
        )
    problems = Problems()
    fields = _draft_fields(fields, problems, creating=False)
    problems.raise_if_any()
    lines = fields.pop("lines", None)
    for name, value in fields.items():
        setattr(invoice, name, value)
    invoice.save()
    if lines is not None:
        _write_lines(invoice, lines)
    return invoice


@transaction.atomic
def invoice_delete(*, invoice_id: int) -> None:
    """Only a draft is deleted (409 `invoice_not_draft`: an issued document is cancelled by a
    credit note)."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status != InvoiceStatus.DRAFT:
        raise _conflict(
            f"{invoice} is issued: it is never deleted (cancel it by a credit note).", NOT_DRAFT
        )
    invoice.delete()
