from __future__ import annotations

from django.conf import settings

from store.cart.services.session import cart_find
from store.common.cart_session import SESSION_PARAMETERS
from store.common.params import validate_body
from store.common.schema import store_schema
from theme.modules import selectors as kernel
from theme.modules.api.serializers import ModuleDeletedSerializer
from theme.modules.api.views import OFF, ModuleSessionView, iso_time, product_card
from theme.modules.recently_viewed import selectors, services

from . import serializers as s


class RecentlyViewedView(ModuleSessionView):
    module = "recently_viewed"
    throttle_scopes = {"POST": "cart_write", "DELETE": "cart_write"}
    TEXT = (
        " The list is the logged-in shopper's, else the cart session's (the `ec_cart_id` cookie "
        "or a cart_id hint); newest first, at most THEME_RECENTLY_VIEWED_MAX."
    )

    @store_schema(
        summary="The recently viewed products",
        parameters=SESSION_PARAMETERS,
        responses={200: s.RecentlyViewedSerializer},
        description="Newest first." + TEXT,
    )
    def get(self, request):
        return self.answer(request, None, self._body_for(self.session(request)))

    @store_schema(
        summary="Record a product view",
        request=s.RecentlyViewedAddSerializer,
        parameters=SESSION_PARAMETERS,
        responses={201: s.RecentlyViewedSerializer},
        errors={404: f"No such active product (`product_not_found`). {OFF}"},
        description="The product moves to the front; the oldest beyond the bound are dropped. "
        "A guest without a cart session gets one (cookie and X-Cart-ID)." + TEXT,
    )
    def post(self, request):
        body = validate_body(s.RecentlyViewedAddSerializer, request.data)
        kernel.active_product(body["product_id"])  # refused before a session is made
        session = self.session(request)
        cart = None
        if not request.user.is_authenticated and cart_find(**session) is None:
            # Only a real cart session names a guest's list (never a made-up token).
            cart = services.guest_session()
            session = {**session, "token": cart.token}
        services.recently_viewed_record(**session, product_id=body["product_id"])
        rows_body = self._body_for(session)
        return self.answer(request, cart, rows_body, status=201)

    def _body_for(self, session: dict) -> dict:
        rows = selectors.recently_viewed(**session)
        return {
            "items": [
                {
                    "product_id": row.product_id,
                    "viewed_at": iso_time(row.viewed_at),
                    "product": product_card(row.product),
                }
                for row in rows
            ],
            "total": len(rows),
            "max_items": settings.THEME_RECENTLY_VIEWED_MAX,
        }

    @store_schema(
        summary="Forget the recently viewed products",
        parameters=SESSION_PARAMETERS,
        responses={200: ModuleDeletedSerializer},
        description="Removes every entry." + TEXT,
    )
    def delete(self, request):
        return self.answer(
            request, None, {"deleted": services.recently_viewed_clear(**self.session(request))}
        )
