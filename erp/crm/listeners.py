"""The store's signals the CRM listens to: a customer's erasure (the CRM erases its copies of
the customer's data), and the Order model's saves and deletions, which keep RFM's rollup
(erp.crm.rollups) in the writing transaction.

The store never imports the ERP, so the rollup follows the Order model's own signals: what
the order services save (each status, payment, line or customer change ends in Order.save)
and delete reaches it, whoever wrote it.

- `post_init` keeps, on each Order instance, the values the rollup counts as they were read
  (customer, currency, status, payment status, total, creation time): one tuple taken from
  the loaded values, nothing computed, nothing fetched (a deferred field is marked unloaded).
- `post_save` compares what the order counted as read with what it counts as saved (a save
  with `update_fields` wrote only those fields: the others are as read) and hands both to
  `rollups.moved`, which does nothing when they are equal; the instance then keeps the
  saved values as its new reading. This is exact when the instance holds the row as it is in
  the database apart from its own changes: the order services lock the order as they read
  it (`order_for_update`) and save that instance.
- The safe path, `rollups.refresh` (a recount of the rows from the orders), when the reading
  is unknown: a field the rollup counts was deferred, or the instance was made in Python and
  its save updated a row it never read (`pre_save` sees it still adding); and for every
  deletion (rare, and then exact whoever read the order).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from django.db.models.signals import post_delete, post_init, post_save, pre_save

from erp.crm import rollups, services
from store.customers.models import Customer
from store.customers.signals import customer_erased
from store.orders.models import Order

#: Where an Order instance keeps the counted values it was read (or last saved) with: a tuple
#: of FIELDS, or None when unknown.
READ_AS = "_erp_crm_rfm_read"
FIELDS = ("customer_id", "currency", "status", "payment_status", "total", "created_at")
_read = itemgetter(*FIELDS)
#: The place of a field that was not loaded.
UNLOADED = object()
#: update_fields' names -> the place in a reading of the value they write.
_PLACES = {name: FIELDS.index(name) for name in FIELDS} | {"customer": 0}


def _customer_erased(sender, *, customer_id: int, **kwargs) -> None:
    services.customer_erasure_requested(customer_id=customer_id)


def _reading(values: dict) -> tuple:
    try:
        return _read(values)
    except KeyError:  # a deferred field: what was loaded only
        return tuple(values.get(name, UNLOADED) for name in FIELDS)


def order_read(sender, instance: Order, **kwargs) -> None:
    values = instance.__dict__
    try:
        values[READ_AS] = _read(values)
    except KeyError:
        values[READ_AS] = _reading(values)


def order_saving(sender, instance: Order, **kwargs) -> None:
    if instance._state.adding:  # made in Python: its reading says nothing of a row it updates
        instance.__dict__[READ_AS] = None


def order_saved(
    sender, instance: Order, created: bool = False, update_fields=None, raw: bool = False, **kwargs
) -> None:
    if raw:
        return
    places = None
    if update_fields is not None:
        places = {_PLACES[name] for name in update_fields if name in _PLACES}
        if not places:  # nothing the rollup counts was written
            return
    values = instance.__dict__
    before = None if created else values.get(READ_AS)
    if created or places is None:
        after = _reading(values)
    elif before is None:
        after = None
    else:  # the fields written as they are now, the others as read
        after = tuple(
            values.get(FIELDS[place], UNLOADED) if place in places else value
            for place, value in enumerate(before)
        )
    if after is None or UNLOADED in after or not (created or _known(before)):
        _recount(instance, before)
        return
    values[READ_AS] = after
    rollups.moved(rollups.counted(*before) if before else None, rollups.counted(*after))


def _known(reading: tuple | None) -> bool:
    return reading is not None and UNLOADED not in reading


def _recount(instance: Order, before: tuple | None) -> None:
    """The safe path: recount the row the order was read in (when known) and the one it is in
    now (read from the database when not loaded)."""
    values = instance.__dict__
    keys = []
    if before is not None and UNLOADED not in before[:2]:
        keys.append(before[:2])
    loaded = (values.get("customer_id", UNLOADED), values.get("currency", UNLOADED))
    now: tuple[Any, Any] | None = loaded
    if UNLOADED in loaded:
        now = Order.objects.filter(pk=instance.pk).values_list("customer_id", "currency").first()
    if now is not None:
        keys.append(now)
    rollups.refresh(keys)
    values[READ_AS] = None  # what the row holds beside the fields written is unknown


def order_deleted(sender, instance: Order, **kwargs) -> None:
    values = instance.__dict__
    before = values.get(READ_AS)
    keys = [(values.get("customer_id"), values.get("currency"))]
    if before is not None and UNLOADED not in before[:2]:
        keys.append(before[:2])
    rollups.refresh(keys)


def connect() -> None:
    customer_erased.connect(
        _customer_erased, sender=Customer, dispatch_uid="erp_crm_customer_erased"
    )
    post_init.connect(order_read, sender=Order, dispatch_uid="erp_crm_rfm_order_read")
    pre_save.connect(order_saving, sender=Order, dispatch_uid="erp_crm_rfm_order_saving")
    post_save.connect(order_saved, sender=Order, dispatch_uid="erp_crm_rfm_order_saved")
    post_delete.connect(order_deleted, sender=Order, dispatch_uid="erp_crm_rfm_order_deleted")
