"""The recipes of shipping (zones and their methods, the rates' calculation), tax (classes,
rates, the calculation) and the couriers (settings, vouchers, labels, tracking, pickups).
"""

from __future__ import annotations

from common.api.examples.recipes.store_shared import ADDRESS, TOTE, product, recorded_id
from common.api.examples.recorder import ACTION, Recipe, Recorder, today


def voucher_number(rec: Recorder, _params) -> str:
    return rec.value("store", "courier_voucher_create_post", "number")


SHIPPING_RECIPES: dict[str, Recipe] = {
    # Shipping and tax.
    "zone_methods_get": Recipe(phase=ACTION + 1),
    "calculate_post": Recipe(
        body=lambda rec, _p: {
            "address": {"country": "GR", "region": "I", "postcode": "10563"},
            "lines": [{"product_id": product(rec, TOTE), "quantity": 2}],
        }
    ),
    "zone_methods_post": Recipe(
        body={
            "type": "flat_rate",
            "title": "Evening delivery",
            "description": "Delivered between 18:00 and 21:00.",
            "settings": {"cost": "6.50"},
        }
    ),
    "method_detail_get": Recipe(
        phase=ACTION + 1, params={"method_id": recorded_id("zone_methods_post")}
    ),
    "method_detail_put": Recipe(
        phase=ACTION + 2,
        params={"method_id": recorded_id("zone_methods_post")},
        body={"type": "flat_rate", "title": "Evening courier", "settings": {"cost": "7.00"}},
    ),
    "method_detail_patch": Recipe(
        phase=ACTION + 2,
        params={"method_id": recorded_id("zone_methods_post")},
        body={"enabled": False},
    ),
    "method_detail_delete": Recipe(params={"method_id": recorded_id("zone_methods_post")}),
    "zones_post": Recipe(
        body={
            "name": "Cyprus",
            "sort_order": 5,
            "regions": [{"type": "country", "code": "CY"}],
        }
    ),
    "tax_class_list_post": Recipe(body={"name": "Books", "sort_order": 3}),
    "tax_calculate_post": Recipe(
        body=lambda rec, _p: {
            "address": {"country": "GR", "region": "I", "postcode": "10563"},
            "lines": [{"product_id": product(rec, TOTE), "quantity": 2}],
            "shipping": "3.50",
        }
    ),
    "tax_rate_list_post": Recipe(
        body={
            "tax_class": "reduced-rate",
            "country": "GR",
            "region": "M",
            "rate": "9.0000",
            "name": "VAT (Crete, reduced)",
            "priority": 2,
        }
    ),
    "tax_rate_toggle_post": Recipe(body={"enabled": False}),
    # Couriers.
    "courier_settings_patch": Recipe(body={"sandbox": {"default_weight": "0.800"}}),
    "courier_settings_put": Recipe(
        body={
            "sandbox": {
                "enabled": True,
                "sender": {
                    **ADDRESS,
                    "first_name": "Emporion",
                    "last_name": "Store",
                    "company": "Emporion Store",
                },
            }
        }
    ),
    "courier_test_connection_post": Recipe(params={"provider": "sandbox"}),
    "courier_voucher_create_post": Recipe(
        phase=ACTION,
        params={"provider": "sandbox"},
        body={
            "recipient": {**ADDRESS},
            "weight": "0.500",
            "parcels": 1,
            "reference": "RMA-2026-014",
            "note": "Return of a faulty item.",
        },
    ),
    "courier_label_get": Recipe(
        phase=ACTION + 1, params={"provider": "sandbox", "voucher": voucher_number}
    ),
    "courier_track_get": Recipe(
        phase=ACTION + 1, params={"provider": "sandbox", "voucher": voucher_number}
    ),
    "courier_cancel_post": Recipe(
        phase=ACTION + 2, params={"provider": "sandbox", "voucher": voucher_number}
    ),
    "courier_pickup_list_get": Recipe(
        phase=ACTION + 3, query=lambda rec, _p: {"provider": "sandbox", "date": today().isoformat()}
    ),
}
