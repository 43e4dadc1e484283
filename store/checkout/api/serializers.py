"""Checkout bodies: input serializers (validate only) and the output shapes.

Outputs are plain functions (`checkout_data`, `completion_data`, ...); the serializer classes
beside them declare the same shapes for the OpenAPI description.
"""

from __future__ import annotations

from django.utils import timezone
from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.cart.shapes import (
    CartSerializer,
    ChosenMethodSerializer,
    NoticeSerializer,
    cart_data,
    method_data,
)
from store.checkout.models import Checkout, CheckoutStatus
from store.checkout.services.checkout import (
    Validation,
    needs_payment,
    needs_shipping_address,
    shipping_address_of,
)
from store.common.addresses import REQUIRED_ADDRESS, AddressSerializer, address_data
from store.common.cart_session import CartHintField
from store.common.formats import iso
from store.common.money import MoneyField, money_str
from store.common.nonce import NonceAnswerSerializer
from store.common.params import AliasedSerializer
from store.orders.choices import OrderStatus, PaymentRecordStatus, PaymentStatus
from store.orders.selectors import order_received_url
from store.payments.gateways import GATEWAYS, KINDS

# --- Input ---------------------------------------------------------------------------------------


class CheckoutWriteSerializer(AliasedSerializer):
    """Accepts the alternative names of some fields (clients send both spellings)."""

    aliases = {
        "billing": "billing_address",
        "shipping": "shipping_address",
        "shipping_method_id": "shipping_method",
        "note": "customer_note",
    }

    email = serializers.EmailField(
        required=False, allow_blank=True, max_length=254, help_text="Where the order e-mail goes."
    )
    billing_address = AddressSerializer(
        required=False, help_text="Also accepted as `billing`. Replaces the stored one."
    )
    shipping_address = AddressSerializer(
        required=False,
        allow_null=True,
        help_text="Also accepted as `shipping`; null or absent: ship to the billing address.",
    )
    shipping_method = IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        help_text="A method id of GET /cart/shipping-methods (also `shipping_method_id`).",
    )
    payment_method = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=40,
        help_text="An id of GET /checkout/payment-methods.",
    )
    customer_note = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text="Also accepted as `note`."
    )
    vat_number = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=32,
        help_text="The customer's EU VAT number with its country prefix (checked with "
        "python-stdnum; blank removes it). Kept on the cart: with tax.eu_reverse_charge on and "
        "a member state other than the store's, the cart and the order carry no tax.",
    )
    cart_id = CartHintField()


class CardDataInputSerializer(serializers.Serializer):
    card_number = serializers.CharField(help_text="12-19 digits; spaces and dashes ignored.")
    exp_month = IntegerField(column="PositiveSmallIntegerField", min_value=1, max_value=12)
    exp_year = IntegerField(column="PositiveSmallIntegerField", help_text="Four digits (or two).")
    cvc = serializers.CharField(help_text="3 digits (4 for American Express).")
    holder = serializers.CharField(required=False)


class CompleteSerializer(serializers.Serializer):
    payment_method = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=40,
        help_text="Changes the checkout's method (e.g. to bank_transfer after a declined card).",
    )
    payment_data = serializers.DictField(
        required=False,
        allow_null=True,
        help_text="For sandbox_card: card_number, exp_month, exp_year, cvc (holder). Checked, "
        "sent to the provider, never stored (only brand and last four digits).",
    )
    expected_total = MoneyField(
        required=False,
        allow_null=True,
        help_text="The total the shopper saw: a different total now refuses (409 total_changed).",
    )
    cart_id = CartHintField()


class CheckEmailSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)
    cart_id = CartHintField()


class LoginSerializer(serializers.Serializer):
    email = serializers.CharField(max_length=254)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)
    cart_id = CartHintField()


class CreateAccountSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)
    name = serializers.CharField(
        max_length=150,
        required=False,
        allow_blank=True,
        help_text="Default: first and last name, else the e-mail's local part.",
    )
    first_name = serializers.CharField(max_length=100, required=False, allow_blank=True)
    last_name = serializers.CharField(max_length=100, required=False, allow_blank=True)
    cart_id = CartHintField()


# --- Output --------------------------------------------------------------------------------------


def order_ref(checkout: Checkout, *, config: dict) -> dict | None:
    order = checkout.order
    if order is None:
        return None
    return {
        "id": order.pk,
        "order_number": order.order_number,
        "order_key": order.order_key,
        "status": order.status,
        "payment_status": order.payment_status,
        "total": money_str(order.total),
        "currency": order.currency,
        "order_received_url": order_received_url(order, config=config),
    }


def vat_data(state, order) -> dict:
    """The VAT number and the reverse charge: the priced cart's until the order is placed,
    then what the order recorded."""
    if state is not None:
        return {
            "vat_number": state.cart.vat_number if state.cart is not None else "",
            "reverse_charge": state.reverse_charge,
        }
    if order is not None:
        return {"vat_number": order.vat_number, "reverse_charge": order.reverse_charge}
    return {"vat_number": "", "reverse_charge": False}


def checkout_data(checkout: Checkout, *, state, config: dict) -> dict:
    """The checkout; `state` is its cart priced (None once the order is placed)."""
    gateway = GATEWAYS.get(checkout.payment_method)
    now = timezone.now()
    held = checkout.status == CheckoutStatus.OPEN and checkout.expires_at is not None
    order = checkout.order
    return {
        "id": checkout.pk,
        "status": checkout.status,
        "email": checkout.email,
        "billing_address": address_data(checkout.billing_address),
        "shipping_address": address_data(shipping_address_of(checkout)),
        "ship_to_billing": not checkout.shipping_address,
        "shipping_method": method_data(state) if state is not None else None,
        "payment_method": checkout.payment_method,
        "payment_method_title": gateway.title(config) if gateway is not None else "",
        "customer_note": checkout.customer_note,
        **vat_data(state, order),
        "needs_payment": needs_payment(state)
        if state is not None
        else bool(order is not None and order.total > 0),
        "needs_shipping_address": needs_shipping_address(state) if state is not None else False,
        "hold": {
            "active": held and checkout.expires_at > now,
            "stock_held": checkout.hold_cart_id is not None,
            "expires_at": iso(checkout.expires_at) if held else None,
            "minutes": config["checkout"]["hold_minutes"],
        },
        "cart": cart_data(state) if state is not None else None,
        "order": order_ref(checkout, config=config),
        "payment": {
            "due_at": iso(checkout.payment_due_at),
            "attempts": checkout.payment_attempts,
            "last_error": checkout.payment_error or None,
        },
        "created_at": iso(checkout.created_at),
        "updated_at": iso(checkout.updated_at),
        "completed_at": iso(checkout.completed_at),
    }


def validation_data(result: Validation, *, state, config: dict) -> dict:
    return {
        "valid": result.valid,
        "problems": [
            {"code": p.code, "message": p.message, "params": p.params or None}
            for p in result.problems
        ],
        "notices": result.notices,
        "checkout": checkout_data(result.checkout, state=state, config=config),
    }


def completion_data(checkout: Checkout, *, config: dict) -> dict:
    order = checkout.order
    gateway = GATEWAYS.get(order.payment_method)
    paid = order.payment_status == PaymentStatus.PAID
    payment = (
        order.payments.filter(status=PaymentRecordStatus.COMPLETED).order_by("-paid_at").first()
        if paid
        else None
    )
    return {
        "checkout_id": checkout.pk,
        "order_id": order.pk,
        "order_number": order.order_number,
        "order_key": order.order_key,
        "order_received_url": order_received_url(order, config=config),
        "status": order.status,
        "payment_status": order.payment_status,
        "total": money_str(order.total),
        "currency": order.currency,
        "payment_method": order.payment_method,
        "payment_method_title": order.payment_method_title,
        "transaction_id": payment.transaction_id if payment is not None else None,
        "instructions": gateway.instructions(config, order_number=order.order_number)
        if gateway is not None and not paid and order.status != OrderStatus.CANCELLED
        else "",
        "payment_due_at": iso(checkout.payment_due_at),
    }


def settings_data(config: dict, methods: list) -> dict:
    checkout = config["checkout"]
    required = list(REQUIRED_ADDRESS) + (["phone"] if checkout["require_phone"] else [])
    return {
        "guest_checkout": checkout["guest_checkout"],
        "account_creation": checkout["account_creation"],
        "require_phone": checkout["require_phone"],
        "required_fields": {
            "email": True,
            "billing_address": required,
            "shipping_address": list(REQUIRED_ADDRESS),
        },
        "hold_minutes": checkout["hold_minutes"],
        "unpaid_order_hold_minutes": checkout["unpaid_order_hold_minutes"],
        "bank_transfer_hold_hours": config["payments"]["bank_transfer_hold_hours"],
        "offline_payment_hold_minutes": checkout["offline_payment_hold_minutes"],
        "max_quantity": config["cart"]["max_quantity"],
        "guest_order_max_units": checkout["guest_order_max_units"],
        "shopper_hold_percent": checkout["shopper_hold_percent"],
        "shopper_hold_min_units": checkout["shopper_hold_min_units"],
        "terms_url": checkout["terms_url"],
        "currency": config["currency"]["currency"],
        "prices_include_tax": config["tax"]["prices_include_tax"],
        "payment_methods": [gateway.id for gateway in methods],
    }


def payment_methods_data(config: dict, methods: list, state) -> dict:
    return {
        "payment_methods": [gateway.describe(config) for gateway in methods],
        "needs_payment": needs_payment(state),
        "total": money_str(state.totals["total"]),
        "currency": state.currency,
    }


# --- Declarations for the OpenAPI description ----------------------------------------------------


class CheckoutOrderSerializer(serializers.Serializer):
    id = IdField()
    order_number = serializers.CharField()
    order_key = serializers.CharField(help_text="The key of /order-received/{id}?key=.")
    status = serializers.ChoiceField(choices=OrderStatus.choices)
    payment_status = serializers.ChoiceField(choices=PaymentStatus.choices)
    total = serializers.CharField()
    currency = serializers.CharField()
    order_received_url = serializers.CharField()


class HoldSerializer(serializers.Serializer):
    active = serializers.BooleanField(help_text="Stock and coupon uses are held now.")
    stock_held = serializers.BooleanField(help_text="Some stock of the cart is held.")
    expires_at = serializers.DateTimeField(allow_null=True, help_text="When the hold ends.")
    minutes = IntegerField(help_text="How long each write holds (setting).")


class PaymentErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="e.g. card_declined, insufficient_funds.")
    message = serializers.CharField()
    at = serializers.DateTimeField()


class CheckoutPaymentSerializer(serializers.Serializer):
    due_at = serializers.DateTimeField(
        allow_null=True, help_text="The unpaid order is cancelled after this."
    )
    attempts = IntegerField(help_text="Card payments tried.")
    last_error = PaymentErrorSerializer(allow_null=True)


class CheckoutSerializer(serializers.Serializer):
    id = IdField()
    status = serializers.ChoiceField(choices=CheckoutStatus.choices)
    email = serializers.CharField()
    billing_address = AddressSerializer()
    shipping_address = AddressSerializer(help_text="Where the order ships (billing if none).")
    ship_to_billing = serializers.BooleanField()
    shipping_method = ChosenMethodSerializer(allow_null=True)
    payment_method = serializers.CharField()
    payment_method_title = serializers.CharField()
    customer_note = serializers.CharField()
    vat_number = serializers.CharField(
        help_text="The customer's EU VAT number ('' for none): the cart's, then the order's."
    )
    reverse_charge = serializers.BooleanField(
        help_text="The EU B2B reverse charge applies (tax.eu_reverse_charge): no tax."
    )
    needs_payment = serializers.BooleanField(help_text="The total is above zero.")
    needs_shipping_address = serializers.BooleanField(help_text="Not for local pickup.")
    hold = HoldSerializer()
    cart = CartSerializer(allow_null=True, help_text="The cart priced (until the order exists).")
    order = CheckoutOrderSerializer(allow_null=True)
    payment = CheckoutPaymentSerializer()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    completed_at = serializers.DateTimeField(allow_null=True)


class ProblemSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="checkout_incomplete, cart_empty, insufficient_stock, a coupon code, "
        "no_shipping_method, payment_method_unavailable, login_required, ..."
    )
    message = serializers.CharField()
    params = serializers.DictField(child=serializers.CharField(), allow_null=True)


class ValidationSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    problems = ProblemSerializer(many=True)
    notices = NoticeSerializer(many=True, help_text="What pricing removed from the cart.")
    checkout = CheckoutSerializer()


class CompletionSerializer(serializers.Serializer):
    checkout_id = IdField()
    order_id = IdField()
    order_number = serializers.CharField()
    order_key = serializers.CharField()
    order_received_url = serializers.CharField(
        help_text="GET it (the key is in it) for the confirmation."
    )
    status = serializers.ChoiceField(choices=OrderStatus.choices)
    payment_status = serializers.ChoiceField(choices=PaymentStatus.choices)
    total = serializers.CharField()
    currency = serializers.CharField()
    payment_method = serializers.CharField()
    payment_method_title = serializers.CharField()
    transaction_id = serializers.CharField(allow_null=True)
    instructions = serializers.CharField(help_text="What to do to pay (offline methods).")
    payment_due_at = serializers.DateTimeField(
        allow_null=True, help_text="Unpaid by then, the order is cancelled."
    )


class RequiredFieldsSerializer(serializers.Serializer):
    email = serializers.BooleanField()
    billing_address = serializers.ListField(child=serializers.CharField())
    shipping_address = serializers.ListField(child=serializers.CharField())


class CheckoutSettingsSerializer(serializers.Serializer):
    guest_checkout = serializers.BooleanField()
    account_creation = serializers.BooleanField()
    require_phone = serializers.BooleanField()
    required_fields = RequiredFieldsSerializer()
    hold_minutes = IntegerField()
    unpaid_order_hold_minutes = IntegerField()
    bank_transfer_hold_hours = IntegerField(
        help_text="The bank-transfer gateway's hold: an unpaid bank-transfer order is "
        "cancelled this long after it was placed, or after offline_payment_hold_minutes when "
        "that is shorter (the order's payment_due_at says when)."
    )
    offline_payment_hold_minutes = IntegerField(
        help_text="The longest an order awaiting an offline payment (bank transfer) keeps its "
        "stock before it is cancelled unpaid."
    )
    max_quantity = IntegerField(help_text="Units of one item a cart may hold.")
    guest_order_max_units = IntegerField(
        help_text="Units in all a guest's order may hold (an account with a verified e-mail "
        "address: no limit)."
    )
    shopper_hold_percent = IntegerField(
        help_text="The share of an item's stock one shopper (a cart session, or a client "
        "address) may hold across its open checkouts and unpaid orders, or "
        "shopper_hold_min_units when that is more (an account with a verified e-mail address: "
        "no limit)."
    )
    shopper_hold_min_units = IntegerField(
        help_text="The units of an item one shopper may always hold."
    )
    terms_url = serializers.CharField()
    currency = serializers.CharField()
    prices_include_tax = serializers.BooleanField()
    payment_methods = serializers.ListField(child=serializers.CharField())


class TestCardSerializer(serializers.Serializer):
    number = serializers.CharField()
    brand = serializers.CharField()
    result = serializers.CharField()


class PaymentMethodSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="sandbox_card, bank_transfer, cash_on_delivery")
    title = serializers.CharField()
    description = serializers.CharField()
    type = serializers.ChoiceField(choices=KINDS)
    instructions = serializers.CharField()
    test_cards = TestCardSerializer(many=True, help_text="Sandbox only.")


class PaymentMethodsSerializer(serializers.Serializer):
    payment_methods = PaymentMethodSerializer(many=True)
    needs_payment = serializers.BooleanField()
    total = serializers.CharField()
    currency = serializers.CharField()


class CheckEmailAnswerSerializer(serializers.Serializer):
    email = serializers.CharField()
    account_exists = serializers.BooleanField()
    guest_checkout = serializers.BooleanField()
    account_creation = serializers.BooleanField()


class SessionUserSerializer(serializers.Serializer):
    id = IdField()
    email = serializers.CharField()
    name = serializers.CharField()
    email_verified = serializers.BooleanField()


class LoginAnswerSerializer(NonceAnswerSerializer):
    user = SessionUserSerializer()
    cart = CartSerializer(help_text="The account's cart, the guest cart merged in.")
    checkout_id = IdField(allow_null=True, help_text="The open checkout, now the account's.")
