"""Invoicing's writes: series, settings, drafts, issuing (gapless numbering), cancelling by
credit note, the credit notes of refunds, invoices made from orders, and the transmission to
the tax authority.

Each write validates first and changes nothing when it refuses (400 naming the parameters;
409 for a rule of the document's state). Issuing checks the tax authority's rules that can be
checked here (issue_problems) before anything is numbered, so no number is ever taken by a
document the authority would reject. It then locks the invoice, then its series row
(select_for_update), takes the series' next number and moves it on in the same transaction:
numbers are unique, in issue order and without gaps (a draft has none; a rolled-back issue
gives its number back).
"""

from __future__ import annotations

import logging
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal

from django.db import IntegrityError, transaction
from django.db.models import Q, Sum
from django.utils import timezone

from common import outbox
from common.errors import ServiceError
from erp.core import filing
from erp.core import signals as core_signals
from erp.invoicing import crypto, selectors
from erp.invoicing.choices import (
    B2B_TYPES,
    CORRELATED_TYPES,
    CREDIT_TYPES,
    EXEMPT_CATEGORY,
    EXEMPT_SUPPLY_TYPES,
    INTRA_EU_TYPES,
    NOT_SALES_CATEGORIES,
    ORDER_PAYMENT_METHODS,
    THIRD_COUNTRY_TYPES,
    VAT_RATES,
    DocumentType,
    InvoiceStatus,
    PaymentMethod,
    TransmissionStatus,
    VatCategory,
    credit_type_for,
)
from erp.invoicing.models import (
    LINE_VALUES,
    Invoice,
    InvoiceLine,
    InvoiceSeries,
    InvoicingSettings,
    Transmission,
)
from erp.invoicing.providers.base import Cancelled, NotConfigured, Outcome, Transient
from erp.invoicing.providers.mydata import MydataAuthority
from store.common.accounts import logged_in
from store.common.addresses import Address
from store.common.errors import invalid_params, rule_broken
from store.common.money import allocate_cents, from_cents, money, to_cents
from store.common.problems import Problems
from store.customers.models import Customer
from store.orders import selectors as order_selectors
from store.orders.choices import PaymentKind, PaymentRecordStatus
from store.orders.models import Payment
from store.tax import selectors as tax_selectors

logger = logging.getLogger(__name__)

TRANSMIT_TASK = "erp_invoicing.transmit"
ORDER_TASK = "erp_invoicing.invoice_for_order"

NOT_DRAFT = "invoice_not_draft"
IS_DRAFT = "invoice_is_draft"
ALREADY_CANCELLED = "invoice_cancelled"
NOT_CANCELLABLE = "invoice_not_cancellable"
INCOMPLETE = "invoice_incomplete"
SERIES_REQUIRED = "invoice_series_required"
SERIES_IN_USE = "invoice_series_in_use"
IN_PROGRESS = "transmission_in_progress"
NOT_SENT = "transmission_not_sent"
NOT_CONFIGURED = "authority_not_configured"
UNAVAILABLE = "authority_unavailable"
REFUSED = "authority_refused"

# The tax authority's rules that issuing checks before a number is taken (409, `data.params`
# naming the fields; the code is the first rule broken).
ISSUER_VAT_REQUIRED = "issuer_vat_number_required"
COUNTERPART_VAT_REQUIRED = "counterpart_vat_number_required"
COUNTERPART_VAT_INVALID = "counterpart_vat_number_invalid"
COUNTRY_NOT_ALLOWED = "counterpart_country_not_allowed"
VAT_CATEGORY_NOT_ALLOWED = "vat_category_not_allowed"
EXEMPTION_REQUIRED = "vat_exemption_required"
EXEMPTION_NOT_ALLOWED = "vat_exemption_not_allowed"
NEGATIVE_AMOUNT = "negative_amount"
TOTALS_INCONSISTENT = "totals_inconsistent"

CENT = Decimal("0.01")


def _conflict(message: str, code: str):
    return rule_broken(message, code=code, status=409)


# --- Amounts ------------------------------------------------------------------------------------


def line_amounts(
    *,
    quantity: Decimal,
    unit_price: Decimal,
    vat_category: int,
    discount: Decimal = Decimal(0),
) -> dict:
    """A line's net (quantity x unit price - discount, to the cent), VAT at its category's
    rate (half up) and gross."""
    net = money(Decimal(quantity) * Decimal(unit_price) - Decimal(discount))
    vat = (net * VAT_RATES[vat_category] / 100).quantize(CENT, rounding=ROUND_HALF_UP)
    return {"net_amount": net, "vat_amount": vat, "gross_amount": net + vat}


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


def _write_lines(invoice: Invoice, lines: list[dict]) -> None:
    InvoiceLine.objects.filter(invoice=invoice).delete()
    rows = []
    for position, line in enumerate(lines, start=1):
        discount = money(line.get("discount") or 0)
        rows.append(
            InvoiceLine(
                invoice=invoice,
                position=position,
                description=line["description"],
                sku=line.get("sku") or "",
                quantity=line["quantity"],
                unit_price=money(line["unit_price"]),
                discount=discount,
                vat_category=line["vat_category"],
                vat_exemption=line.get("vat_exemption"),
                **line_amounts(
                    quantity=line["quantity"],
                    unit_price=line["unit_price"],
                    vat_category=line["vat_category"],
                    discount=discount,
                ),
            )
        )
    InvoiceLine.objects.bulk_create(rows)
    _total(invoice, rows)


def _total(invoice: Invoice, lines: list[InvoiceLine]) -> None:
    invoice.net_total = sum((line.net_amount for line in lines), Decimal(0))
    invoice.vat_total = sum((line.vat_amount for line in lines), Decimal(0))
    invoice.gross_total = invoice.net_total + invoice.vat_total
    Invoice.objects.filter(pk=invoice.pk).update(
        net_total=invoice.net_total, vat_total=invoice.vat_total, gross_total=invoice.gross_total
    )


# --- Series -------------------------------------------------------------------------------------


def _series_in_use(series_id: int) -> bool:
    return Invoice.objects.filter(series_id=series_id, number__isnull=False).exists()


def series_check(fields: dict, *, series: InvoiceSeries | None = None) -> None:
    """400 for a code another series has; 409 `invoice_series_in_use` for a change of code,
    document type or next number once the series has issued documents."""
    code = fields.get("code")
    if code is not None:
        taken = InvoiceSeries.objects.filter(code__iexact=code)
        if series is not None:
            taken = taken.exclude(pk=series.pk)
        if taken.exists():
            raise invalid_params({"code": [f"A series is already coded {code!r}."]})
    if series is None or not _series_in_use(series.pk):
        return
    changed = [
        name
        for name in ("code", "document_type", "next_number")
        if name in fields and fields[name] != getattr(series, name)
    ]
    if changed:
        raise _conflict(
            f"The series {series.code} has issued documents: its {', '.join(changed)} cannot "
            "change (make a new series).",
            SERIES_IN_USE,
        )


@transaction.atomic
def series_create(*, fields: dict) -> InvoiceSeries:
    series_check(fields)
    return InvoiceSeries.objects.create(**fields)


@transaction.atomic
def series_update(*, series_id: int, fields: dict) -> InvoiceSeries:
    series = _series_for_update(series_id)
    series_check(fields, series=series)
    for name, value in fields.items():
        setattr(series, name, value)
    series.save()
    return series


@transaction.atomic
def series_delete(*, series_id: int) -> None:
    series = _series_for_update(series_id)
    if Invoice.objects.filter(series=series).exists():
        raise _conflict(
            f"The series {series.code} has documents: deactivate it instead.", SERIES_IN_USE
        )
    series.delete()


def _series_for_update(series_id: int) -> InvoiceSeries:
    selectors.series_get(series_id)  # 404
    return InvoiceSeries.objects.select_for_update().get(pk=series_id)


# --- Settings -----------------------------------------------------------------------------------


def _series_param(name: str, series_id, problems: Problems):
    if series_id is None:
        return None
    series = InvoiceSeries.objects.filter(pk=series_id).first()
    if series is None:
        problems.add(name, f"No invoice series with id {series_id}.")
    return series


@transaction.atomic
def settings_update(*, fields: dict) -> InvoicingSettings:
    """Only the fields given change. `mydata_user_id` and `mydata_subscription_key` are sealed
    (an empty value removes one); the issuer's VAT number is checked with python-stdnum."""
    fields = dict(fields)
    problems = Problems()
    if "issuer_vat_number" in fields:
        fields["issuer_vat_number"] = tax_selectors.vat_number_clean(
            fields["issuer_vat_number"], name="issuer_vat_number"
        )
    for name in ("default_series", "order_series"):
        if f"{name}_id" in fields:
            fields[name] = _series_param(f"{name}_id", fields.pop(f"{name}_id"), problems)
    problems.raise_if_any()
    InvoicingSettings.objects.get_or_create(pk=1)
    row = InvoicingSettings.objects.select_for_update().get(pk=1)
    filing.credentials_update(
        row,
        fields,
        prefix="mydata_",
        names=MydataAuthority.credential_fields,
        purpose=crypto.PURPOSE,
    )
    for name, value in fields.items():
        setattr(row, name, value)
    row.save()
    return row


# --- Drafts -------------------------------------------------------------------------------------


def _invoice_for_update(invoice_id: int) -> Invoice:
    selectors.invoice_get(invoice_id)  # 404
    return Invoice.objects.select_for_update().get(pk=invoice_id)


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


# --- The authority's rules, checked at issue ----------------------------------------------------


def _issuer_country(row: InvoicingSettings) -> str:
    number = tax_selectors.vat_number_of(row.issuer_vat_number)
    if number is not None:
        return number.country
    return Address.of(row.issuer_address or {}).country or "GR"


def _counterpart_vat_problem(vat_number: str, country: str) -> tuple[str, str]:
    """(what is wrong with the counterpart's VAT number or "", the country it names). An EU
    number (or one of no stated country) is checked with python-stdnum; a third country's tax
    number is kept as given."""
    if country and country not in tax_selectors.eu_countries():
        return "", ""
    number = tax_selectors.vat_number_of(vat_number)
    if number is None and country == "GR":  # a Greek AFM given without its EL prefix
        number = tax_selectors.vat_number_of(f"EL{vat_number}")
    if number is None:
        return (
            f"{vat_number!r} is not a valid EU VAT number: give it with its country prefix, "
            "e.g. EL094259216.",
            "",
        )
    if country and number.country != country:
        return f"The VAT number is of {number.country}, the counterpart's country is {country}.", ""
    return "", number.country


def issue_problems(
    invoice: Invoice, *, settings: InvoicingSettings | None = None
) -> list[tuple[str, str, str]]:
    """What the tax authority would reject in `invoice`, checked locally: [(rule code, field,
    message)], empty when it may be issued. A credit note is held to the rules of its own type
    and of the document it corrects.

    The issuer's VAT number; on B2B types the counterpart's VAT number, present and valid
    (python-stdnum, for an EU counterpart); an intra-community supply (1.2) to another member
    state, an export (1.3) outside the EU; VAT categories the type takes (never 8, entries
    without VAT; 1.2 and 1.3 only 7, exempt); a 0% line's exemption category (and none on
    other lines); no negative amount; each line's VAT its net at its rate (within the cent the
    authority allows), its gross net + VAT, the totals the lines' sums."""
    row = settings or selectors.settings_row()
    found: list[tuple[str, str, str]] = []

    def add(code: str, field: str, message: str) -> None:
        found.append((code, field, message))

    types = [invoice.document_type]
    if invoice.corrects_id:
        types.append(invoice.corrects.document_type)
    if not row.issuer_vat_number:
        add(
            ISSUER_VAT_REQUIRED,
            "issuer_vat_number",
            "The issuer's VAT number is not set (PATCH /invoices/settings).",
        )
    vat_number = (invoice.counterpart_vat_number or "").strip()
    country = invoice.counterpart_country or Address.of(invoice.billing_address or {}).country
    b2b = next((t for t in types if t in B2B_TYPES), None)
    if b2b and not vat_number:
        add(
            COUNTERPART_VAT_REQUIRED,
            "counterpart_vat_number",
            f"A document of type {b2b} ({DocumentType(b2b).label}) needs the counterpart's "
            "VAT number.",
        )
    elif vat_number:
        problem, named = _counterpart_vat_problem(vat_number, country)
        if problem:
            add(COUNTERPART_VAT_INVALID, "counterpart_vat_number", problem)
        country = country or named
    eu = tax_selectors.eu_countries()
    if any(t in INTRA_EU_TYPES for t in types) and (
        country not in eu or country == _issuer_country(row)
    ):
        add(
            COUNTRY_NOT_ALLOWED,
            "counterpart_country",
            "An intra-community supply (1.2) goes to a business in another EU member state"
            + (f", not {country}." if country else ": give the counterpart's country."),
        )
    if any(t in THIRD_COUNTRY_TYPES for t in types) and (not country or country in eu):
        add(
            COUNTRY_NOT_ALLOWED,
            "counterpart_country",
            "A third-country supply (1.3) goes to a counterpart outside the EU"
            + (f", not {country}." if country else ": give the counterpart's country."),
        )
    exempt_only = next((t for t in types if t in EXEMPT_SUPPLY_TYPES), None)
    net_sum = vat_sum = Decimal(0)
    lines = InvoiceLine.objects.filter(invoice=invoice).order_by("position", "id")
    for index, line in enumerate(lines):
        where, name = f"lines.{index}", f"Line {index + 1}"
        net_sum += line.net_amount
        vat_sum += line.vat_amount
        category = line.vat_category
        if category not in VAT_RATES:
            add(VAT_CATEGORY_NOT_ALLOWED, f"{where}.vat_category", f"{name}: no VAT category.")
            continue
        if category in NOT_SALES_CATEGORIES:
            add(
                VAT_CATEGORY_NOT_ALLOWED,
                f"{where}.vat_category",
                f"{name}: VAT category {category} (entries without VAT) is not for documents "
                "of sale.",
            )
        elif exempt_only and category != EXEMPT_CATEGORY:
            add(
                VAT_CATEGORY_NOT_ALLOWED,
                f"{where}.vat_category",
                f"{name}: a document of type {exempt_only} is VAT exempt: VAT category "
                f"{EXEMPT_CATEGORY} (0%) with its exemption category.",
            )
        if category == EXEMPT_CATEGORY and not line.vat_exemption:
            add(
                EXEMPTION_REQUIRED,
                f"{where}.vat_exemption",
                f"{name}: a 0% line needs its exemption category (order invoices take the "
                "settings' zero_vat_exemption).",
            )
        elif category != EXEMPT_CATEGORY and line.vat_exemption:
            add(
                EXEMPTION_NOT_ALLOWED,
                f"{where}.vat_exemption",
                f"{name}: only 0% lines (VAT category {EXEMPT_CATEGORY}) take an exemption.",
            )
        if min(line.net_amount, line.vat_amount, line.gross_amount) < 0:
            add(NEGATIVE_AMOUNT, f"{where}.net_amount", f"{name}: amounts cannot be negative.")
        if not _vat_fits(line.net_amount, line.vat_amount, category):
            add(
                TOTALS_INCONSISTENT,
                f"{where}.vat_amount",
                f"{name}: VAT {line.vat_amount} is not {VAT_RATES[category]}% of "
                f"{line.net_amount}.",
            )
        if line.net_amount + line.vat_amount != line.gross_amount:
            add(
                TOTALS_INCONSISTENT,
                f"{where}.gross_amount",
                f"{name}: gross {line.gross_amount} is not net plus VAT.",
            )
    if (net_sum, vat_sum, net_sum + vat_sum) != (
        invoice.net_total,
        invoice.vat_total,
        invoice.gross_total,
    ):
        add(
            TOTALS_INCONSISTENT,
            "gross_total",
            f"The lines add up to net {net_sum} and VAT {vat_sum}, the totals say net "
            f"{invoice.net_total}, VAT {invoice.vat_total}, gross {invoice.gross_total}.",
        )
    return found


def _vat_fits(net: Decimal, vat: Decimal, category: int) -> bool:
    """The line's VAT is its net at its category's rate, within the cent the authority allows
    (a credit note split by amount may be a cent off; lines made from quantities are exact)."""
    expected = (net * VAT_RATES[category] / 100).quantize(CENT, rounding=ROUND_HALF_UP)
    return abs(expected - vat) <= CENT


def _check_issuable(invoice: Invoice) -> None:
    """409 naming the first rule broken (every problem in the message and `data.params`)."""
    problems = issue_problems(invoice)
    if not problems:
        return
    errors: dict[str, list[str]] = {}
    for _code, field, message in problems:
        errors.setdefault(field, []).append(message)
    what = f"The credit note of {invoice.corrects}" if invoice.corrects_id else str(invoice)
    reasons = " ".join(message for _code, _field, message in problems)
    raise ServiceError(
        f"{what} cannot be issued: the tax authority would reject it. {reasons}",
        code=problems[0][0],
        status_code=409,
        errors=errors,
    )


# --- Issue and cancel ---------------------------------------------------------------------------


def _number(invoice: Invoice) -> None:
    """The series' next number, the series row locked until the transaction ends."""
    series = InvoiceSeries.objects.select_for_update().get(pk=invoice.series_id)
    invoice.number = series.next_number
    invoice.full_number = f"{series.prefix}{series.next_number}"
    series.next_number += 1
    series.save(update_fields=["next_number", "updated_at"])


def _issue(invoice: Invoice) -> None:
    """Check the authority's rules (refusing before any number is taken), number, announce."""
    _check_issuable(invoice)
    _number(invoice)
    now = timezone.now()
    invoice.status = InvoiceStatus.ISSUED
    invoice.issued_at = now
    invoice.issue_date = invoice.issue_date or timezone.localdate(now)
    invoice.auto_issue_error = ""
    invoice.save()
    _announce(invoice)


def _announce(invoice: Invoice) -> None:
    """erp.core's `invoice_issued`, after the commit (the accounting posts it)."""
    corrected = invoice.corrects
    core_signals.send_after_commit(
        core_signals.invoice_issued,
        sender=Invoice,
        event={
            "invoice_id": invoice.pk,
            "number": invoice.full_number,
            "is_credit": invoice.document_type in CREDIT_TYPES,
            "corrects_id": invoice.corrects_id,
            "date": invoice.issue_date.isoformat(),
            "currency": invoice.currency,
            "net_total": str(invoice.net_total),
            "vat_total": str(invoice.vat_total),
            "gross_total": str(invoice.gross_total),
            "order_id": corrected.order_id if corrected is not None else invoice.order_id,
            "customer_id": invoice.customer_id,
            "counterpart_name": invoice.counterpart_name,
        },
    )


@transaction.atomic
def invoice_issue(*, invoice_id: int) -> Invoice:
    """Number a draft and freeze it. 409 `invoice_not_draft` when it is issued already,
    `invoice_incomplete` without lines or in an inactive series, or the code of the tax
    authority's first rule it breaks (issue_problems); nothing changes then. An order's
    invoice issued after refunds on the order gets their credit notes too (refund_recorded)."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status != InvoiceStatus.DRAFT:
        raise _conflict(f"{invoice} is issued already.", NOT_DRAFT)
    reasons = []
    if not InvoiceLine.objects.filter(invoice=invoice).exists():
        reasons.append("it has no lines")
    if not InvoiceSeries.objects.filter(pk=invoice.series_id, active=True).exists():
        reasons.append("its series is not active")
    if reasons:
        raise _conflict(f"The draft cannot be issued: {'; '.join(reasons)}.", INCOMPLETE)
    _issue(invoice)
    if selectors.settings_row().auto_transmit:
        _transmission_start(invoice)
    _credit_refunds(invoice)
    return invoice


def _credit_series(document_type: str) -> InvoiceSeries:
    """The active series of credit notes of `document_type` (made when there is none)."""
    series = (
        InvoiceSeries.objects.filter(document_type=document_type, active=True)
        .order_by("code")
        .first()
    )
    if series is not None:
        return series
    base = "CNR" if document_type == DocumentType.RETAIL_CREDIT_NOTE else "CN"
    code, n = base, 1
    while InvoiceSeries.objects.filter(code__iexact=code).exists():
        n += 1
        code = f"{base}{n}"
    return InvoiceSeries.objects.create(
        code=code,
        name=DocumentType(document_type).label,
        document_type=document_type,
        prefix=f"{code}-",
    )


def _credited(invoice: Invoice, **filters) -> Decimal:
    """The gross its credit notes gave back."""
    notes = Invoice.objects.filter(corrects=invoice, **filters)
    return money(notes.aggregate(total=Sum("gross_total"))["total"] or 0)


def _open_groups(invoice: Invoice) -> list[dict]:
    """What is left to credit, per VAT category and exemption (in the order of the lines): the
    invoice's net and VAT less its credit notes'."""
    groups: dict[tuple, dict] = {}
    for line in InvoiceLine.objects.filter(invoice=invoice).order_by("position", "id"):
        group = groups.setdefault(
            (line.vat_category, line.vat_exemption),
            {
                "vat_category": line.vat_category,
                "vat_exemption": line.vat_exemption,
                "net": Decimal(0),
                "vat": Decimal(0),
            },
        )
        group["net"] += line.net_amount
        group["vat"] += line.vat_amount
    for line in InvoiceLine.objects.filter(invoice__corrects=invoice):
        group = groups.get((line.vat_category, line.vat_exemption))
        if group is not None:
            group["net"] -= line.net_amount
            group["vat"] -= line.vat_amount
    return list(groups.values())


def _amount_lines(invoice: Invoice, amount: Decimal, what: str) -> list[dict]:
    """Credit-note lines giving back `amount` (gross) of the invoice: one per VAT category
    left, the amount shared in proportion to what is left of each (largest remainder, so the
    lines add up to it exactly); each share's net is its gross at the category's rate and its
    VAT the rest. A share that finishes its category takes exactly the net and VAT left when
    they fit the rate, so a document credited in full gives back its exact net and VAT."""
    groups = _open_groups(invoice)
    weights = [max(to_cents(group["net"] + group["vat"]), 0) for group in groups]
    shares = allocate_cents(min(to_cents(amount), sum(weights)), weights)
    lines = []
    for group, share, weight in zip(groups, shares, weights, strict=True):
        if share <= 0:
            continue
        category, gross = group["vat_category"], from_cents(share)
        rate = VAT_RATES[category]
        exact = (
            share == weight
            and group["net"] >= 0
            and group["vat"] >= 0
            and _vat_fits(group["net"], group["vat"], category)
        )
        if exact:
            net, vat = group["net"], group["vat"]
        else:
            net = (gross * 100 / (100 + rate)).quantize(CENT, rounding=ROUND_HALF_UP)
            vat = gross - net
        lines.append(
            {
                "description": (
                    f"{what} at {format(rate.normalize(), 'f')}% VAT" if rate else f"{what}, 0% VAT"
                )[:255],
                "sku": "",
                "quantity": Decimal(1),
                "unit_price": net,
                "discount": Decimal(0),
                "net_amount": net,
                "vat_category": category,
                "vat_exemption": group["vat_exemption"],
                "vat_amount": vat,
                "gross_amount": gross,
            }
        )
    return lines


def _copied_lines(invoice: Invoice) -> list[dict]:
    return [
        {name: getattr(line, name) for name in LINE_VALUES}
        for line in InvoiceLine.objects.filter(invoice=invoice).order_by("position", "id")
    ]


def _credit_note(
    invoice: Invoice, lines: list[dict], *, notes: str, refund_payment_id=None, user=None
) -> Invoice:
    """Issue a credit note of the (locked) `invoice` with `lines`: the credit type of its
    document type (5.1; 11.4 for a retail receipt), numbered in its series like any document
    (after the authority's rules are checked), announced (the accounting posts it). The
    invoice is cancelled once its credit notes give back its whole total. When the invoice
    was sent to the authority (or `auto_transmit` is set), the note is sent too."""
    credit_type = credit_type_for(invoice.document_type)
    credit = Invoice.objects.create(
        series=_credit_series(credit_type),
        document_type=credit_type,
        currency=invoice.currency,
        customer_id=invoice.customer_id,
        counterpart_name=invoice.counterpart_name,
        counterpart_vat_number=invoice.counterpart_vat_number,
        counterpart_country=invoice.counterpart_country,
        billing_address=invoice.billing_address,
        payment_method=invoice.payment_method,
        notes=notes,
        corrects=invoice,
        refund_payment_id=refund_payment_id,
        created_by=logged_in(user),
    )
    rows = [
        InvoiceLine(invoice=credit, position=position, **line)
        for position, line in enumerate(lines, start=1)
    ]
    InvoiceLine.objects.bulk_create(rows)
    _total(credit, rows)
    _issue(credit)
    if _credited(invoice) >= invoice.gross_total:
        invoice.status = InvoiceStatus.CANCELLED
        invoice.cancelled_at = timezone.now()
        invoice.save(update_fields=["status", "cancelled_at", "updated_at"])
    original = Transmission.objects.filter(invoice=invoice).first()
    if selectors.settings_row().auto_transmit or (
        original is not None and original.status == TransmissionStatus.SENT
    ):
        _transmission_start(credit)  # the authority knows the original: it learns of the note
    return credit


@transaction.atomic
def invoice_cancel(*, invoice_id: int, reason: str = "", user=None) -> Invoice:
    """Cancel an issued document by a credit note: a new issued document of the credit type
    (5.1, or 11.4 for a retail receipt) in its own series, referencing the original
    (`corrects`), with the original's lines, or, when refunds were credited already, with
    what is left of each VAT category (_amount_lines); the original is marked
    cancelled. Answers the credit note. 409: a draft (`invoice_is_draft`: delete it), a
    cancelled document (`invoice_cancelled`), a credit note (`invoice_not_cancellable`), or
    the code of the authority's rule the credit note would break (nothing changes then)."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status == InvoiceStatus.DRAFT:
        raise _conflict(f"{invoice} is a draft: delete it instead.", IS_DRAFT)
    if invoice.status == InvoiceStatus.CANCELLED:
        raise _conflict(f"{invoice} is cancelled already.", ALREADY_CANCELLED)
    if credit_type_for(invoice.document_type) is None:
        raise _conflict(f"{invoice} is a credit note: it cannot be cancelled.", NOT_CANCELLABLE)
    credited = _credited(invoice)
    if credited:
        lines = _amount_lines(invoice, invoice.gross_total - credited, f"Rest of {invoice}")
    else:
        lines = _copied_lines(invoice)
    note = f"Cancels {invoice.full_number}." + (f" {reason}" if reason else "")
    return _credit_note(invoice, lines, notes=note, user=user)


# --- Refunds ------------------------------------------------------------------------------------


def _refund_share(invoice: Invoice, refund: Payment) -> Decimal:
    """How much of `refund` the invoice's credit note gives back: the refund, less what of the
    order's refunds only returned an overpayment (paid beyond the invoice's total), and never
    more than is left uncredited on the invoice."""
    sums = Payment.objects.filter(
        order_id=invoice.order_id, status=PaymentRecordStatus.COMPLETED
    ).aggregate(
        paid=Sum("amount", filter=Q(kind=PaymentKind.PAYMENT)),
        refunded=Sum("amount", filter=Q(kind=PaymentKind.REFUND)),
    )
    paid, refunded = money(sums["paid"] or 0), money(sums["refunded"] or 0)
    due = min(refunded, max(invoice.gross_total - paid + refunded, Decimal(0)))
    given = _credited(invoice, refund_payment_id__isnull=False)
    left = invoice.gross_total - _credited(invoice)
    return max(min(refund.amount, due - given, left), Decimal(0))


def _refund_note(invoice: Invoice, refund: Payment, *, user=None) -> Invoice | None:
    amount = _refund_share(invoice, refund)
    lines = _amount_lines(invoice, amount, f"Refund on {invoice}") if amount > 0 else []
    if not lines:
        return None
    order = invoice.order
    return _credit_note(
        invoice,
        lines,
        notes=f"Refund of {amount} {invoice.currency} on order {order.order_number} "
        f"(payment {refund.pk}): credits {invoice.full_number}.",
        refund_payment_id=refund.pk,
        user=user,
    )


def _credit_refunds(invoice: Invoice, *, user=None) -> list[Invoice]:
    """The credit notes of the order's completed refunds that have none yet, oldest first
    (`invoice` locked and issued)."""
    if invoice.order_id is None:
        return []
    noted = Invoice.objects.filter(corrects=invoice, refund_payment_id__isnull=False)
    refunds = (
        Payment.objects.filter(
            order_id=invoice.order_id,
            kind=PaymentKind.REFUND,
            status=PaymentRecordStatus.COMPLETED,
        )
        .exclude(pk__in=noted.values("refund_payment_id"))
        .order_by("paid_at", "id")
    )
    made = []
    for refund in refunds:
        if invoice.status != InvoiceStatus.ISSUED:
            break  # credited in full
        note = _refund_note(invoice, refund, user=user)
        if note is not None:
            made.append(note)
    return made


def _auto_refused(invoice_id: int, message: str) -> None:
    """Record why an automatic issue was refused on the invoice (shown by the API and admin)."""
    logger.warning("invoicing: invoice %s: %s", invoice_id, message)
    Invoice.objects.filter(pk=invoice_id).update(auto_issue_error=message[:500])


def refund_recorded(event: dict) -> Invoice | None:
    """The store's `payment_recorded` of a refund (the listener, while the ERP runs): a refund
    on an order whose invoice is issued gets its credit note, by amount (_amount_lines),
    once per refund payment (a repeated event answers the note made). None when there
    is nothing to credit: no issued invoice (a draft's refunds are credited when it is issued),
    one credited in full, a refund that only returned an overpayment, a deleted refund (its
    note, if any, stays: a person corrects it). A rule of the authority refusing the note is
    recorded on the invoice (`auto_issue_error`), never raised."""
    if event.get("deleted") or event.get("kind") != PaymentKind.REFUND:
        return None
    try:
        payment_id, order_id = int(event["payment_id"]), int(event["order_id"])
    except (KeyError, TypeError, ValueError):
        return None
    invoice = selectors.invoice_of_order(order_id)
    if invoice is None or invoice.status != InvoiceStatus.ISSUED:
        return None
    try:
        with transaction.atomic():
            invoice = _invoice_for_update(invoice.pk)
            made = Invoice.objects.filter(refund_payment_id=payment_id).first()
            if made is not None or invoice.status != InvoiceStatus.ISSUED:
                return made
            refund = Payment.objects.filter(
                pk=payment_id,
                order_id=order_id,
                kind=PaymentKind.REFUND,
                status=PaymentRecordStatus.COMPLETED,
            ).first()
            return _refund_note(invoice, refund) if refund is not None else None
    except IntegrityError:  # a concurrent delivery made it
        return Invoice.objects.filter(refund_payment_id=payment_id).first()
    except ServiceError as exc:
        _auto_refused(invoice.pk, f"The credit note of refund {payment_id}: {exc.detail}")
        return None


@transaction.atomic
def invoice_credit_refunds(*, invoice_id: int, user=None) -> list[Invoice]:
    """Credit the order's refunds that have no credit note yet (the admin's action, after a
    refusal was fixed): the notes made, oldest refund first. 409 `invoice_is_draft`, or the
    code of the authority's rule a note would break (nothing changes then)."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status == InvoiceStatus.DRAFT:
        raise _conflict(
            f"{invoice} is a draft: its refunds are credited when it is issued.", IS_DRAFT
        )
    made = _credit_refunds(invoice, user=user) if invoice.status == InvoiceStatus.ISSUED else []
    if invoice.auto_issue_error:
        Invoice.objects.filter(pk=invoice.pk).update(auto_issue_error="")
    return made


# --- From an order ------------------------------------------------------------------------------


def _category_of(net: Decimal, tax: Decimal) -> int:
    """The VAT category whose rate is nearest the order line's (tax over net)."""
    if net <= 0 or tax <= 0:
        return EXEMPT_CATEGORY
    rate = tax / net * 100
    taxed = [c for c in VatCategory if VAT_RATES[c.value] > 0 and c.value != 10]
    return min(taxed, key=lambda c: (abs(VAT_RATES[c.value] - rate), c.value)).value


def _order_line(
    description: str, sku: str, quantity: int, unit_price: Decimal, net: Decimal, tax: Decimal
) -> dict:
    """An order line as an invoice line: `net` is what the order charged without tax; the
    difference from quantity x unit price is the line's discount."""
    quantity = Decimal(quantity)
    unit_price = money(unit_price)
    if quantity * unit_price < net:  # priced with tax included: the unit price of the net
        unit_price = (net / quantity).quantize(CENT, rounding=ROUND_CEILING)
    return {
        "description": description[:255] or "Item",
        "sku": sku,
        "quantity": quantity,
        "unit_price": unit_price,
        "discount": money(quantity * unit_price - net),
        "vat_category": _category_of(net, tax),
    }


def order_lines(order) -> list[dict]:
    """The invoice lines of an order: its items (the order's discount shared over them in
    proportion, to the cent) and its shipping."""
    items = list(order.items.all())
    shares = (
        allocate_cents(
            min(to_cents(order.discount_total), sum(to_cents(i.subtotal) for i in items)),
            [to_cents(item.subtotal) for item in items],
        )
        if items
        else []
    )
    lines = [
        _order_line(
            item.title,
            item.sku,
            item.quantity,
            item.unit_price,
            item.subtotal - from_cents(share),
            item.tax,
        )
        for item, share in zip(items, shares, strict=True)
    ]
    if order.shipping_total > 0:
        title = order.shipping_method_title or order.shipping_method
        lines.append(
            _order_line(
                f"Shipping: {title}" if title else "Shipping",
                "",
                1,
                order.shipping_total,
                order.shipping_total,
                order.shipping_tax,
            )
        )
    return lines


def invoice_from_order(*, order_id: int, user=None) -> tuple[Invoice, bool]:
    """The order's invoice, made once (a draft in the settings' order series, else the default
    series): (invoice, made now). A second call answers the same invoice. 404
    `order_not_found`; 409 `invoice_series_required` without a series."""
    existing = selectors.invoice_of_order(order_id)
    if existing is not None:
        return existing, False
    order = order_selectors.order_get(order_id)  # 404 order_not_found
    row = selectors.settings_row()
    series = row.order_series or row.default_series
    if series is None:
        raise _conflict(
            "No series for invoices of orders: set order_series_id or default_series_id in "
            "PATCH /invoices/settings.",
            SERIES_REQUIRED,
        )
    address = Address.of(order.billing_address)
    lines = order_lines(order)
    for line in lines:
        if line["vat_category"] == EXEMPT_CATEGORY:
            line["vat_exemption"] = row.zero_vat_exemption
    try:
        with transaction.atomic():
            invoice = Invoice.objects.create(
                series=series,
                document_type=series.document_type,
                currency=order.currency,
                customer=order.customer,
                counterpart_name=address.company
                or " ".join(filter(None, (address.first_name, address.last_name))),
                # a retail receipt names no counterpart to the authority
                counterpart_vat_number=order.vat_number
                if series.document_type in B2B_TYPES
                else "",
                counterpart_country=address.country,
                billing_address=dict(order.billing_address),
                payment_method=ORDER_PAYMENT_METHODS.get(order.payment_method, PaymentMethod.POS),
                notes=f"Order {order.order_number}.",
                order=order,
                created_by=logged_in(user),
            )
            _write_lines(invoice, lines)
    except IntegrityError:  # another call made it meanwhile
        existing = selectors.invoice_of_order(order_id)
        if existing is None:
            raise
        return existing, False
    return invoice, True


def invoice_for_order(*, order_id: int) -> int | None:
    """The auto-invoice of a completed order (the task): made and issued once; answers its id
    (None when the settings no longer ask for it or no series is set). A draft that a rule
    refuses (issue_problems, `invoice_incomplete`) stays a draft without a number and records
    why in `auto_issue_error`; the order's status change is never failed by it."""
    row = selectors.settings_row()
    if not row.auto_invoice or not (row.order_series_id or row.default_series_id):
        return None
    invoice, _made = invoice_from_order(order_id=order_id)
    if invoice.status == InvoiceStatus.DRAFT:
        try:
            invoice_issue(invoice_id=invoice.pk)
        except ServiceError as exc:
            if exc.code == NOT_DRAFT:
                pass  # issued by a concurrent run
            elif exc.status_code == 409:  # a rule refused it: no number taken, a person fixes it
                _auto_refused(invoice.pk, f"Not issued automatically: {exc.detail}")
            else:
                raise
    return invoice.pk


def auto_invoice_requested(order) -> None:
    """The orders' status signal: a completed order gets its invoice by a task, when the
    settings ask for it (joined to the order's transaction by the outbox)."""
    if selectors.settings_row().auto_invoice:
        outbox.enqueue(
            ORDER_TASK,
            kwargs={"order_id": order.pk},
            dedupe_key=f"{ORDER_TASK}:{order.pk}",
        )


# --- Transmission -------------------------------------------------------------------------------


def _transmission_start(invoice: Invoice) -> Transmission:
    provider = selectors.settings_row().provider
    transmission = Transmission.objects.select_for_update().filter(invoice=invoice).first()
    if transmission is None:
        transmission = Transmission(invoice=invoice)
    elif not filing.resendable(transmission.status):
        raise _conflict(
            f"{invoice} is {transmission.get_status_display().lower()} at the authority.",
            IN_PROGRESS,
        )
    transmission.provider = provider
    transmission.status = TransmissionStatus.PENDING
    transmission.mark = transmission.uid = transmission.qr_url = ""
    transmission.cancellation_mark = ""
    transmission.errors = []
    transmission.attempts = 0
    transmission.last_error = ""
    transmission.requested_at = timezone.now()
    transmission.sent_at = transmission.cancelled_at = None
    transmission.save()
    outbox.enqueue(
        TRANSMIT_TASK,
        kwargs={"invoice_id": invoice.pk},
        dedupe_key=f"{TRANSMIT_TASK}:{invoice.pk}",
    )
    return transmission


@transaction.atomic
def transmission_request(*, invoice_id: int) -> Transmission:
    """Send an issued document (or a cancelled one: the authority must know what its credit
    note cancels) to the authority of the settings, by a task. 409 `invoice_is_draft`,
    `transmission_in_progress` while pending or once sent. Rejected, failed and cancelled
    transmissions may be sent again."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status == InvoiceStatus.DRAFT:
        raise _conflict(f"{invoice} is a draft: issue it first.", IS_DRAFT)
    return _transmission_start(invoice)


def transmission_run(*, invoice_id: int) -> tuple[str, str]:
    """One attempt (the task): ("sent" | "rejected" | "failed" | "retry" | "skipped", detail).
    The transmission row stays locked during the call, so a redelivered task waits and then
    finds it sent (idempotent). A transient failure is recorded and answered "retry"."""
    with transaction.atomic():
        transmission = (
            Transmission.objects.select_for_update()
            .filter(invoice_id=invoice_id, status=TransmissionStatus.PENDING)
            .first()
        )
        if transmission is None:
            return "skipped", ""
        invoice = Invoice.objects.select_related("series").get(pk=invoice_id)
        if invoice.corrects_id and invoice.document_type in CORRELATED_TYPES:
            original = Transmission.objects.filter(invoice_id=invoice.corrects_id).first()
            if original is not None and original.status == TransmissionStatus.PENDING:
                # issued together (an order's invoice and the notes of earlier refunds): the
                # note needs the original's mark, which comes with the original's answer
                transmission.last_error = "The original is not sent yet: its mark is needed."
                transmission.save()
                return "retry", transmission.last_error
        document = selectors.document_of(invoice)
        provider = selectors.provider_for(transmission.provider)

        def sent(outcome: Outcome) -> None:
            transmission.mark, transmission.uid = outcome.mark, outcome.uid
            transmission.qr_url = outcome.qr_url[:500]
            transmission.sent_at = timezone.now()

        return filing.attempt(transmission, lambda: provider.send(document), accepted=sent)


def transmission_gave_up(*, invoice_id: int, error: str) -> None:
    """Every retry failed: the transmission is `failed` (POST /transmit sends it again)."""
    filing.gave_up(Transmission.objects.filter(invoice_id=invoice_id), error=error)


@transaction.atomic
def transmission_cancel(*, invoice_id: int) -> Transmission:
    """Cancel a sent document at the authority (myDATA CancelInvoice by its mark), now.
    409 `transmission_not_sent`, `authority_not_configured`; 502 `authority_unavailable`,
    `authority_refused` (its reasons); nothing changes then."""
    _invoice_for_update(invoice_id)
    transmission = Transmission.objects.select_for_update().filter(invoice_id=invoice_id).first()
    if transmission is None or transmission.status != TransmissionStatus.SENT:
        raise _conflict("The document has not been sent to the authority.", NOT_SENT)
    provider = selectors.provider_for(transmission.provider)
    try:
        result = provider.cancel(transmission.mark)
    except Transient as exc:
        raise rule_broken(str(exc), code=UNAVAILABLE, status=502) from exc
    except NotConfigured as exc:
        raise _conflict(str(exc), NOT_CONFIGURED) from exc
    if not isinstance(result, Cancelled):
        reasons = "; ".join(f"{e.code}: {e.message}" for e in result.errors)
        raise rule_broken(
            f"The authority refused the cancellation: {reasons}", code=REFUSED, status=502
        )
    transmission.status = TransmissionStatus.CANCELLED
    transmission.cancellation_mark = result.cancellation_mark
    transmission.cancelled_at = timezone.now()
    transmission.save()
    return transmission


def transmission_test() -> dict:
    """A real call to the configured authority with the stored credentials:
    {provider, ok, message}; 502 `authority_unavailable` when it cannot be reached."""
    return filing.credentials_test(selectors.provider_for(), unavailable=UNAVAILABLE)
