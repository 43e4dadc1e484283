"""The cart routes (spec: Cart): public, bound to the cart session. Every write is rate
limited per client address or account (scope `cart_write`, THROTTLE_RATE_CART_WRITE).

The cart is found by the `ec_cart_id` cookie, else by a `cart_id` hint (JSON body, query or
`X-Cart-ID`; the cookie wins, a conflicting hint is only logged), or by the logged-in customer
(store.cart.services.session). An answer whose cart is not the cookie's (a cart just made, or
a customer's cart) sets the cookie and repeats the token in the `X-Cart-ID` header.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from store.cart import shapes
from store.cart.api import serializers as s
from store.cart.services import items as item_services
from store.cart.services import shipping as shipping_services
from store.cart.services.pricing import cart_state, pricing_cache_keys
from store.cart.services.session import cart_find
from store.common.cache import read_together
from store.common.cart_session import SESSION_PARAMETERS
from store.common.params import validate_body
from store.common.schema import store_schema
from store.common.views import CartSessionView

TAG = "Cart"
ITEM_ID = OpenApiParameter(
    "item_id", str, OpenApiParameter.PATH, description="The cart-item token (`items[].id`)."
)
SESSION_TEXT = (
    " The cart is the `ec_cart_id` cookie's (or a logged-in customer's); an answer for a cart "
    "that is not the cookie's sets the cookie (HttpOnly, SameSite=Lax) and repeats the token "
    "in the X-Cart-ID header."
)


# The cart's routes: bound to the cart session, answering the cart. (No docstring: the OpenAPI
# description shows the session view's for a route without a description.)
class CartRoutesView(CartSessionView):
    openapi_tag = TAG

    def cart_answer(
        self, request, cart, *, notices=None, status: int = 200, lines=None, no_coupons=False
    ) -> Response:
        state = cart_state(cart, lines=lines, no_coupons=no_coupons)
        return self.answer(
            request, cart, {"cart": shapes.cart_data(state, notices=notices)}, status=status
        )


class CartView(CartRoutesView):
    @store_schema(
        summary="Read the cart",
        responses={200: shapes.CartBodySerializer},
        parameters=SESSION_PARAMETERS,
        description="`{cart: {...}}`: items, totals (decimal strings; `total = subtotal - "
        "discount + shipping + tax`, the first three without tax), coupons, tax lines, the "
        "shipping address and the method counted. Without a cart: an empty cart (none is "
        "made)." + SESSION_TEXT,
    )
    def get(self, request):
        cart = cart_find(**self.session(request))
        return self.cart_answer(request, cart)


class CartItemsView(CartRoutesView):
    throttle_scopes = {"POST": "cart_write"}

    @store_schema(
        summary="Add an item to the cart",
        request=s.CartItemAddSerializer,
        responses={200: shapes.CartBodySerializer},
        parameters=SESSION_PARAMETERS,
        errors={
            404: "No such active product (`product_not_found`) or enabled variant of it "
            "(`variant_not_found`)."
        },
        description="`product_id` is required (400 `invalid_param` without it). A variable "
        "product needs `variant_id` (400 `variant_required`); a simple one takes none (400 "
        "`not_variable_product`). Quantities below 1 become 1. The same product, variant and "
        "options join one line. An item whose stock is tracked cannot go past its stock unless "
        "backorders are allowed (400 `out_of_stock`, `insufficient_stock`); limits: "
        "`cart_item_quantity_limit`, `cart_full`. Makes the cart when there is none."
        + SESSION_TEXT,
    )
    def post(self, request):
        body = s.plain_add_body(request.data) or validate_body(
            s.CartItemAddSerializer, request.data
        )
        # the add's and the pricing's cache reads, made with the rate limit's count
        with read_together(pricing_cache_keys(), request=request):
            return self._add(request, body)

    def throttle_reads(self) -> list[str]:
        return pricing_cache_keys() if self.request.method == "POST" else []

    def _add(self, request, body):
        cart = item_services.cart_item_add(
            **self.session(request),
            product_id=body["product_id"],
            variant_id=body.get("variant_id"),
            quantity=body.get("quantity"),
            options=body.get("options") or {},
        )
        # the lines the add has just read, and whether it holds coupons: no second reading
        return self.cart_answer(
            request, cart, lines=cart.added_lines, no_coupons=getattr(cart, "no_coupons", False)
        )


ITEM_ERRORS = {404: "No line with this token in the cart (`cart_item_not_found`)."}


class CartItemView(CartRoutesView):
    throttle_scopes = {"*": "cart_write"}

    def _update(self, request, item_id):
        body = validate_body(s.CartItemUpdateSerializer, request.data)
        cart = item_services.cart_item_update(
            **self.session(request), item_id=item_id, quantity=body["quantity"]
        )
        return self.cart_answer(request, cart)

    @store_schema(
        summary="Change an item's quantity",
        request=s.CartItemUpdateSerializer,
        responses={200: shapes.CartBodySerializer},
        parameters=[ITEM_ID, *SESSION_PARAMETERS],
        errors=ITEM_ERRORS,
        description="Body `{quantity}`; below 1 becomes 1. Raising it is checked against the "
        "stock (400 `insufficient_stock`).",
    )
    def patch(self, request, item_id):
        return self._update(request, item_id)

    @store_schema(
        summary="Change an item's quantity (same as PATCH)",
        request=s.CartItemUpdateSerializer,
        responses={200: shapes.CartBodySerializer},
        parameters=[ITEM_ID, *SESSION_PARAMETERS],
        errors=ITEM_ERRORS,
    )
    def put(self, request, item_id):
        return self._update(request, item_id)

    @store_schema(
        summary="Remove an item",
        responses={200: shapes.CartBodySerializer},
        parameters=[ITEM_ID, *SESSION_PARAMETERS],
        errors=ITEM_ERRORS,
    )
    def delete(self, request, item_id):
        cart = item_services.cart_item_remove(**self.session(request), item_id=item_id)
        return self.cart_answer(request, cart)


class CartClearView(CartRoutesView):
    throttle_scopes = {"POST": "cart_write"}

    @store_schema(
        summary="Empty the cart",
        request=None,
        responses={200: shapes.CartBodySerializer},
        parameters=SESSION_PARAMETERS,
        description="Removes every item and coupon (the shipping address stays); answers the "
        "empty cart. Without a cart, answers an empty one.",
    )
    def post(self, request):
        cart = item_services.cart_clear(**self.session(request))
        return self.cart_answer(request, cart)


class CartSummaryView(CartRoutesView):
    @store_schema(
        summary="The cart's counts and totals",
        responses={200: shapes.CartSummaryBodySerializer},
        parameters=SESSION_PARAMETERS,
        description="`{cart: {...}}` like GET /cart without the items, tax lines, address and "
        "notices: for a mini-cart.",
    )
    def get(self, request):
        cart = cart_find(**self.session(request))
        return self.answer(request, cart, {"cart": shapes.summary_data(cart_state(cart))})


class CartShippingAddressView(CartRoutesView):
    throttle_scopes = {"POST": "cart_write"}

    @store_schema(
        summary="Set the shipping address",
        request=s.ShippingAddressSerializer,
        responses={200: shapes.CartBodySerializer},
        parameters=SESSION_PARAMETERS,
        description="`country` (ISO 3166-1 alpha-2, required), `region` (the country's ISO "
        "3166-2 subdivision: M, GR-M or its name; also accepted as `state`), `postcode`: the "
        "store's one address rule, as /shipping/calculate and /tax/calculate take it. Each "
        "checked (400 `invalid_param` naming it; so are another key, and `region` and `state` "
        "naming different subdivisions). Shipping costs, and tax (setting tax.tax_based_on), "
        "are reckoned for it; until one is given, for the store's country. Makes the cart when "
        "there is none.",
    )
    def post(self, request):
        body = validate_body(s.ShippingAddressSerializer, request.data)
        cart = shipping_services.cart_shipping_address_set(
            **self.session(request),
            country=body["country"],
            region=body.get("state"),
            postcode=body.get("postcode"),
        )
        return self.cart_answer(request, cart)


class CartShippingMethodsView(CartRoutesView):
    @store_schema(
        summary="Shipping methods available for the cart",
        responses={200: shapes.ShippingMethodsSerializer},
        parameters=SESSION_PARAMETERS,
        description="The methods of the first shipping zone matching the cart's address (the "
        "store's country until one is given), each with its cost for this cart and the tax on "
        "it; `selected` marks the one counted in the totals (the chosen one while it is "
        "available, else the first).",
    )
    def get(self, request):
        cart = cart_find(**self.session(request))
        return self.answer(request, cart, shapes.shipping_methods_data(cart_state(cart)))


class CartShippingMethodView(CartRoutesView):
    throttle_scopes = {"POST": "cart_write"}

    @store_schema(
        summary="Choose the shipping method",
        request=s.ShippingMethodSelectSerializer,
        responses={200: shapes.CartBodySerializer},
        parameters=SESSION_PARAMETERS,
        description="Only a method available for the cart's address and contents (400 "
        "`shipping_method_not_found`, `shipping_method_unavailable`; `cart_empty` without "
        "items).",
    )
    def post(self, request):
        body = validate_body(s.ShippingMethodSelectSerializer, request.data)
        cart = shipping_services.cart_shipping_method_set(
            **self.session(request), method_id=body["method_id"]
        )
        return self.cart_answer(request, cart)
