"""The orders' recipes: orders and their items, statuses, payments, shipments and couriers,
refunds, the invoice of an order, the order-received page.
"""

from __future__ import annotations

from common.api.examples.recipes.store_shared import (
    CAP,
    new_order,
    order_body,
    product,
    recorded_id,
    st,
)
from common.api.examples.recorder import ACTION, Recipe, Recorder


def order_item(rec: Recorder, order_id: int, index: int = 0) -> int:
    return st(rec, "GET", f"/orders/{order_id}/items")["items"][index]["id"]


def paid_order(rec: Recorder) -> dict:
    """A new order, paid in full by bank transfer."""
    order = new_order(rec)
    st(
        rec,
        "POST",
        f"/orders/{order['id']}/payments",
        {"amount": order["total"], "method": "bank_transfer", "status": "completed"},
    )
    return order


ORDER_RECIPES: dict[str, Recipe] = {
    # Orders.
    "order_list_post": Recipe(body=lambda rec, _p: order_body(rec)),
    "order_list_get": Recipe(query={"per_page": 3, "status": "processing"}),
    "order_items_post": Recipe(
        body=lambda rec, _p: {"product_id": product(rec, CAP), "quantity": 1}
    ),
    "order_item_detail_get": Recipe(
        params={"item_id": lambda rec, p: order_item(rec, p["order_id"])}
    ),
    "order_item_detail_put": Recipe(
        params={"item_id": lambda rec, p: order_item(rec, p["order_id"])}, body={"quantity": 3}
    ),
    "order_item_detail_patch": Recipe(
        params={"item_id": lambda rec, p: order_item(rec, p["order_id"])}, body={"quantity": 2}
    ),
    "order_item_detail_delete": Recipe(
        params={"item_id": lambda rec, p: order_item(rec, p["order_id"], -1)}
    ),
    "order_shipments_post": Recipe(
        phase=ACTION + 1,
        body=lambda rec, p: {
            "items": [{"order_item_id": order_item(rec, p["order_id"]), "quantity": 1}],
            "carrier": "ACS",
            "tracking_number": "7301234567",
            "tracking_url": "https://www.acscourier.net/en/track?number=7301234567",
        },
    ),
    "order_payments_post": Recipe(
        body={
            "amount": "20.00",
            "method": "bank_transfer",
            "status": "completed",
            "transaction_id": "BT-2026-000118",
            "note": "Part payment received by bank transfer.",
        }
    ),
    "order_status_put": Recipe(body={"status": "on_hold", "note": "Waiting for the customer."}),
    "order_status_patch": Recipe(body={"status": "processing"}),
    "order_payment_status_put": Recipe(body={"payment_status": "paid", "note": "Paid in full."}),
    "order_payment_status_patch": Recipe(body={"payment_status": "paid"}),
    "order_fulfillment_status_put": Recipe(
        phase=ACTION + 7, body={"fulfillment_status": "partially_fulfilled"}
    ),
    "order_fulfillment_status_patch": Recipe(
        phase=ACTION + 7, body={"fulfillment_status": "partially_fulfilled"}
    ),
    "order_detail_patch": Recipe(body={"admin_note": "Gift wrap requested by phone."}),
    "order_bulk_post": Recipe(
        phase=ACTION,
        body=lambda rec, _p: {
            "ids": [new_order(rec)["id"], new_order(rec)["id"]],
            "action": "completed",
            "note": "Delivered by hand at the shop.",
        },
    ),
    "order_payments_get": Recipe(phase=ACTION + 8),
    "order_shipments_get": Recipe(phase=ACTION + 8),
    "payment_detail_get": Recipe(
        phase=ACTION + 1, params={"payment_id": recorded_id("order_payments_post")}
    ),
    "payment_detail_put": Recipe(
        phase=ACTION + 2,
        params={"payment_id": recorded_id("order_payments_post")},
        body={"amount": "25.00"},
    ),
    "payment_detail_patch": Recipe(
        phase=ACTION + 2,
        params={"payment_id": recorded_id("order_payments_post")},
        body={"note": "Confirmed on the bank statement."},
    ),
    "payment_detail_delete": Recipe(params={"payment_id": recorded_id("order_payments_post")}),
    "shipment_detail_get": Recipe(
        phase=ACTION + 5, params={"shipment_id": recorded_id("order_shipments_post")}
    ),
    "shipment_detail_put": Recipe(
        phase=ACTION + 6,
        params={"shipment_id": recorded_id("order_shipments_post")},
        body={"status": "delivered"},
    ),
    "shipment_detail_patch": Recipe(
        phase=ACTION + 6,
        params={"shipment_id": recorded_id("order_shipments_post")},
        body={"tracking_number": "7301234568"},
    ),
    "shipment_detail_delete": Recipe(params={"shipment_id": recorded_id("order_shipments_post")}),
    "email_resend_post": Recipe(
        params={"order_id": recorded_id("order_list_post")}, body={"type": "order_confirmation"}
    ),
    "order_courier_voucher_create_post": Recipe(
        phase=ACTION + 2,
        body=lambda rec, _p: {
            "provider": "sandbox",
            "shipment_id": rec.value("store", "order_shipments_post", "id"),
            "weight": "1.200",
            "parcels": 1,
            "note": "Fragile: mugs inside.",
        },
    ),
    "order_courier_label_get": Recipe(
        phase=ACTION + 3,
        params={"shipment_id": recorded_id("order_shipments_post")},
    ),
    "order_courier_track_get": Recipe(
        phase=ACTION + 3,
        params={"shipment_id": recorded_id("order_shipments_post")},
    ),
    "order_courier_cancel_post": Recipe(
        phase=ACTION + 4,
        params={"shipment_id": recorded_id("order_shipments_post")},
    ),
    "order_received_get": Recipe(
        actor="anonymous",
        phase=ACTION + 5,
        params={
            "order_id": lambda rec, _p: rec.value("store", "checkout_complete_post", "order_id")
        },
        query=lambda rec, _p: {"key": rec.value("store", "checkout_complete_post", "order_key")},
        error={"query": {"key": "ec_order_not-the-key"}},
    ),
    "invoice_from_order_post": Recipe(
        params={"order_id": lambda rec, _p: rec.value("store", "order_list_post", "id")}
    ),
    "refund_post": Recipe(
        params={
            "order_id": lambda rec, _p: paid_order(rec)["id"],
        },
        body={"amount": "10.00", "reason": "One tote bag arrived torn.", "restock": False},
    ),
    "order_detail_delete": Recipe(params={"order_id": lambda rec, _p: new_order(rec)["id"]}),
}
