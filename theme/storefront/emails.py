"""The storefront's e-mail: the newsletter confirmation, sent through the store's e-mail
machinery (store.emails.services.email_send: rendered now, recorded, sent by a task after the
commit). Its built-in templates live in theme/storefront/emails/."""

from __future__ import annotations

from pathlib import Path

from store.emails.types import CUSTOMER, STORE_VARIABLES
from theme.emails import FolderEmailType, template_context

NEWSLETTER_CONFIRM = FolderEmailType(
    folder=Path(__file__).parent / "emails",
    slug="newsletter_confirm",
    title="Newsletter confirmation",
    description="To an address subscribed to the newsletter: the link that confirms it.",
    recipient=CUSTOMER,
    variables={
        **STORE_VARIABLES,
        "email": "The subscribed address.",
        "link": "The confirmation link.",
        "lifetime": "How long the link works, e.g. 48 hours.",
    },
    about_order=False,
    can_disable=False,
)


def context(*, config: dict, email: str, link: str, lifetime: str) -> dict:
    return template_context(config=config, email=email, link=link, lifetime=lifetime)
