"""Signals of the orders app, for packages it must not know (STYLE.md: signals only there).

Both are sent inside the transaction of the change, with `order` (locked by the sender), so a
listener's writes commit or roll back with it. The checkout listens to count coupon uses.

- `order_released`: the order stopped holding what it was sold with: it moved into cancelled,
  refunded or failed, or it is being deleted while live.
- `order_reopened`: a cancelled, refunded or failed order became live again.
- `order_status_changed`: the order moved from `old` to `new` (with `source`, `actor` and
  `change`, the history row); the store's e-mails enqueue the status e-mail (rendered and
  sent by a task after the commit, through the outbox).
- `payment_recorded`: a completed payment or refund was recorded on an order, or one was
  deleted. Sent after the commit (never for a rolled-back change), with `event`, a dict of
  plain JSON values: payment_id, order_id, order_number, kind (payment or refund), amount,
  currency, date, method, customer_id, customer_name, deleted. The ERP's accounting posts it.
"""

from django.dispatch import Signal

order_released = Signal()
order_reopened = Signal()
order_status_changed = Signal()
payment_recorded = Signal()
