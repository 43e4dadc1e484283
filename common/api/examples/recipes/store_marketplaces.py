"""The marketplaces' recipes: their settings, the orders they send (signed webhooks), their
category mapping and the product feeds.
"""

from __future__ import annotations

from common.api.examples.recipes.store_shared import (
    CAP,
    TOTE,
    category,
    first_list,
    product,
    signed,
    st,
    store_prefix,
)
from common.api.examples.recorder import (
    ACTION,
    FIRST,
    LAST,
    Call,
    Recipe,
    Recorder,
    RecordingError,
    iso_now,
)

# The signing secret the run gives the marketplace (a throwaway database's; the recorded
# bodies carry no signature).
MARKETPLACE_SECRET = "mk-examples-secret"  # noqa: S105 - the recording's own, never deployed


def marketplace_ready(rec: Recorder) -> None:
    if rec.values.get("marketplace_ready"):
        return
    st(
        rec,
        "PATCH",
        "/marketplace/settings",
        {
            "generic": {
                "enabled": True,
                "webhook_secret": MARKETPLACE_SECRET,
                "credentials": {
                    "api_url": "https://marketplace.example.com/api",
                    "api_token": "mk_live_examples",
                },
            }
        },
    )
    rec.values["marketplace_ready"] = True


def product_sku(rec: Recorder, title: str) -> str:
    return st(rec, "GET", f"/products/{product(rec, title)}")["sku"]


def marketplace_event(rec: Recorder, code: str, sku: str) -> dict:
    if sku == "TOTE-NAT":
        sku = product_sku(rec, TOTE)
    return {
        "id": f"evt_{code}",
        "type": "order.created",
        "created_at": iso_now(),
        "order": {
            "code": code,
            "state": "open",
            "currency": "EUR",
            "billing_address": {
                "first_name": "Katerina",
                "last_name": "Vlachou",
                "address_1": "Tsimiski 45",
                "city": "Thessaloniki",
                "postcode": "54623",
                "country": "GR",
                "email": "k.vlachou@example.com",
                "phone": "+30 2310 222 333",
            },
            "shipping_total": "3.50",
            "note": "",
            "items": [{"sku": sku, "quantity": 1, "unit_price": "14.90", "title": "Tote bag"}],
        },
    }


def marketplace_signature(rec: Recorder, _params, body) -> dict:
    return {"X-Marketplace-Signature": signed(MARKETPLACE_SECRET, body)}


def marketplace_order(rec: Recorder, code: str, sku: str = "TOTE-NAT") -> int:
    def listed():
        orders = first_list(st(rec, "GET", "/marketplace/orders?per_page=100"))
        return next((row["id"] for row in orders if row.get("code") == code), None)

    found = listed()
    if found is None:
        marketplace_ready(rec)
        if sku == "CAP-1":
            sku = product_sku(rec, CAP)
        body = marketplace_event(rec, code, sku)
        rec.send(
            Call(
                "anonymous",
                store_prefix(rec) + "/marketplace/webhook/generic",
                "POST",
                None,
                body,
                headers=marketplace_signature(rec, {}, body),
            )
        )
        found = listed()
    if found is None:
        raise RecordingError(f"no marketplace order {code}")
    return found


def failed_marketplace_order(rec: Recorder) -> int:
    """An order whose import failed (an unknown SKU), the SKU then added to the catalog."""
    order = marketplace_order(rec, "G-1003", "SCARF-BLUE")
    st(
        rec,
        "POST",
        "/products",
        {
            "title": "Merino Scarf, blue",
            "sku": "SCARF-BLUE",
            "status": "active",
            "price": "39.00",
            "stock_quantity": 8,
        },
    )
    return order


def feed_token(rec: Recorder, marketplace: str) -> str:
    feeds = first_list(st(rec, "GET", "/marketplace/feeds"))
    url = next(feed["url"] for feed in feeds if feed["marketplace"] == marketplace)
    return url.split("token=", 1)[1]


MARKETPLACE_RECIPES: dict[str, Recipe] = {
    # Marketplaces.
    "marketplace_settings_patch": Recipe(
        body={"generic": {"auto_acknowledge": False, "order_status": "processing"}}
    ),
    "marketplace_webhook_post": Recipe(
        actor="anonymous",
        phase=FIRST,
        params={"marketplace": "generic"},
        before=lambda rec: marketplace_ready(rec),
        body=lambda rec, _p: marketplace_event(rec, "G-1001", "TOTE-NAT"),
        headers=marketplace_signature,
    ),
    "marketplace_order_detail_get": Recipe(
        params={"order_id": lambda rec, _p: marketplace_order(rec, "G-1001")}
    ),
    "marketplace_acknowledge_post": Recipe(
        params={"order_id": lambda rec, _p: marketplace_order(rec, "G-1001")},
        body={"number_of_parcels": 1},
    ),
    "marketplace_ship_post": Recipe(
        phase=ACTION + 1,
        params={"order_id": lambda rec, _p: marketplace_order(rec, "G-1001")},
        body={"tracking_number": "7301234599", "carrier": "ACS"},
    ),
    "marketplace_reject_post": Recipe(
        params={"order_id": lambda rec, _p: marketplace_order(rec, "G-1002", sku="CAP-1")},
        body={"reason": "Out of stock in the requested colour."},
    ),
    "marketplace_import_post": Recipe(
        params={"order_id": lambda rec, _p: failed_marketplace_order(rec)},
    ),
    "category_mapping_get": Recipe(params={"marketplace": "google"}),
    "category_mapping_put": Recipe(
        params={"marketplace": "google"},
        body=lambda rec, _p: {"mapping": {str(category(rec, "Accessories")): "166"}},
    ),
    "category_mapping_patch": Recipe(
        params={"marketplace": "google"},
        body=lambda rec, _p: {
            "mapping": {str(category(rec, "Bags")): "Apparel & Accessories > Handbags"}
        },
    ),
    "feed_file_get": Recipe(
        actor="anonymous",
        params={"marketplace": "google"},
        query=lambda rec, _p: {"token": feed_token(rec, "google")},
    ),
    "feed_gzip_get": Recipe(
        actor="anonymous",
        params={"marketplace": "google"},
        query=lambda rec, _p: {"token": feed_token(rec, "google")},
    ),
    "feed_rotate_token_post": Recipe(phase=LAST - 1, params={"marketplace": "skroutz"}),
}
