"""The ERP's business-event signals, for ERP apps that must not import each other.

A sender (erp.invoicing, erp.purchasing) calls `send_after_commit` (common.events) inside the
transaction of the change: the signal goes out once that transaction commits (never for a
rolled-back one), with one keyword argument `event`, a dict of plain JSON values (ids, ISO
dates, decimal strings), so that a listener needs none of the sender's models. Receivers run
through `send_robust`: a receiver that fails is logged and never fails the sender's request.

- `invoice_issued`: an invoice or a credit note was issued (numbered). `event`: invoice_id,
  number, is_credit, corrects_id, date, currency, net_total, vat_total, gross_total,
  order_id (the order of the invoice, or of the one a credit note corrects), customer_id,
  counterpart_name.
- `goods_received`: a goods-received note was posted into stock. `event`: note_id, number,
  date, purchase_order_id, purchase_order_number, supplier_id, supplier_name,
  payment_terms_days, amount (the received lines at their stock cost, in the store's
  currency).
"""

from __future__ import annotations

from django.dispatch import Signal

from common.events import send_after_commit

__all__ = ["goods_received", "invoice_issued", "send_after_commit"]

invoice_issued = Signal()
goods_received = Signal()
