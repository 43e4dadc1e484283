"""Signals of the orders app, for packages it must not know (STYLE.md: signals only there).

Both are sent inside the transaction of the change, with `order` (locked by the sender), so a
listener's writes commit or roll back with it. The checkout listens to count coupon uses.

- `order_released`: the order stopped holding what it was sold with: it moved into cancelled,
  refunded or failed, or it is being deleted while live.
- `order_reopened`: a cancelled, refunded or failed order became live again.
- `order_status_changed`: the order moved from `old` to `new` (with `source`, `actor` and
  `change`, the history row); the store's e-mails enqueue the status e-mail (rendered and
  sent by a task after the commit, through the outbox).
"""

from django.dispatch import Signal

order_released = Signal()
order_reopened = Signal()
order_status_changed = Signal()
