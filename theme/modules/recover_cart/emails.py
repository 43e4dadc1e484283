"""The recovery e-mail: the abandoned-cart recovery link, sent through the store's e-mail
machinery (store.emails.services.email_send: rendered now, recorded, sent by a task after the
commit). Its built-in templates live in theme/modules/recover_cart/emails/."""

from __future__ import annotations

from pathlib import Path

from store.emails.types import CUSTOMER, STORE_VARIABLES
from theme.emails import FolderEmailType, template_context

CART_RECOVERY = FolderEmailType(
    folder=Path(__file__).parent / "emails",
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
    return template_context(config=config, item_count=item_count, link=link, lifetime=lifetime)
