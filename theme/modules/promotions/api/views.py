from __future__ import annotations

from rest_framework.response import Response

from store.cart import shapes as cart_shapes
from store.cart.services.pricing import cart_state, pricing_cache_keys
from store.cart.services.session import cart_find
from store.common.cache import read_together
from store.common.cart_session import SESSION_PARAMETERS
from store.common.money import money_str
from store.common.permissions import PUBLIC
from store.common.schema import store_schema
from theme.modules.api.views import ModuleSessionView, ModuleView, iso_time
from theme.modules.promotions import hooks, selectors

from . import serializers as s


def promotion_data(rule: dict) -> dict:
    return {
        "id": rule["id"],
        "name": rule["name"],
        "description": rule["description"],
        "kind": rule["kind"],
        "value": str(rule["value"]),
        "min_subtotal": money_str(rule["min_subtotal"]),
        "starts_at": iso_time(rule["starts_at"]),
        "ends_at": iso_time(rule["ends_at"]),
    }


class PromotionsView(ModuleView):
    module = "promotions"
    access = {"GET": PUBLIC}

    @store_schema(
        summary="The active promotions",
        responses={200: s.PromotionListSerializer},
        description="Automatic promotion rules (no code) active now, by priority: percent off "
        "the cart's subtotal or a fixed amount off, from a minimum subtotal. The cart totals "
        "apply them (the ec_cart_calculated_totals hook). Public.",
    )
    def get(self, request):
        rules = selectors.active_promotions()
        return Response({"promotions": [promotion_data(r) for r in rules], "total": len(rules)})


class PromotionsCartView(ModuleSessionView):
    module = "promotions"

    @store_schema(
        summary="The promotions applied to my cart",
        parameters=SESSION_PARAMETERS,
        responses={200: s.CartPromotionsSerializer},
        description="Each promotion that applies to the session's cart with its cut, and the "
        "cart's totals with them (as GET /cart/totals). The base is the subtotal less the "
        "coupons' discount; together the cuts never exceed it.",
    )
    def get(self, request):
        with read_together(pricing_cache_keys()):
            cart = cart_find(**self.session(request))
            state = cart_state(cart)
        applied = getattr(cart, hooks.APPLIED, []) if cart is not None else []
        summary = cart_shapes.summary_data(state)
        body = {
            "promotions": [
                {**promotion_data(rule), "discount": money_str(cut)} for rule, cut in applied
            ],
            "discount": money_str(sum((cut for _rule, cut in applied), 0)),
            "totals": {k: summary[k] for k in ("subtotal", "discount", "shipping", "tax", "total")},
        }
        return self.answer(request, None, body)
