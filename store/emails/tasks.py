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
