"""The store's signals the CRM listens to: a customer's erasure (the CRM erases its copies of
the customer's data), and the Order model's saves and deletions, which keep RFM's rollup
(erp.crm.rollups) in the writing transaction.

The store never imports the ERP, so the rollup follows the Order model's own signals: what
the order services save (each status, payment, line or customer change ends in Order.save)
and delete reaches it, whoever wrote it. An order's customer and currency as read
(`post_init`, from the loaded values only: a deferred field is never fetched) name the row
it leaves when it moves to another customer or currency.
"""

from __future__ import annotations

from django.db.models.signals import post_delete, post_init, post_save

from erp.crm import rollups, services
from store.customers.models import Customer
from store.customers.signals import customer_erased
from store.orders.models import Order

#: Where an Order instance keeps the (customer id, currency) it was read with.
READ_AS = "_erp_crm_rfm_key"


def _customer_erased(sender, *, customer_id: int, **kwargs) -> None:
    services.customer_erasure_requested(customer_id=customer_id)


def _key(order: Order) -> tuple[int | None, str | None]:
    values = order.__dict__
    return values.get("customer_id"), values.get("currency")


def order_read(sender, instance: Order, **kwargs) -> None:
    instance.__dict__[READ_AS] = _key(instance)


def order_saved(sender, instance: Order, update_fields=None, raw: bool = False, **kwargs) -> None:
    if raw or (update_fields is not None and not rollups.COUNTED_FIELDS & set(update_fields)):
        return
    now = _key(instance)
    rollups.refresh([instance.__dict__.get(READ_AS, now), now])
    instance.__dict__[READ_AS] = now


def order_deleted(sender, instance: Order, **kwargs) -> None:
    rollups.refresh([instance.__dict__.get(READ_AS, _key(instance)), _key(instance)])


def connect() -> None:
    customer_erased.connect(
        _customer_erased, sender=Customer, dispatch_uid="erp_crm_customer_erased"
    )
    post_init.connect(order_read, sender=Order, dispatch_uid="erp_crm_rfm_order_read")
    post_save.connect(order_saved, sender=Order, dispatch_uid="erp_crm_rfm_order_saved")
    post_delete.connect(order_deleted, sender=Order, dispatch_uid="erp_crm_rfm_order_deleted")
