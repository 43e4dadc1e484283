"""The storefront's e-mail: the newsletter confirmation, sent through the store's e-mail
machinery (store.emails.services.email_send: rendered now, recorded, sent by a task after the
commit). Its built-in templates live in theme/storefront/emails/."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from store.emails import selectors as email_selectors
from store.emails.types import CUSTOMER, STORE_VARIABLES, EmailType

TEMPLATES = Path(__file__).parent / "emails"
_SUFFIX = {"subject": ".subject.txt", "body_html": ".html", "body_text": ".txt"}


@cache
def _read(slug: str, part: str) -> str:
    text = (TEMPLATES / f"{slug}{_SUFFIX[part]}").read_text(encoding="utf-8")
    return text.strip() if part == "subject" else text


@dataclass(frozen=True)
class ThemeEmailType(EmailType):
    def default(self, part: str) -> str:
        return _read(self.slug, part)


NEWSLETTER_CONFIRM = ThemeEmailType(
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
    return {
        "store": email_selectors.store_data(config),
        "email": email,
        "link": link,
        "lifetime": lifetime,
    }
