from celery import shared_task

from theme.modules.recover_cart import services


# The name is the one the beat schedule (config/celery.py) and queued messages carry since the
# modules shared one app: it stays, whatever the module's path.
@shared_task(name="theme_modules.recover_abandoned_carts", acks_late=True)
def recover_abandoned_carts() -> int:
    """Beat: e-mail the shoppers of idle carts a link that restores them (idempotent)."""
    return services.carts_recover_send()
