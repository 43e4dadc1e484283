from __future__ import annotations

import logging
import smtplib
import socket
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import OperationalError
from django.utils import timezone

from common import idempotency, markers, outbox
from common.models import DoneMarker, WorkerHeartbeat

logger = logging.getLogger(__name__)

MARKERS_KEPT = timedelta(days=7)
HEARTBEATS_KEPT = timedelta(days=7)


@shared_task(name="common.ping", ignore_result=False)
def ping() -> str:
    """Answers "pong": used to prove that a worker consumes the broker."""
    return "pong"


@shared_task(
    name="common.send_email",
    autoretry_for=(smtplib.SMTPException, OSError, OperationalError),
    retry_backoff=30,
    retry_backoff_max=1800,
    retry_jitter=True,
    max_retries=8,
    time_limit=60,
)
def send_email(*, message_id: str, to: list[str], subject: str, body: str, html: str | None = None):
    """Send one message once: a redelivered or republished task finds the marker (a database
    row, written before sending) and does nothing; a failed send removes it for the retry."""
    marker = f"email-sent:{message_id}"
    if not markers.mark_done(marker):
        logger.info("e-mail %s already sent; skipping redelivery", message_id)
        return
    message = EmailMultiAlternatives(subject, body, settings.DEFAULT_FROM_EMAIL, to)
    if html:
        message.attach_alternative(html, "text/html")
    try:
        message.send()
    except Exception:
        markers.unmark(marker)
        raise


@shared_task(name="common.drain_outbox", time_limit=120, ignore_result=True)
def drain_outbox() -> int:
    """Beat: publish the outbox rows that are due (their publish at commit failed)."""
    return outbox.drain()


@shared_task(bind=True, name="common.heartbeat", time_limit=30, ignore_result=True)
def heartbeat(self) -> None:
    """Beat: the worker that runs this records that it is alive (shown by /healthz)."""
    WorkerHeartbeat.objects.update_or_create(
        hostname=(self.request.hostname or socket.gethostname())[:255],
        defaults={"seen_at": timezone.now()},
    )


@shared_task(name="common.purge_idempotency_keys", time_limit=300)
def purge_idempotency_keys() -> int:
    return idempotency.purge_expired()


@shared_task(name="common.purge_outbox", time_limit=300, ignore_result=True)
def purge_outbox() -> dict[str, int]:
    """Beat: sent outbox rows, old send-once markers and heartbeats of gone workers."""
    now = timezone.now()
    markers, _ = DoneMarker.objects.filter(created_at__lt=now - MARKERS_KEPT).delete()
    beats, _ = WorkerHeartbeat.objects.filter(seen_at__lt=now - HEARTBEATS_KEPT).delete()
    return {"outbox": outbox.purge(now=now), "markers": markers, "heartbeats": beats}
