from celery import shared_task

from erp.purchasing import services


@shared_task(
    name=services.SEND_TASK,
    acks_late=True,
    autoretry_for=services.TRANSIENT,
    retry_backoff=30,
    retry_backoff_max=1800,
    retry_jitter=True,
    max_retries=8,
    time_limit=120,
)
def send_order_email(*, email_id: int) -> bool:
    """E-mail one recorded purchase order e-mail with the order's PDF attached (idempotent:
    a redelivery sends nothing)."""
    return services.purchase_order_email_deliver(email_id=email_id)
