"""The theme namespace's recipes."""

from __future__ import annotations

import datetime

from django.utils.module_loading import import_string

from common.api.examples.recipes.store import (
    CAP,
    TEE,
    TOTE,
    customer,
    product,
    st,
)
from common.api.examples.recorder import (
    CREATE,
    LAST,
    UNSET,
    Recipe,
    Recorder,
    RecordingError,
)


def theme_prefix(rec: Recorder) -> str:
    return rec.documents["theme"]["servers"][0]["url"]


def th(rec: Recorder, method: str, path: str, body=UNSET, actor: str = "admin"):
    return rec.call_json(actor, method, theme_prefix(rec) + path, body)


def template_blocks(rec: Recorder) -> list:
    templates = th(rec, "GET", "/builder/templates")["templates"]
    return th(rec, "GET", f"/builder/templates/{templates[0]['id']}")["template"]["blocks"]


HOME_PAGE = 1  # the page the demo's home-page layout is of


def recovery_token(rec: Recorder, *_args) -> str:
    """The link of an abandoned-cart e-mail: the beat task run as if the shopper's cart had
    sat idle for the configured hours."""
    if "recovery" not in rec.values:
        from django.conf import settings
        from django.utils import timezone

        st(rec, "POST", "/cart/items", {"product_id": product(rec, CAP), "quantity": 1}, "customer")
        idle = datetime.timedelta(hours=settings.THEME_RECOVER_CART_IDLE_HOURS + 1)
        send = import_string("theme.modules.recover_cart.services.carts_recover_send")
        send(now=timezone.now() + idle)
        token = rec.outbox_token(r"/recover-cart/([^\s\"<>?]+)")
        if token is None:
            raise RecordingError("no abandoned-cart e-mail was sent")
        rec.values["recovery"] = token
    return rec.values["recovery"]


def newsletter_token(rec: Recorder, *_args) -> str:
    token = rec.outbox_token(r"/newsletter/confirm/([^\s\"<>?]+)")
    if token is None:
        raise RecordingError("no newsletter confirmation e-mail was sent")
    return token


THEME_RECIPES: dict[str, Recipe] = {
    "groups_post": Recipe(
        body=lambda rec, _p: {
            "name": "Wholesale partners",
            "description": "Shops that resell our products.",
            "discount_percent": "12.50",
            "member_ids": [st(rec, "GET", f"/customers/{customer(rec)}")["user_id"]],
        }
    ),
    "group_put": Recipe(body={"name": "Wholesale partners", "discount_percent": "15.00"}),
    "group_patch": Recipe(body={"description": "Shops and hotels that resell our products."}),
    "my_group_get": Recipe(actor="customer", phase=CREATE + 1),
    "quotes_post": Recipe(
        actor="shopper",
        body=lambda rec, _p: {
            "name": "Eleni Markou",
            "email": "eleni.markou@example.com",
            "company": "Thessaloniki Crafts",
            "phone": "+30 2310 555 123",
            "message": "Price for 50 tote bags with our logo printed?",
            "items": [{"product_id": product(rec, TOTE), "quantity": 50}],
        },
    ),
    "newsletter_subscribe_post": Recipe(body={"email": "maria.papadopoulou@example.com"}),
    "newsletter_confirm_get": Recipe(params={"token": newsletter_token}),
    "recently_viewed_post": Recipe(body=lambda rec, _p: {"product_id": product(rec, TOTE)}),
    "wishlist_post": Recipe(body=lambda rec, _p: {"product_id": product(rec, TOTE)}),
    "wishlist_item_get": Recipe(params={"product_id": lambda rec, _p: product(rec, TOTE)}),
    "wishlist_item_delete": Recipe(params={"product_id": lambda rec, _p: product(rec, TOTE)}),
    "validate_vat_get": Recipe(query={"vat_number": "EL094014201"}),
    "validate_vat_post": Recipe(body={"vat_number": "DE136695976"}),
    "product_names_get": Recipe(
        query=lambda rec, _p: {
            "ids": f"{product(rec, TEE)},{product(rec, TOTE)},{product(rec, CAP)}"
        }
    ),
    "product_labels_get": Recipe(params={"product_id": lambda rec, _p: product(rec, TEE)}),
    "search_get": Recipe(query={"q": "tote", "per_page": 5}),
    "menu_get": Recipe(params={"location": "primary"}),
    "preset_get": Recipe(params={"category": "hero", "slug": "centered"}),
    "settings_put": Recipe(
        body={
            "tagline": "Everything for the home",
            "announcement_enabled": True,
            "announcement_text": "Free shipping over 50 EUR",
        }
    ),
    "settings_patch": Recipe(body={"accent_color": "#0f766e"}),
    "render_post": Recipe(body=lambda rec, _p: {"blocks": template_blocks(rec)}),
    "templates_post": Recipe(
        body=lambda rec, _p: {
            "name": "Winter sale banner",
            "description": "A heading and a button to the sale.",
            "blocks": template_blocks(rec)[:2],
        }
    ),
    "template_put": Recipe(
        body=lambda rec, _p: {
            "name": "Winter sale banner",
            "description": "A heading, a line of text and a button to the sale.",
            "blocks": template_blocks(rec)[:3],
        }
    ),
    "template_patch": Recipe(body={"description": "Centred, for the sale pages."}),
    "layout_get": Recipe(params={"page_id": HOME_PAGE}),
    "layout_post": Recipe(
        params={"page_id": HOME_PAGE},
        body=lambda rec, _p: {
            "blocks": th(rec, "GET", f"/builder/layout/{HOME_PAGE}")["layout"]["blocks"],
            "status": "published",
            "version": th(rec, "GET", f"/builder/layout/{HOME_PAGE}")["layout"]["version"],
        },
    ),
    "preview_get": Recipe(params={"page_id": HOME_PAGE}),
    "preview_post": Recipe(
        params={"page_id": HOME_PAGE}, body=lambda rec, _p: {"blocks": template_blocks(rec)}
    ),
    "recover_cart_get": Recipe(actor="anonymous", phase=LAST - 2, params={"token": recovery_token}),
    "mcp_post": Recipe(
        headers={"Accept": "application/json, text/event-stream"},
        body={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ),
    "points_balance_get": Recipe(actor="customer"),
    "points_transactions_get": Recipe(actor="customer"),
}
