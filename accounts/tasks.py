from celery import shared_task

from accounts import services


@shared_task(name="accounts.purge_expired_tokens", time_limit=300)
def purge_expired_tokens() -> dict[str, int]:
    return services.purge_expired_tokens()
