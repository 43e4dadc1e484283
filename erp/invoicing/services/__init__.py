"""Invoicing's writes: series, settings, drafts, issuing (gapless numbering), cancelling by
credit note, the credit notes of refunds, invoices made from orders, and the transmission to
the tax authority. One module per use case:

- `series`: invoice series (code, document type, prefix, next number)
- `settings`: the invoicing settings (the issuer, the series used, the authority's credentials)
- `drafts`: drafts made, changed and deleted
- `rules`: the tax authority's rules checked before a number is taken (issue_problems)
- `issuing`: issuing a draft; cancelling an issued document by a credit note
- `refunds`: the credit notes of an order's refunds
- `orders`: an order's invoice, and the automatic one of a completed order
- `transmission`: sending a document to the tax authority, cancelling it there
- `_documents`: checking, numbering, announcing and crediting a document (private to this
  package)
- `_shared`: the refusal codes, the lines' amounts, the invoice's row lock, starting a
  transmission (private to this package)

Each write validates first and changes nothing when it refuses (400 naming the parameters;
409 for a rule of the document's state). Issuing checks the tax authority's rules that can be
checked here (issue_problems) before anything is numbered, so no number is ever taken by a
document the authority would reject. It then locks the invoice, then its series row
(select_for_update), takes the series' next number and moves it on in the same transaction:
numbers are unique, in issue order and without gaps (a draft has none; a rolled-back issue
gives its number back).

Callers import from the module that owns the name. The public names are also re-exported here
(`erp.invoicing.services.invoice_issue`), the package's public surface; the modules of this
package never import from it, only from each other, so the re-export cannot make a cycle.
"""

from erp.invoicing.services._shared import (
    ALREADY_CANCELLED,
    CENT,
    IN_PROGRESS,
    INCOMPLETE,
    IS_DRAFT,
    NOT_CANCELLABLE,
    NOT_CONFIGURED,
    NOT_DRAFT,
    NOT_SENT,
    REFUSED,
    SERIES_IN_USE,
    SERIES_REQUIRED,
    TRANSMIT_TASK,
    UNAVAILABLE,
    line_amounts,
)
from erp.invoicing.services.drafts import invoice_create, invoice_delete, invoice_update
from erp.invoicing.services.issuing import invoice_cancel, invoice_issue
from erp.invoicing.services.orders import (
    ORDER_TASK,
    auto_invoice_requested,
    invoice_for_order,
    invoice_from_order,
    order_lines,
)
from erp.invoicing.services.refunds import invoice_credit_refunds, refund_recorded
from erp.invoicing.services.rules import (
    COUNTERPART_VAT_INVALID,
    COUNTERPART_VAT_REQUIRED,
    COUNTRY_NOT_ALLOWED,
    EXEMPTION_NOT_ALLOWED,
    EXEMPTION_REQUIRED,
    ISSUER_VAT_REQUIRED,
    NEGATIVE_AMOUNT,
    TOTALS_INCONSISTENT,
    VAT_CATEGORY_NOT_ALLOWED,
    issue_problems,
)
from erp.invoicing.services.series import series_check, series_create, series_delete, series_update
from erp.invoicing.services.settings import settings_update
from erp.invoicing.services.transmission import (
    transmission_cancel,
    transmission_gave_up,
    transmission_request,
    transmission_run,
    transmission_test,
)

__all__ = [
    "ALREADY_CANCELLED",
    "CENT",
    "COUNTERPART_VAT_INVALID",
    "COUNTERPART_VAT_REQUIRED",
    "COUNTRY_NOT_ALLOWED",
    "EXEMPTION_NOT_ALLOWED",
    "EXEMPTION_REQUIRED",
    "INCOMPLETE",
    "IN_PROGRESS",
    "ISSUER_VAT_REQUIRED",
    "IS_DRAFT",
    "NEGATIVE_AMOUNT",
    "NOT_CANCELLABLE",
    "NOT_CONFIGURED",
    "NOT_DRAFT",
    "NOT_SENT",
    "ORDER_TASK",
    "REFUSED",
    "SERIES_IN_USE",
    "SERIES_REQUIRED",
    "TOTALS_INCONSISTENT",
    "TRANSMIT_TASK",
    "UNAVAILABLE",
    "VAT_CATEGORY_NOT_ALLOWED",
    "auto_invoice_requested",
    "invoice_cancel",
    "invoice_create",
    "invoice_credit_refunds",
    "invoice_delete",
    "invoice_for_order",
    "invoice_from_order",
    "invoice_issue",
    "invoice_update",
    "issue_problems",
    "line_amounts",
    "order_lines",
    "refund_recorded",
    "series_check",
    "series_create",
    "series_delete",
    "series_update",
    "settings_update",
    "transmission_cancel",
    "transmission_gave_up",
    "transmission_request",
    "transmission_run",
    "transmission_test",
]
