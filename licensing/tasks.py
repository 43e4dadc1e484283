from dataclasses import asdict

from celery import shared_task

from licensing.services.expiry import expire_due


@shared_task(name="licensing.expire_licenses", time_limit=600)
def expire_licenses() -> dict[str, int]:
    """Beat, hourly: expire subscriptions, licences and packs past their end (idempotent)."""
    return asdict(expire_due())
