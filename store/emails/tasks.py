from celery import shared_task

from store.emails import services


@shared_task(
    name="store_emails.send",
    acks_late=True,
    autoretry_for=services.TRANSIENT,
    retry_backoff=30,
    retry_backoff_max=1800,
    retry_jitter=True,
    max_retries=8,
    time_limit=60,
)
def send(*, email_id: int, sender: str, to: str, subject: str, text: str, html: str) -> bool:
    """Send one recorded store e-mail (idempotent: a redelivery sends nothing)."""
    return services.email_deliver(
        email_id=email_id, sender=sender, to=to, subject=subject, text=text, html=html
    )


@shared_task(
    name="store_emails.order_status",
    acks_late=True,
    autoretry_for=services.TRANSIENT,
    retry_backoff=30,
    retry_backoff_max=1800,
    retry_jitter=True,
    max_retries=8,
    time_limit=60,
)
def order_status(*, change_id: int) -> int | None:
    """Render and record the e-mail of an order's status change (idempotent: once per change);
    answers the recorded e-mail's id."""
    email = services.order_status_email_send(change_id=change_id)
    return email.pk if email is not None else None
