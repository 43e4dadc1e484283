"""Templated e-mail, sent by a Celery task after the surrounding transaction commits (through
the outbox, so a broker outage delays the message instead of failing the request)."""

from __future__ import annotations

import uuid

from django.template import TemplateDoesNotExist
from django.template.loader import render_to_string

from common import outbox


def send_templated_email(*, to: str | list[str], template: str, context: dict) -> None:
    """Render templates/emails/<template>{_subject.txt,.txt,.html} and send on commit.

    The message is rendered now, in the caller's transaction; if that transaction rolls back,
    nothing is sent.
    """
    recipients = [to] if isinstance(to, str) else list(to)
    subject = " ".join(render_to_string(f"emails/{template}_subject.txt", context).split())
    body = render_to_string(f"emails/{template}.txt", context)
    try:
        html = render_to_string(f"emails/{template}.html", context)
    except TemplateDoesNotExist:
        html = None
    outbox.enqueue(
        "common.send_email",
        kwargs={
            "message_id": uuid.uuid4().hex,
            "to": recipients,
            "subject": subject,
            "body": body,
            "html": html,
        },
    )
