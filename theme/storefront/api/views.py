"""The storefront routes of the theme namespace (spec: Theme namespace, always present), on
the store's view kernel (store.common.views): store authentication and errors, `access` per
method, Idempotency-Key on POSTs, JSON only.

Reads are public; the settings' writes need ec_manage_settings (or manage_options). The
wishlist is the logged-in shopper's, else the cart session's (the `ec_cart_id` cookie or a
cart_id hint, as the /cart routes); a guest's is merged into the account at login."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from store.cart import shapes as cart_shapes
from store.cart.services.pricing import cart_state, pricing_cache_keys
from store.cart.services.session import cart_find
from store.common import hooks
from store.common.cache import read_together
from store.common.capabilities import MANAGE_SETTINGS
from store.common.cart_session import SESSION_PARAMETERS
from store.common.money import money_str
from store.common.params import validate_body, validate_query
from store.common.permissions import PUBLIC
from store.common.schema import store_schema
from store.common.views import CartSessionView, StoreAPIView
from store.media.selectors import featured
from theme.storefront import selectors, services

from . import serializers as s

TAG = "Theme storefront"
ICONS_FILE = Path(__file__).resolve().parent.parent / "data" / "icons.json"


def product_card(product) -> dict:
    return {
        "id": product.pk,
        "title": product.title,
        "slug": product.slug,
        "price": money_str(product.price),
        "regular_price": money_str(product.regular_price),
        "sale_price": money_str(product.sale_price),
        "on_sale": product.on_sale,
        "stock_status": product.stock_status,
        "image": featured(product.featured_image),
    }


class ThemeView(StoreAPIView):
    openapi_tag = TAG


# --- Settings -----------------------------------------------------------------------------------


class SettingsView(ThemeView):
    access = {"GET": PUBLIC, "PUT": MANAGE_SETTINGS, "PATCH": MANAGE_SETTINGS}

    @store_schema(
        summary="The storefront theme settings",
        responses={200: s.SettingsBodySerializer},
        description="Every key with its value (the default unless set). Public.",
    )
    def get(self, request):
        return Response({"settings": selectors.theme_settings()})

    @store_schema(
        summary="Replace the storefront theme settings",
        request=s.StorefrontSettingsSerializer,
        responses={200: s.SettingsBodySerializer},
        description="Exactly these keys; the others go back to their defaults. Unknown keys "
        "(400 `unknown_setting`) or wrong types (400 `invalid_param`) refuse the whole body. "
        "Needs ec_manage_settings.",
    )
    def put(self, request):
        values = services.theme_settings_update(
            values=request.data, user=request.user, replace=True
        )
        return Response({"settings": values})

    @store_schema(
        summary="Change some storefront theme settings",
        request=s.StorefrontSettingsSerializer,
        responses={200: s.SettingsBodySerializer},
        description="Only the keys sent change. Unknown keys (400 `unknown_setting`) or wrong "
        "types (400 `invalid_param`) refuse the whole body. Needs ec_manage_settings.",
    )
    def patch(self, request):
        values = services.theme_settings_update(values=request.data, user=request.user)
        return Response({"settings": values})


# --- Menus --------------------------------------------------------------------------------------


class MenuView(ThemeView):
    access = {"GET": PUBLIC}

    @store_schema(
        summary="The menu of a location",
        parameters=[
            OpenApiParameter(
                "location",
                str,
                OpenApiParameter.PATH,
                description="primary, secondary, footer, mobile or social.",
            )
        ],
        responses={200: s.MenuSerializer},
        description="The menu with its nested items (edited in the admin). 404 "
        "`menu_not_found` for an unknown location or one without a menu.",
    )
    def get(self, request, location: str):
        return Response(selectors.menu_at(location))


# --- Search -------------------------------------------------------------------------------------


class SearchView(ThemeView):
    access = {"GET": PUBLIC}

    @store_schema(
        summary="Storefront search over products and categories",
        parameters=[s.SearchQuerySerializer],
        responses={200: s.SearchResultSerializer},
        description="The catalog's weighted search (as ec/v1 GET /search): active products, "
        "title above SKU above descriptions, every word must match; categories by name. "
        "per_page (default 8, capped at 20) limits both lists; `products.total` counts every "
        "match. The ec_search_results hook transforms the answer.",
    )
    def get(self, request):
        query = validate_query(s.SearchQuerySerializer, request.query_params)
        term = query["q"].strip()
        limit = query["per_page"]
        products, total, categories = selectors.search(term, limit=limit)
        results = {
            "query": term,
            "per_page": limit,
            "products": {"items": [product_card(p) for p in products], "total": total},
            "categories": {
                "items": [
                    {"id": c.pk, "name": c.name, "slug": c.slug, "parent_id": c.parent_id}
                    for c in categories
                ]
            },
        }
        return Response(hooks.apply_filters(hooks.SEARCH_RESULTS, results, term))


# --- Cart totals --------------------------------------------------------------------------------


class CartTotalsView(CartSessionView):
    openapi_tag = TAG

    @store_schema(
        summary="The cart's totals",
        parameters=SESSION_PARAMETERS,
        responses={200: cart_shapes.CartSummaryBodySerializer},
        description="`{cart: {...}}` as ec/v1 GET /cart/summary: counts and totals (decimal "
        "strings) with coupons and promotions applied (the ec_cart_calculated_totals hook). "
        "The cart is the session's, as the /cart routes find it (the `ec_cart_id` cookie, a "
        "cart_id hint, or the logged-in customer's). Without a cart: zero totals.",
    )
    def get(self, request):
        with read_together(pricing_cache_keys()):
            cart = cart_find(**self.session(request))
            body = {"cart": cart_shapes.summary_data(cart_state(cart))}
        return self.answer(request, cart, body)


# --- Wishlist -----------------------------------------------------------------------------------


def _entry(item) -> dict:
    return {
        "product_id": item.product_id,
        "added_at": item.created_at.isoformat().replace("+00:00", "Z"),
        "product": product_card(item.product),
    }


PRODUCT_ID = OpenApiParameter("product_id", int, OpenApiParameter.PATH, description="A product id.")
WISHLIST_TEXT = (
    " The wishlist is the logged-in shopper's, else the cart session's (the `ec_cart_id` "
    "cookie or a cart_id hint); a guest's is merged into the account at login."
)


class WishlistBase(CartSessionView):
    openapi_tag = TAG

    def owner(self, request) -> dict:
        return self.session(request)


class WishlistView(WishlistBase):
    throttle_scopes = {"POST": "cart_write", "DELETE": "cart_write"}

    def _list(self, request) -> Response:
        items = selectors.wishlist_items(**self.owner(request))
        body = {
            "items": [_entry(item) for item in items],
            "total": len(items),
            "max_items": settings.THEME_WISHLIST_MAX_ITEMS,
        }
        response = Response(body)
        response["Cache-Control"] = "no-store"
        return response

    @store_schema(
        summary="The wishlist",
        parameters=SESSION_PARAMETERS,
        responses={200: s.WishlistSerializer},
        description="Newest first." + WISHLIST_TEXT,
    )
    def get(self, request):
        session = self.owner(request)
        if session["user"].is_authenticated and session["token"]:
            services.wishlist_merge_guest(**session)
        return self._list(request)

    @store_schema(
        summary="Add a product to the wishlist",
        request=s.WishlistAddSerializer,
        parameters=SESSION_PARAMETERS,
        responses={201: s.WishlistAddedSerializer, 200: s.WishlistAddedSerializer},
        errors={404: "No such active product (`product_not_found`)."},
        description="201 when added, 200 when it was there already. At most "
        "THEME_WISHLIST_MAX_ITEMS products (400 `wishlist_full`). A guest without a cart "
        "session gets one (the cookie is set and the token repeated in X-Cart-ID)." + WISHLIST_TEXT,
    )
    def post(self, request):
        body = validate_body(s.WishlistAddSerializer, request.data)
        session = self.owner(request)
        cart = None
        if not session["user"].is_authenticated:
            cart = services.wishlist_guest_session(token=session["token"])
            session = {**session, "token": cart.token}
        item, created = services.wishlist_add(**session, product_id=body["product_id"])
        return self.answer(
            request,
            cart,
            {"item": _entry(item), "created": created},
            status=201 if created else 200,
        )

    @store_schema(
        summary="Empty the wishlist",
        parameters=SESSION_PARAMETERS,
        responses={200: s.WishlistDeletedSerializer},
        description="Removes every product." + WISHLIST_TEXT,
    )
    def delete(self, request):
        deleted = services.wishlist_clear(**self.owner(request))
        return self.answer(request, None, {"deleted": deleted})


class WishlistItemView(WishlistBase):
    throttle_scopes = {"DELETE": "cart_write"}

    @store_schema(
        summary="Whether a product is on the wishlist",
        parameters=[PRODUCT_ID, *SESSION_PARAMETERS],
        responses={200: s.WishlistMembershipSerializer},
        description="`in_wishlist` true or false (never 404)." + WISHLIST_TEXT,
    )
    def get(self, request, product_id: int):
        session = self.owner(request)
        found = selectors.wishlist_has(**session, product_id=product_id)
        if not found and session["user"].is_authenticated and session["token"]:
            services.wishlist_merge_guest(**session)
            found = selectors.wishlist_has(**session, product_id=product_id)
        return self.answer(request, None, {"product_id": product_id, "in_wishlist": found})

    @store_schema(
        summary="Remove a product from the wishlist",
        parameters=[PRODUCT_ID, *SESSION_PARAMETERS],
        responses={200: s.WishlistDeletedSerializer},
        errors={404: "Not on the wishlist (`wishlist_item_not_found`)."},
        description="Removes one product." + WISHLIST_TEXT,
    )
    def delete(self, request, product_id: int):
        services.wishlist_remove(**self.owner(request), product_id=product_id)
        return self.answer(request, None, {"deleted": 1})


# --- VAT numbers --------------------------------------------------------------------------------


class ValidateVatView(ThemeView):
    access = {"GET": PUBLIC, "POST": PUBLIC}
    throttle_scopes = {"*": "vat_validate"}
    VAT_ERRORS = {
        502: "The registry answered something unexpected (`vat_service_error`).",
        503: "The registry cannot be reached now (`vat_service_unavailable`, Retry-After).",
    }
    DESCRIPTION = (
        "The number's format is checked first (python-stdnum): a number it refuses answers "
        "`valid: false` with `source: format` and no registry is asked. Then Greek numbers "
        "go to AADE's registry (when its lookup credentials are configured, else VIES), "
        "other EU numbers to VIES; the sandbox answers in development. Results are cached "
        "(THEME_VAT_CACHE_SECONDS). 400 `unsupported_country` outside the EU. Rate limited "
        "(THROTTLE_RATE_VAT_VALIDATE)."
    )

    def _answer(self, data) -> Response:
        result = services.vat_validate(vat_number=data["vat_number"], country=data.get("country"))
        return Response(result)

    @store_schema(
        summary="Check a VAT number (query)",
        parameters=[s.VatQuerySerializer],
        responses={200: s.VatResultSerializer},
        errors=VAT_ERRORS,
        description=DESCRIPTION,
    )
    def get(self, request):
        return self._answer(validate_query(s.VatQuerySerializer, request.query_params))

    @store_schema(
        summary="Check a VAT number",
        request=s.VatQuerySerializer,
        responses={200: s.VatResultSerializer},
        errors=VAT_ERRORS,
        description=DESCRIPTION,
    )
    def post(self, request):
        return self._answer(validate_body(s.VatQuerySerializer, request.data))


# --- Newsletter ---------------------------------------------------------------------------------

NEWSLETTER_ANSWER = {
    "status": "pending",
    "message": "If this address can be subscribed, a confirmation e-mail is on its way: "
    "follow its link to confirm.",
}


class NewsletterSubscribeView(ThemeView):
    access = {"POST": PUBLIC}
    throttle_scopes = {"POST": "newsletter_subscribe"}

    @store_schema(
        summary="Subscribe to the newsletter (double opt-in)",
        request=s.NewsletterSubscribeSerializer,
        responses={202: s.NewsletterAnswerSerializer},
        description="Always the same 202 answer, whether the address is new, pending or "
        "subscribed already (no enumeration). A new address gets an e-mail whose link "
        "(GET /newsletter/confirm/{token}, expiring) confirms it; until then it is pending. "
        "Rate limited (THROTTLE_RATE_NEWSLETTER_SUBSCRIBE).",
    )
    def post(self, request):
        body = validate_body(s.NewsletterSubscribeSerializer, request.data)
        services.newsletter_subscribe(email=body["email"])
        return Response(NEWSLETTER_ANSWER, status=202)


class NewsletterConfirmView(ThemeView):
    access = {"GET": PUBLIC}

    @store_schema(
        summary="Confirm a newsletter subscription",
        parameters=[
            OpenApiParameter(
                "token", str, OpenApiParameter.PATH, description="The e-mail's signed token."
            )
        ],
        responses={200: s.NewsletterAnswerSerializer},
        description="The link of the confirmation e-mail. 400 `invalid_token` or "
        "`token_expired`. Following it again changes nothing.",
    )
    def get(self, request, token: str):
        services.newsletter_confirm(token=token)
        return Response(
            {"status": "confirmed", "message": "Your subscription is confirmed. Thank you!"}
        )


# --- Icons --------------------------------------------------------------------------------------


@cache
def _icons() -> tuple[dict, str]:
    data = json.loads(ICONS_FILE.read_text(encoding="utf-8"))
    digest = hashlib.sha256(ICONS_FILE.read_bytes()).hexdigest()[:16]
    return data, f'"{data["version"]}-{digest}"'


class IconsView(ThemeView):
    access = {"GET": PUBLIC}

    @store_schema(
        summary="The theme's icon set",
        responses={200: s.IconSetSerializer, 304: None},
        description="A static, versioned list (names, labels, categories, keywords). Public "
        "and cacheable: an ETag and Cache-Control; If-None-Match answers 304.",
    )
    def get(self, request):
        data, etag = _icons()
        if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
            response = Response(status=304)
        else:
            response = Response(data)
        response["ETag"] = etag
        response["Cache-Control"] = "public, max-age=3600"
        return response
