from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter

from store.cart import shapes as cart_shapes
from store.cart.services.pricing import cart_state, pricing_cache_keys
from store.common.cache import read_together
from store.common.cart_session import SESSION_PARAMETERS
from store.common.errors import invalid_params
from store.common.schema import store_schema
from theme.modules.api.views import ModuleSessionView
from theme.modules.recover_cart import services

from . import serializers as s


class RecoverCartView(ModuleSessionView):
    module = "recover_cart"

    @store_schema(
        summary="Restore an abandoned cart",
        parameters=[
            OpenApiParameter(
                "token", str, OpenApiParameter.PATH, description="The e-mail's signed token."
            ),
            *SESSION_PARAMETERS,
        ],
        responses={200: s.RecoveredSerializer},
        errors={410: "The abandoned cart is no longer kept (`cart_gone`)."},
        description="The link of the recovery e-mail (sent by a beat task to a shopper whose "
        "cart sat idle THEME_RECOVER_CART_IDLE_HOURS): the cart's lines are put into the "
        "visitor's cart (made if needed: the cookie is set and X-Cart-ID sent). Lines already "
        "there are left as they are, so following it again adds nothing. 400 `invalid_token` "
        "or `token_expired` (after THEME_RECOVER_CART_LINK_HOURS).",
    )
    def get(self, request, token: str):
        if len(token) > 500:
            raise invalid_params({"token": ["This cart link is not valid."]}, code="invalid_token")
        session = self.session(request)
        cart, added = services.cart_recover(
            token=token, session_token=session["token"], user=session["user"]
        )
        with read_together(pricing_cache_keys()):
            summary = cart_shapes.summary_data(cart_state(cart))
        return self.answer(request, cart, {"restored": added, "cart": summary})
