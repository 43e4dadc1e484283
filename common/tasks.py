from __future__ import annotations

import logging
import smtplib

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.core.mail import EmailMultiAlternatives

from common import idempotency

logger = logging.getLogger(__name__)

_SENT_MARKER_SECONDS = 7 * 24 * 3600


@shared_task(name="common.ping", ignore_result=False)
def ping() -> str:
    """Answers "pong": used to prove that a worker consumes the broker."""
    return "pong"


@shared_task(
    name="common.send_email",
    autoretry_for=(smtplib.SMTPException, OSError),
    retry_backoff=30,
    retry_backoff_max=1800,
    retry_jitter=True,
    max_retries=8,
    time_limit=60,
)
def send_email(*, message_id: str, to: list[str], subject: str, body: str, html: str | None = None):
    """Send one message once: a redelivered task finds the sent marker and does nothing."""
    marker = f"email-sent:{message_id}"
    if not cache.add(marker, 1, _SENT_MARKER_SECONDS):
        logger.info("e-mail %s already sent; skipping redelivery", message_id)
        return
    message = EmailMultiAlternatives(subject, body, settings.DEFAULT_FROM_EMAIL, to)
    if html:
        message.attach_alternative(html, "text/html")
    try:
        message.send()
    except Exception:
        cache.delete(marker)
        raise


@shared_task(name="common.purge_idempotency_keys", time_limit=300)
def purge_idempotency_keys() -> int:
    return idempotency.purge_expired()
