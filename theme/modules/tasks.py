from celery import shared_task

from theme.modules import services


@shared_task(name="theme_modules.recover_abandoned_carts", acks_late=True)
def recover_abandoned_carts() -> int:
    """Beat: e-mail the shoppers of idle carts a link that restores them (idempotent)."""
    return services.carts_recover_send()
