"""Customer writes that change the customer counts: a customer saved or deleted (by
store.customers.services, the admin, or a test's factory alike), and a deleted account whose
customer stops being registered (the foreign key is set to null in SQL, without a save)."""

from __future__ import annotations

import threading

from django.contrib.auth import get_user_model
from django.db.models.signals import post_delete, post_save, pre_delete

from store.customers.models import Customer
from store.reports import rollups

_unlinked = threading.local()


def customer_saved(sender, instance, **kwargs) -> None:
    rollups.customers_changed([instance.pk])


def account_deleting(sender, instance, **kwargs) -> None:
    ids = list(Customer.objects.filter(user_id=instance.pk).values_list("pk", flat=True))
    if ids:
        pending = getattr(_unlinked, "ids", None) or {}
        pending[instance.pk] = ids
        _unlinked.ids = pending


def account_deleted(sender, instance, **kwargs) -> None:
    pending = getattr(_unlinked, "ids", None) or {}
    ids = pending.pop(instance.pk, None)
    if ids:
        rollups.customers_changed(ids)


def connect() -> None:
    uid = "store.reports.rollups"
    post_save.connect(customer_saved, sender=Customer, dispatch_uid=f"{uid}.customer-saved")
    post_delete.connect(customer_saved, sender=Customer, dispatch_uid=f"{uid}.customer-deleted")
    user = get_user_model()
    pre_delete.connect(account_deleting, sender=user, dispatch_uid=f"{uid}.account-deleting")
    post_delete.connect(account_deleted, sender=user, dispatch_uid=f"{uid}.account-deleted")
