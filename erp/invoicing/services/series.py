"""Invoice series: a code, a document type, a prefix and the next number. Once a series has
issued documents its code, document type and next number stay (a new series is made instead),
and it is never deleted (it is deactivated).
"""

from __future__ import annotations

from django.db import transaction

from erp.invoicing import selectors
from erp.invoicing.models import Invoice, InvoiceSeries
from erp.invoicing.services._shared import SERIES_IN_USE, _conflict
from store.common.errors import invalid_params


def _series_in_use(series_id: int) -> bool:
    return Invoice.objects.filter(series_id=series_id, number__isnull=False).exists()


def series_check(fields: dict, *, series: InvoiceSeries | None = None) -> None:
    """400 for a code another series has; 409 `invoice_series_in_use` for a change of code,
    document type or next number once the series has issued documents."""
    code = fields.get("code")
    if code is not None:
        taken = InvoiceSeries.objects.filter(code__iexact=code)
        if series is not None:
            taken = taken.exclude(pk=series.pk)
        if taken.exists():
            raise invalid_params({"code": [f"A series is already coded {code!r}."]})
    if series is None or not _series_in_use(series.pk):
        return
    changed = [
        name
        for name in ("code", "document_type", "next_number")
        if name in fields and fields[name] != getattr(series, name)
    ]
    if changed:
        raise _conflict(
            f"The series {series.code} has issued documents: its {', '.join(changed)} cannot "
            "change (make a new series).",
            SERIES_IN_USE,
        )


@transaction.atomic
def series_create(*, fields: dict) -> InvoiceSeries:
    series_check(fields)
    return InvoiceSeries.objects.create(**fields)


@transaction.atomic
def series_update(*, series_id: int, fields: dict) -> InvoiceSeries:
    series = _series_for_update(series_id)
    series_check(fields, series=series)
    for name, value in fields.items():
        setattr(series, name, value)
    series.save()
    return series


@transaction.atomic
def series_delete(*, series_id: int) -> None:
    series = _series_for_update(series_id)
    if Invoice.objects.filter(series=series).exists():
        raise _conflict(
            f"The series {series.code} has documents: deactivate it instead.", SERIES_IN_USE
        )
    series.delete()


def _series_for_update(series_id: int) -> InvoiceSeries:
    selectors.series_get(series_id)  # 404
    return InvoiceSeries.objects.select_for_update().get(pk=series_id)
