"""The cart's and the checkout's recipes (two guests with a cart cookie each: "shopper" keeps a
cart, "buyer" checks out), and the coupons.
"""

from __future__ import annotations

from common.api.examples.recipes.shared import demo_password
from common.api.examples.recipes.store_shared import (
    ADDRESS,
    CAP,
    TEE,
    TOTE,
    first_list,
    product,
    st,
    tee_variant,
)
from common.api.examples.recorder import ACTION, FIRST, LAST, Recipe, Recorder


def shopper_cart_line(rec: Recorder, title: str) -> str:
    cart = st(rec, "GET", "/cart", actor="shopper")["cart"]
    return next(item["id"] for item in cart["items"] if item["title"].startswith(title))


def fill_cart(actor: str):
    def prepare(rec: Recorder) -> None:
        st(rec, "POST", "/cart/items", {"product_id": product(rec, CAP), "quantity": 1}, actor)
        st(
            rec,
            "POST",
            "/cart/shipping-address",
            {"country": "GR", "region": "I", "postcode": "10563"},
            actor,
        )

    return prepare


def cart_method(rec: Recorder, actor: str) -> int:
    methods = st(rec, "GET", "/cart/shipping-methods", actor=actor)
    return first_list(methods)[0]["id"]


def buyer_checkout(rec: Recorder, *_args) -> int:
    return st(rec, "GET", "/checkout", actor="buyer")["id"]


CART_RECIPES: dict[str, Recipe] = {
    # The cart: a guest with a cart cookie.
    "cart_items_post": Recipe(
        phase=FIRST,
        before=lambda rec: st(
            rec, "POST", "/cart/items", {"product_id": product(rec, TOTE), "quantity": 1}, "shopper"
        ),
        body=lambda rec, _p: {
            "product_id": product(rec, TEE),
            "variant_id": tee_variant(rec),
            "quantity": 2,
        },
    ),
    "cart_shipping_address_post": Recipe(
        phase=FIRST + 1, body={"country": "GR", "region": "I", "postcode": "10563"}
    ),
    "cart_shipping_method_post": Recipe(
        phase=FIRST + 2, body=lambda rec, _p: {"method_id": cart_method(rec, "shopper")}
    ),
    "coupon_apply_post": Recipe(phase=FIRST + 3, body={"code": "WELCOME10"}),
    "coupon_validate_post": Recipe(body={"code": "SAVE5"}),
    "coupon_remove_post": Recipe(phase=ACTION, body={"code": "WELCOME10"}),
    "cart_item_put": Recipe(
        params={"item_id": lambda rec, _p: shopper_cart_line(rec, TEE)}, body={"quantity": 3}
    ),
    "cart_item_patch": Recipe(
        params={"item_id": lambda rec, _p: shopper_cart_line(rec, TEE)}, body={"quantity": 2}
    ),
    "cart_item_delete": Recipe(params={"item_id": lambda rec, _p: shopper_cart_line(rec, TOTE)}),
    "cart_clear_post": Recipe(phase=LAST),
    # The checkout: another guest, who places an order.
    "checkout_post": Recipe(
        actor="buyer",
        before=fill_cart("buyer"),
        body=lambda rec, _p: {
            "email": "maria.papadopoulou@example.com",
            "billing_address": ADDRESS,
            "shipping_method": cart_method(rec, "buyer"),
            "payment_method": "bank_transfer",
            "customer_note": "Please ring the bell twice.",
        },
    ),
    "checkout_get": Recipe(actor="buyer"),
    "checkout_detail_get": Recipe(actor="buyer", params={"checkout_id": buyer_checkout}),
    "checkout_detail_put": Recipe(
        actor="buyer",
        params={"checkout_id": buyer_checkout},
        body={"customer_note": "Leave the parcel with the concierge."},
    ),
    "checkout_detail_patch": Recipe(
        actor="buyer",
        params={"checkout_id": buyer_checkout},
        body={"payment_method": "cash_on_delivery"},
    ),
    "checkout_validate_post": Recipe(actor="buyer", params={"checkout_id": buyer_checkout}),
    "checkout_complete_post": Recipe(
        actor="buyer",
        phase=ACTION + 1,
        params={"checkout_id": buyer_checkout},
        body={"payment_method": "bank_transfer"},
    ),
    "checkout_login_post": Recipe(
        actor="anonymous",
        body=lambda rec, _p: {"email": "developer@example.com", "password": demo_password()},
        error={"body": {"email": "developer@example.com", "password": "not-my-password"}},
    ),
    "checkout_create_account_post": Recipe(
        actor="anonymous",
        body={
            "email": "nikos.konstantinou@example.com",
            "password": "Blue-Harbour-77",
            "first_name": "Nikos",
            "last_name": "Konstantinou",
        },
    ),
    "check_email_post": Recipe(body={"email": "developer@example.com"}),
    "payment_methods_get": Recipe(actor="buyer"),
    # Coupons (staff).
    "admin_coupon_list_post": Recipe(
        body={
            "code": "SUMMER15",
            "description": "15% off the summer collection",
            "discount_type": "percent",
            "amount": "15.00",
            "minimum_amount": "25.00",
            "usage_limit_per_user": 1,
            "enabled": True,
        }
    ),
    "admin_coupon_detail_patch": Recipe(body={"amount": "20.00"}),
}
