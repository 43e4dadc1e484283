"""The cart as the store answers it: the body builders (`cart_data`, `summary_data`,
`shipping_methods_data`, ...) and the serializer classes that declare the same shapes for the
OpenAPI description.

A public module of the cart (not its `api`): the checkout answers a checkout with its cart and
chosen method in these shapes. The cart's input serializers are store.cart.api.serializers.
"""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.cart.services.pricing import CartState, PricedItem, title_of
from store.cart.services.stock import stock_limit
from store.catalog.choices import StockStatus
from store.common.money import from_cents, money_str
from store.coupons.models import DiscountType
from store.shipping.models import MethodType
from store.shipping.shapes import QuoteSerializer, quote_data


def _image(item) -> str | None:
    variant = item.variant
    image = variant.image if variant is not None and variant.image_id else None
    image = image or item.product.featured_image
    return image.url if image is not None else None


def item_data(priced: PricedItem, *, max_quantity: int, held: int = 0) -> dict:
    item = priced.item
    product, variant = item.product, item.variant
    source = variant or product
    limit = stock_limit(product, variant, held=held)
    return {
        "id": item.key,
        "product_id": product.pk,
        "variant_id": item.variant_id,
        "title": title_of(item),
        "sku": (variant.sku if variant is not None and variant.sku else "") or product.sku,
        "price": money_str(priced.unit),
        "regular_price": money_str(source.regular_price),
        "on_sale": bool(source.on_sale),
        "quantity": item.quantity,
        "total": money_str(priced.unit * item.quantity),
        "image": _image(item),
        "options": item.options,
        "stock_status": source.stock_status,
        "max_quantity": max_quantity if limit is None else min(limit, max_quantity),
    }


def coupon_entry(state: CartState) -> list[dict]:
    amounts = {entry.code: entry for entry in state.amounts.coupons}
    out = []
    for coupon, terms in state.coupons:
        entry = amounts.get(terms.code)
        out.append(
            {
                "code": coupon.code,
                "description": coupon.description,
                "discount_type": coupon.discount_type,
                "amount": money_str(coupon.amount),
                "free_shipping": coupon.free_shipping,
                "discount": money_str(from_cents(entry.discount if entry else 0)),
                "discount_tax": money_str(from_cents(entry.discount_tax if entry else 0)),
            }
        )
    return out


def address_data(state: CartState) -> dict | None:
    if state.address is None:
        return None
    return {
        "country": state.address.country,
        "region": state.address.region,
        "postcode": state.address.postcode,
    }


def method_data(state: CartState) -> dict | None:
    quote = state.method
    if quote is None:
        return None
    return {
        "id": quote.method.pk,
        "type": quote.method.type,
        "title": quote.method.title,
        "cost": money_str(from_cents(quote.cost)),
    }


def _totals(state: CartState) -> dict:
    return {key: money_str(value) for key, value in state.totals.items()}


def summary_data(state: CartState) -> dict:
    return {
        "item_count": state.item_count,
        "line_count": len(state.items),
        **_totals(state),
        "coupons": coupon_entry(state),
        "currency": state.currency,
        "prices_include_tax": state.prices_include_tax,
        "needs_shipping": bool(state.items),
        "shipping_method": method_data(state),
        "vat_number": state.cart.vat_number if state.cart is not None else "",
        "reverse_charge": state.reverse_charge,
    }


def cart_data(state: CartState, *, notices: list[dict] | None = None) -> dict:
    max_quantity = state.config["cart"]["max_quantity"]
    return {
        "items": [
            item_data(
                priced,
                max_quantity=max_quantity,
                held=state.held.get((priced.item.product_id, priced.item.variant_id), 0),
            )
            for priced in state.items
        ],
        **summary_data(state),
        "tax_lines": [
            {
                "rate_id": line.rate.id,
                "label": line.rate.label,
                "rate": format(line.rate.percent.normalize(), "f"),
                "amount": money_str(from_cents(line.amount)),
            }
            for line in state.amounts.tax_lines
        ],
        "shipping_address": address_data(state),
        "notices": [*state.notices, *(notices or [])],
    }


def shipping_methods_data(state: CartState) -> dict:
    chosen = state.method.method.pk if state.method is not None else None
    methods = [  # cost and tax from store.shipping.selectors.shipping_for
        {**quote_data(quote), "selected": quote.method.pk == chosen} for quote in state.quotes
    ]
    location = state.location
    return {
        "methods": methods,
        "address": address_data(state),
        "location": {
            "country": location.country,
            "region": location.region,
            "postcode": location.postcode,
        },
        "prices_include_tax": state.prices_include_tax,
    }


# --- Declarations for the OpenAPI description ----------------------------------------------------


class CartItemSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The cart-item token (use it in /cart/items/{item_id}).")
    product_id = IdField()
    variant_id = IdField(allow_null=True)
    title = serializers.CharField()
    sku = serializers.CharField()
    price = serializers.CharField(help_text="Unit price, as prices are entered (decimal string).")
    regular_price = serializers.CharField(allow_null=True)
    on_sale = serializers.BooleanField()
    quantity = IntegerField()
    total = serializers.CharField(help_text="price x quantity (decimal string).")
    image = serializers.CharField(allow_null=True, help_text="Image URL.")
    options = serializers.DictField()
    stock_status = serializers.ChoiceField(choices=StockStatus.choices)
    max_quantity = IntegerField(help_text="The most units this line may hold now.")


class CartCouponSerializer(serializers.Serializer):
    code = serializers.CharField()
    description = serializers.CharField()
    discount_type = serializers.ChoiceField(choices=DiscountType.choices)
    amount = serializers.CharField()
    free_shipping = serializers.BooleanField()
    discount = serializers.CharField(help_text="Taken off, without tax.")
    discount_tax = serializers.CharField(help_text="Tax taken off with it.")


class ShippingDestinationSerializer(serializers.Serializer):
    """Where a cart ships to: enough to pick a zone, not a full postal address."""

    country = serializers.CharField()
    region = serializers.CharField()
    postcode = serializers.CharField()


class ChosenMethodSerializer(serializers.Serializer):
    id = IdField()
    type = serializers.ChoiceField(choices=MethodType.choices)
    title = serializers.CharField()
    cost = serializers.CharField()


class TaxLineSerializer(serializers.Serializer):
    rate_id = IdField()
    label = serializers.CharField()
    rate = serializers.CharField(help_text="Percent.")
    amount = serializers.CharField()


class NoticeSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="item_removed, coupon_removed, coupons_replaced")
    message = serializers.CharField()


class CartSummarySerializer(serializers.Serializer):
    item_count = IntegerField(help_text="Units in the cart (sum of quantities).")
    line_count = IntegerField(help_text="Different items.")
    subtotal = serializers.CharField(help_text="Items before discounts, without tax.")
    subtotal_tax = serializers.CharField()
    discount = serializers.CharField(help_text="Coupon discounts, without tax.")
    discount_tax = serializers.CharField()
    shipping = serializers.CharField(help_text="Shipping, without tax.")
    shipping_tax = serializers.CharField()
    tax = serializers.CharField(help_text="subtotal_tax - discount_tax + shipping_tax")
    total = serializers.CharField(help_text="subtotal - discount + shipping + tax")
    coupons = CartCouponSerializer(many=True)
    currency = serializers.CharField()
    prices_include_tax = serializers.BooleanField()
    needs_shipping = serializers.BooleanField()
    shipping_method = ChosenMethodSerializer(allow_null=True)
    vat_number = serializers.CharField(
        help_text="The customer's EU VAT number (the checkout's `vat_number`; '' for none)."
    )
    reverse_charge = serializers.BooleanField(
        help_text="The EU B2B reverse charge applies: the cart carries no tax."
    )


class CartSerializer(CartSummarySerializer):
    items = CartItemSerializer(many=True)
    tax_lines = TaxLineSerializer(many=True)
    shipping_address = ShippingDestinationSerializer(allow_null=True)
    notices = NoticeSerializer(many=True)


class CartBodySerializer(serializers.Serializer):
    cart = CartSerializer()


class CartSummaryBodySerializer(serializers.Serializer):
    cart = CartSummarySerializer()


class ShippingMethodEntrySerializer(QuoteSerializer):
    selected = serializers.BooleanField(help_text="The method counted in the cart's totals.")


class ShippingMethodsSerializer(serializers.Serializer):
    methods = ShippingMethodEntrySerializer(many=True)
    address = ShippingDestinationSerializer(allow_null=True)
    location = ShippingDestinationSerializer(help_text="Where the costs were reckoned.")
    prices_include_tax = serializers.BooleanField()


def coupon_validation_data(result, *, code: str) -> dict:
    """The answer of POST /coupons/validate for a `cart_coupon_validate` result."""
    discount = discount_tax = None
    if result.state is not None:
        entry = next(
            (e for e in result.state.amounts.coupons if e.code == result.coupon.code), None
        )
        discount = money_str(from_cents(entry.discount if entry else 0))
        discount_tax = money_str(from_cents(entry.discount_tax if entry else 0))
    elif result.valid:
        discount = discount_tax = "0.00"
    return {
        "valid": result.valid,
        "code": result.coupon.code if result.coupon is not None else code.strip(),
        "discount": discount,
        "discount_tax": discount_tax,
        "free_shipping": bool(result.coupon and result.coupon.free_shipping),
        "cart_checked": result.cart_checked,
        "error": None
        if result.error is None
        else {"code": result.error.code, "message": result.error.detail},
    }


class AppliedCouponsSerializer(serializers.Serializer):
    coupons = CartCouponSerializer(many=True)


class ValidationErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="e.g. coupon_expired, coupon_minimum_spend")
    message = serializers.CharField()


class CouponValidationSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    code = serializers.CharField(help_text="The code as stored (as sent when unknown).")
    discount = serializers.CharField(
        allow_null=True, help_text="What it would take off this cart, without tax."
    )
    discount_tax = serializers.CharField(allow_null=True)
    free_shipping = serializers.BooleanField()
    cart_checked = serializers.BooleanField(
        help_text="False when the cart is empty: only the coupon itself was checked."
    )
    error = ValidationErrorSerializer(allow_null=True)
