"""The invoicing settings (one row): the issuer, the default series and the series of order
invoices, automatic invoicing and transmission, the tax authority's credentials (sealed).
"""

from __future__ import annotations

from django.db import transaction

from erp.core import filing
from erp.invoicing import crypto
from erp.invoicing.models import InvoiceSeries, InvoicingSettings
from erp.invoicing.providers.mydata import MydataAuthority
from store.common.problems import Problems
from store.tax import selectors as tax_selectors


def _series_param(name: str, series_id, problems: Problems):
    if series_id is None:
        return None
    series = InvoiceSeries.objects.filter(pk=series_id).first()
    if series is None:
        problems.add(name, f"No invoice series with id {series_id}.")
    return series


@transaction.atomic
def settings_update(*, fields: dict) -> InvoicingSettings:
    """Only the fields given change. `mydata_user_id` and `mydata_subscription_key` are sealed
    (an empty value removes one); the issuer's VAT number is checked with python-stdnum."""
    fields = dict(fields)
    problems = Problems()
    if "issuer_vat_number" in fields:
        fields["issuer_vat_number"] = tax_selectors.vat_number_clean(
            fields["issuer_vat_number"], name="issuer_vat_number"
        )
    for name in ("default_series", "order_series"):
        if f"{name}_id" in fields:
            fields[name] = _series_param(f"{name}_id", fields.pop(f"{name}_id"), problems)
    problems.raise_if_any()
    InvoicingSettings.objects.get_or_create(pk=1)
    row = InvoicingSettings.objects.select_for_update().get(pk=1)
    filing.credentials_update(
        row,
        fields,
        prefix="mydata_",
        names=MydataAuthority.credential_fields,
        purpose=crypto.PURPOSE,
    )
    for name, value in fields.items():
        setattr(row, name, value)
    row.save()
    return row
