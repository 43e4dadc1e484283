"""Cart bodies: the input serializers (validate only). The answers' shapes are the cart's
public store.cart.shapes (the checkout answers with them too)."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IntegerField
from store.common.addresses import DestinationSerializer
from store.common.cart_session import CartHintField
from store.common.params import StrictCharField

MAX_OPTIONS = 20


class OptionsField(serializers.DictField):
    """Free-form item options ({"engraving": "A.B."}): at most 20 keys, scalar values."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("allow_empty", True)
        kwargs.setdefault(
            "help_text",
            "Options that make the line distinct (engraving, gift wrap, ...): at most 20 keys "
            "of up to 64 characters, each a string (up to 200 characters), number or boolean.",
        )
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            self.fail("not_a_dict", input_type=type(data).__name__)
        if len(data) > MAX_OPTIONS:
            raise serializers.ValidationError(f"At most {MAX_OPTIONS} options.")
        out = {}
        for key, value in data.items():
            if not isinstance(key, str) or not 1 <= len(key.strip()) <= 64:
                raise serializers.ValidationError("Option names have 1 to 64 characters.")
            if isinstance(value, str):
                if len(value) > 200:
                    raise serializers.ValidationError(f"{key}: at most 200 characters.")
            elif (
                isinstance(value, bool)
                or (isinstance(value, int) and abs(value) < 10**12)
                or (isinstance(value, float) and value == value and abs(value) < 1e12)
            ):
                pass
            else:
                raise serializers.ValidationError(f"{key}: a string, number or boolean.")
            out[key.strip()] = value
        return dict(sorted(out.items()))


class CartItemAddSerializer(serializers.Serializer):
    product_id = IntegerField(min_value=1, help_text="Required.")
    variant_id = IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        help_text="Required for a variable product: one of its enabled variants.",
    )
    quantity = IntegerField(
        required=False,
        allow_null=True,
        max_value=1_000_000,
        help_text="Default 1; values below 1 are raised to 1.",
    )
    options = OptionsField()
    cart_id = CartHintField()


_PLAIN_ADD_KEYS = frozenset({"product_id", "variant_id", "quantity"})


def plain_add_body(data) -> dict | None:
    """CartItemAddSerializer's answer for a plainly valid body (integer ids in range, an
    optional integer quantity, nothing else), without building the serializer: the shop's
    busiest write skips ~0.3 ms. None for anything else, which the serializer validates (and
    words the errors of); tests/store/cart/test_add_body.py checks the two agree."""
    if type(data) is not dict or not data.keys() <= _PLAIN_ADD_KEYS:
        return None
    fields = CartItemAddSerializer._declared_fields
    for name, value in data.items():
        if value is None and name != "product_id":
            continue
        field = fields[name]
        if type(value) is not int or not field.min_value <= value <= field.max_value:
            return None
    return dict(data) if "product_id" in data else None


class CartItemUpdateSerializer(serializers.Serializer):
    quantity = IntegerField(max_value=1_000_000, help_text="Values below 1 are raised to 1.")
    cart_id = CartHintField()


# Where the cart ships: the country (required), region (or `state`) and postcode of the store's
# address rule.
class ShippingAddressSerializer(DestinationSerializer):
    cart_id = CartHintField()


class ShippingMethodSelectSerializer(serializers.Serializer):
    method_id = IntegerField(min_value=1, help_text="One of GET /cart/shipping-methods.")
    cart_id = CartHintField()


class CouponCodeSerializer(serializers.Serializer):
    code = StrictCharField(max_length=100, help_text="The coupon code (any case).")
    cart_id = CartHintField()
