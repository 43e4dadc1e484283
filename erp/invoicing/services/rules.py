"""The tax authority's rules, checked locally before a document is issued (issue_problems),
so that no number is ever taken by a document the authority would reject.
"""

from __future__ import annotations

from decimal import Decimal

from erp.invoicing import selectors
from erp.invoicing.choices import (
    B2B_TYPES,
    EXEMPT_CATEGORY,
    EXEMPT_SUPPLY_TYPES,
    INTRA_EU_TYPES,
    NOT_SALES_CATEGORIES,
    THIRD_COUNTRY_TYPES,
    VAT_RATES,
    DocumentType,
)
from erp.invoicing.models import Invoice, InvoiceLine, InvoicingSettings
from erp.invoicing.services._shared import _vat_fits
from store.common.addresses import Address
from store.tax import selectors as tax_selectors

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
