"""The modules' e-mail: the abandoned-cart recovery link, sent through the store's e-mail
machinery (store.emails.services.email_send: rendered now, recorded, sent by a task after the
commit). Its built-in templates live in theme/modules/emails/."""

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
class ModuleEmailType(EmailType):
    def default(self, part: str) -> str:
        return _read(self.slug, part)


CART_RECOVERY = ModuleEmailType(
    slug="cart_recovery",
    title="Abandoned cart recovery",
    description="To a shopper whose cart sat idle: a link that restores it.",
    recipient=CUSTOMER,
    variables={
        **STORE_VARIABLES,
        "item_count": "How many items the cart holds.",
        "link": "The link that restores the cart.",
        "lifetime": "How long the link works, e.g. 168 hours.",
    },
    about_order=False,
    can_disable=False,  # off: turn the recover_cart module off
)


def context(*, config: dict, item_count: int, link: str, lifetime: str) -> dict:
    return {
        "store": email_selectors.store_data(config),
        "item_count": item_count,
        "link": link,
        "lifetime": lifetime,
    }
