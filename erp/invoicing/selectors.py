"""Reads of invoicing: the settings, series, invoices (a page, one with its lines), the
document the authority is sent and the provider that sends it."""

from __future__ import annotations

from decimal import Decimal

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from erp.invoicing import crypto
from erp.invoicing.choices import VAT_RATES
from erp.invoicing.models import (
    Invoice,
    InvoiceLine,
    InvoiceSeries,
    InvoicingSettings,
    Transmission,
)
from erp.invoicing.providers import PROVIDERS
from erp.invoicing.providers.base import AuthorityProvider, Document, Line, Party
from store.common.addresses import Address
from store.common.errors import not_found
from store.common.pagination import Page, paginate


def settings_row() -> InvoicingSettings:
    """The settings (the defaults, unsaved, before the first PATCH)."""
    row = InvoicingSettings.objects.select_related("default_series", "order_series").first()
    return row if row is not None else InvoicingSettings()


def credentials() -> dict[str, str]:
    return crypto.unseal(settings_row().credentials)


def provider_for(name: str | None = None) -> AuthorityProvider:
    """The authority `name` (default: the settings' provider) with the stored credentials."""
    row = settings_row()
    cls = PROVIDERS[name or row.provider]
    return cls(crypto.unseal(row.credentials), environment=row.mydata_environment)


# --- Series -------------------------------------------------------------------------------------


def series_queryset() -> QuerySet:
    return InvoiceSeries.objects.annotate(
        in_use=Exists(Invoice.objects.filter(series=OuterRef("pk"), number__isnull=False))
    )


def series_list() -> list[InvoiceSeries]:
    return list(series_queryset().order_by("code"))


def series_get(series_id: int) -> InvoiceSeries:
    series = series_queryset().filter(pk=series_id).first()
    if series is None:
        raise not_found("invoice_series", series_id)
    return series


# --- Invoices -----------------------------------------------------------------------------------


def _with_heads(queryset: QuerySet) -> QuerySet:
    return queryset.select_related("series", "transmission")


def _filtered(query: dict) -> QuerySet:
    rows = _with_heads(Invoice.objects.all())
    if query.get("status"):
        rows = rows.filter(status__in=query["status"])
    if query.get("series_id"):
        rows = rows.filter(series_id=query["series_id"])
    if query.get("document_type"):
        rows = rows.filter(document_type=query["document_type"])
    if query.get("customer_id"):
        rows = rows.filter(customer_id=query["customer_id"])
    if query.get("order_id"):
        rows = rows.filter(order_id=query["order_id"])
    if query.get("transmission"):
        wanted = query["transmission"]
        condition = Q(transmission__status__in=[w for w in wanted if w != "none"])
        if "none" in wanted:
            condition |= Q(transmission__isnull=True)
        rows = rows.filter(condition)
    if query.get("date_from"):
        rows = rows.filter(issue_date__gte=query["date_from"])
    if query.get("date_to"):
        rows = rows.filter(issue_date__lte=query["date_to"])
    for word in (query.get("search") or "").split()[:8]:
        rows = rows.filter(
            Q(full_number__icontains=word)
            | Q(counterpart_name__icontains=word)
            | Q(counterpart_vat_number__icontains=word)
        )
    return rows


ORDERINGS = {
    "date": ("created_at", "id"),
    "issue_date": ("issue_date", "id"),
    "number": ("series__code", "number", "id"),
    "total": ("gross_total", "id"),
    "id": ("id",),
}


def invoice_page(query: dict) -> Page:
    columns = ORDERINGS[query.get("orderby") or "date"]
    sign = "" if query.get("order") == "asc" else "-"
    rows = _filtered(query).order_by(*(sign + column for column in columns))
    return paginate(rows, page=query.get("page", 1), per_page=query.get("per_page", 20))


def invoice_get(invoice_id: int) -> Invoice:
    """The invoice with its lines, transmission and credit notes; 404 invoice_not_found."""
    invoice = (
        _with_heads(Invoice.objects.all())
        .prefetch_related("lines", "credit_notes")
        .select_related("corrects")
        .filter(pk=invoice_id)
        .first()
    )
    if invoice is None:
        raise not_found("invoice", invoice_id)
    return invoice


def invoice_of_order(order_id: int) -> Invoice | None:
    return Invoice.objects.filter(order_id=order_id).first()


def transmission_of(invoice: Invoice) -> Transmission | None:
    try:
        return invoice.transmission
    except Transmission.DoesNotExist:
        return None


def vat_breakdown(lines) -> list[dict]:
    """Per VAT category: its rate and the lines' net and VAT."""
    groups: dict[int, dict] = {}
    for line in lines:
        group = groups.setdefault(
            line.vat_category,
            {
                "vat_category": line.vat_category,
                "rate": VAT_RATES[line.vat_category],
                "net": Decimal(0),
                "vat": Decimal(0),
            },
        )
        group["net"] += line.net_amount
        group["vat"] += line.vat_amount
    return [groups[key] for key in sorted(groups)]


# --- What the authority is sent -----------------------------------------------------------------


def _vat_party(vat_number: str, country: str) -> tuple[str, str]:
    """A VAT number as the authority takes it: without its country prefix (EL for Greece)."""
    vat_number = (vat_number or "").strip().upper()
    if len(vat_number) > 2 and vat_number[:2].isalpha():
        prefix = vat_number[:2]
        return vat_number[2:], country or ("GR" if prefix == "EL" else prefix)
    return vat_number, country


def document_of(invoice: Invoice, *, settings: InvoicingSettings | None = None) -> Document:
    row = settings or settings_row()
    issuer_vat, issuer_country = _vat_party(row.issuer_vat_number, "")
    issuer_address = Address.of(row.issuer_address or {})
    issuer = Party(
        vat_number=issuer_vat,
        country=issuer_country or issuer_address.country or "GR",
        branch=row.issuer_branch,
        name=row.issuer_name,
    )
    counterpart = None
    if invoice.counterpart_vat_number:
        address = Address.of(invoice.billing_address or {})
        vat, country = _vat_party(
            invoice.counterpart_vat_number, invoice.counterpart_country or address.country
        )
        counterpart = Party(
            vat_number=vat,
            country=country,
            name=invoice.counterpart_name,
            street=" ".join(filter(None, (address.address_1, address.address_2))),
            city=address.city,
            postcode=address.postcode,
        )
    lines = list(InvoiceLine.objects.filter(invoice=invoice).order_by("position", "id"))
    marks: tuple[str, ...] = ()
    if invoice.corrects_id:
        original = Transmission.objects.filter(invoice_id=invoice.corrects_id).first()
        if original is not None and original.mark:
            marks = (original.mark,)
    return Document(
        issuer=issuer,
        counterpart=counterpart,
        series=invoice.series.code,
        number=invoice.number or 0,
        issue_date=invoice.issue_date or timezone.localdate(),
        document_type=invoice.document_type,
        currency=invoice.currency,
        payment_method=invoice.payment_method,
        lines=tuple(
            Line(
                number=index,
                net=line.net_amount,
                vat_category=line.vat_category,
                vat=line.vat_amount,
                vat_exemption=line.vat_exemption,
                quantity=line.quantity,
                description=line.description,
            )
            for index, line in enumerate(lines, start=1)
        ),
        net_total=invoice.net_total,
        vat_total=invoice.vat_total,
        gross_total=invoice.gross_total,
        correlated_marks=marks,
    )
