"""Templated e-mail, sent by a Celery task after the surrounding transaction commits (through
the outbox, so a broker outage delays the message instead of failing the request).

A higher layer may take over one template's messages: `register_handler(template, handler)`
(the store does, from its AppConfig.ready, for the account e-mails of its customers, which it
renders with its own editable templates). The handler is called with `template`, `to` (a
list) and `context`; it answers True when it sent the message itself, False to leave it to
the template files here. This module stays below the apps that register (it imports none).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.template import TemplateDoesNotExist
from django.template.loader import render_to_string

from common import outbox

Handler = Callable[..., bool]
_handlers: dict[str, list[Handler]] = {}


def register_handler(template: str, handler: Handler) -> None:
    """Let `handler` take over the messages of `template` (registered once per handler)."""
    handlers = _handlers.setdefault(template, [])
    if handler not in handlers:
        handlers.append(handler)


def send_templated_email(*, to: str | list[str], template: str, context: dict) -> None:
    """Render templates/emails/<template>{_subject.txt,.txt,.html} and send on commit.

    The message is rendered now, in the caller's transaction; if that transaction rolls back,
    nothing is sent.
    """
    recipients = [to] if isinstance(to, str) else list(to)
    for handler in _handlers.get(template, ()):
        if handler(template=template, to=recipients, context=context):
            return
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
