"""Reads of the ERP's jobs."""

from __future__ import annotations

from erp.core.models import ErpJob
from store.common.errors import not_found


def job_latest(kind: str) -> ErpJob:
    """The newest job of `kind`: 404 `erp_job_not_found` before the first."""
    job = ErpJob.objects.select_related("started_by").filter(kind=kind).order_by("-id").first()
    if job is None:
        raise not_found("erp_job")
    return job


def job_get(kind: str, job_id: int) -> ErpJob:
    job = ErpJob.objects.select_related("started_by").filter(kind=kind, pk=job_id).first()
    if job is None:
        raise not_found("erp_job", job_id)
    return job
