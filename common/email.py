"""Templated e-mail, sent by a Celery task after the surrounding transaction commits."""

from __future__ import annotations

import uuid

from django.db import transaction
from django.template import TemplateDoesNotExist
from django.template.loader import render_to_string


def send_templated_email(*, to: str | list[str], template: str, context: dict) -> None:
    """Render templates/emails/<template>{_subject.txt,.txt,.html} and send on commit.

    The message is rendered now, in the caller's transaction; if that transaction rolls back,
    nothing is sent.
    """
    from common.tasks import send_email

    recipients = [to] if isinstance(to, str) else list(to)
    subject = " ".join(render_to_string(f"emails/{template}_subject.txt", context).split())
    body = render_to_string(f"emails/{template}.txt", context)
    try:
        html = render_to_string(f"emails/{template}.html", context)
    except TemplateDoesNotExist:
        html = None
    message_id = uuid.uuid4().hex
    transaction.on_commit(
        lambda: send_email.delay(
            message_id=message_id, to=recipients, subject=subject, body=body, html=html
        )
    )
