"""The store customers' erasure signal: the CRM erases its copies of the customer's data."""

from __future__ import annotations

from erp.crm import services
from store.customers.models import Customer
from store.customers.signals import customer_erased


def _customer_erased(sender, *, customer_id: int, **kwargs) -> None:
    services.customer_erasure_requested(customer_id=customer_id)


def connect() -> None:
    customer_erased.connect(
        _customer_erased, sender=Customer, dispatch_uid="erp_crm_customer_erased"
    )
