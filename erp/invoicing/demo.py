"""Demo data of the ERP's invoicing for `manage.py seed_demo` (idempotent), through the services:
the issuer, a sales-invoice and a retail-receipt series, and an issued receipt for a demo order
(sent to the sandbox authority when it runs)."""

from __future__ import annotations

from erp.invoicing import selectors, services
from erp.invoicing.models import InvoiceSeries
from store.orders.models import Order

ISSUER = {
    "issuer_name": "Emporion Demo Store S.A.",
    "issuer_vat_number": "EL094259216",  # a well-formed Greek VAT number (python-stdnum)
    # The demo orders' untaxed lines: outside the scope of VAT (articles 2 and 3).
    "zero_vat_exemption": 1,
    "issuer_address": {
        "address_1": "Ermou 1",
        "city": "Athens",
        "postcode": "10563",
        "country": "GR",
    },
}


def _series(code: str, document_type: str, prefix: str) -> InvoiceSeries:
    found = InvoiceSeries.objects.filter(code=code).first()
    if found is not None:
        return found
    return services.series_create(
        fields={"code": code, "document_type": document_type, "prefix": prefix}
    )


def seed() -> list[str]:
    sales = _series("A", "1.1", "A-")
    receipts = _series("R", "11.1", "R-")
    if not selectors.settings_row().issuer_name:
        services.settings_update(
            fields={**ISSUER, "default_series_id": sales.pk, "order_series_id": receipts.pk}
        )
    order = Order.objects.filter(status="completed").order_by("pk").first()
    lines = [f"ERP invoicing: series {sales.code} (sales invoices) and {receipts.code} (receipts)"]
    if order is not None:
        invoice, _created = services.invoice_from_order(order_id=order.pk)
        if invoice.status == "draft":
            invoice = services.invoice_issue(invoice_id=invoice.pk)
        lines.append(f"ERP invoicing: {invoice} issued for order {order.order_number}")
    return lines
