"""Signals of the customers app, for packages it must not know (STYLE.md: signals only there).

- `customer_erased`: a customer's personal data is being erased: the customer is being
  deleted, or anonymised because it has orders. Sent inside the transaction, before the
  change (the row still exists), with `customer_id`; a listener that keeps copies of the
  customer's data erases them after the commit (a rolled-back deletion erases nothing).
"""

from django.dispatch import Signal

customer_erased = Signal()
