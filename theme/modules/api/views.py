"""The module routes of the theme namespace (spec: Theme namespace, "only when the module is
active"), on the store's view kernel (store.common.views): store authentication and errors,
`access` per method, Idempotency-Key on POSTs, JSON only.

Each view names its `module`; while that module is off (settings.THEME_MODULES) every method
answers 404 `no_route`, exactly as a path that does not exist, before authentication."""

from __future__ import annotations

import math

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from common.errors import NotFound
from store.cart import shapes as cart_shapes
from store.cart.services.pricing import cart_state, pricing_cache_keys
from store.cart.services.session import cart_find
from store.common.cache import read_together
from store.common.capabilities import MANAGE_CUSTOMERS, MANAGE_ORDERS
from store.common.cart_session import SESSION_PARAMETERS
from store.common.errors import invalid_params
from store.common.money import money_str
from store.common.params import validate_body, validate_query
from store.common.permissions import LOGGED_IN, PUBLIC
from store.common.schema import StoreAutoSchema, store_schema
from store.common.views import CartSessionView, StoreAPIView
from theme.modules import hooks, selectors, services

from . import serializers as s

TAG = "Theme modules"
OFF = "The module is off (settings.THEME_MODULES): `no_route`, as an unknown path."


class ModuleSchema(StoreAutoSchema):
    def implicit_error_statuses(self) -> set[int]:
        return super().implicit_error_statuses() | {404}


class ModuleGate:
    """404 `no_route` on every method while `module` is off (before anything else)."""

    module: str = ""
    openapi_tag = TAG
    schema = ModuleSchema()

    def initial(self, request, *args, **kwargs):
        if not selectors.module_active(self.module):
            raise NotFound(f"No route matches {request.method} {request.path}.", code="no_route")
        super().initial(request, *args, **kwargs)


class ModuleView(ModuleGate, StoreAPIView):
    pass


class ModuleSessionView(ModuleGate, CartSessionView):
    pass


def _page(name: str, rows: list, total: int, query: dict) -> dict:
    per_page = query["per_page"]
    return {
        name: rows,
        "total": total,
        "page": query["page"],
        "per_page": per_page,
        "total_pages": math.ceil(total / per_page) if per_page else 0,
    }


def _window(query: dict) -> dict:
    return {"offset": (query["page"] - 1) * query["per_page"], "limit": query["per_page"]}


def product_card(product) -> dict:
    return {
        "id": product.pk,
        "title": product.title,
        "slug": product.slug,
        "price": money_str(product.price),
        "on_sale": product.on_sale,
        "stock_status": product.stock_status,
    }


def _time(value) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


# --- Recently viewed ----------------------------------------------------------------------------


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
        selectors.active_product(body["product_id"])  # refused before a session is made
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
                    "viewed_at": _time(row.viewed_at),
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
        responses={200: s.ModuleDeletedSerializer},
        description="Removes every entry." + TEXT,
    )
    def delete(self, request):
        return self.answer(
            request, None, {"deleted": services.recently_viewed_clear(**self.session(request))}
        )


# --- Bundles ------------------------------------------------------------------------------------


def bundle_data(bundle) -> dict:
    prices = selectors.bundle_prices(bundle)
    return {
        "id": bundle.pk,
        "title": bundle.title,
        "slug": bundle.slug,
        "description": bundle.description,
        "discount_percent": str(bundle.discount_percent),
        **{key: money_str(value) for key, value in prices.items()},
        "items": [
            {"product_id": i.product_id, "quantity": i.quantity, "product": product_card(i.product)}
            for i in bundle.items.all()
        ],
    }


class BundlesView(ModuleView):
    module = "bundles"
    access = {"GET": PUBLIC}

    @store_schema(
        summary="Product bundles",
        parameters=[s.PageQuerySerializer],
        responses={200: s.BundlePageSerializer},
        description="Active bundles (edited in the admin) with their items, the sum of the "
        "items' prices (`regular_price`), the bundle price after its discount and the saving. "
        "Public.",
    )
    def get(self, request):
        query = validate_query(s.PageQuerySerializer, request.query_params)
        rows, total = selectors.bundles(**_window(query))
        return Response(_page("bundles", [bundle_data(b) for b in rows], total, query))


# --- Points -------------------------------------------------------------------------------------

POINTS_TEXT = (
    " Points are earned once per paid order of the customer's account (THEME_POINTS_PER_UNIT "
    "per unit of its total, rounded down) and reversed once when it is refunded. Logged-in "
    "customers only; their own points."
)


class PointsBalanceView(ModuleView):
    module = "points"
    access = {"GET": LOGGED_IN}

    @store_schema(
        summary="My loyalty points balance",
        responses={200: s.PointsBalanceSerializer},
        description="The sum of every entry." + POINTS_TEXT,
    )
    def get(self, request):
        return Response(
            {
                "balance": selectors.points_balance(request.user),
                "points_per_unit": settings.THEME_POINTS_PER_UNIT,
            }
        )


class PointsTransactionsView(ModuleView):
    module = "points"
    access = {"GET": LOGGED_IN}

    @store_schema(
        summary="My loyalty points entries",
        parameters=[s.PageQuerySerializer],
        responses={200: s.PointsPageSerializer},
        description="Newest first." + POINTS_TEXT,
    )
    def get(self, request):
        query = validate_query(s.PageQuerySerializer, request.query_params)
        rows, total = selectors.points_transactions(request.user, **_window(query))
        data = [
            {
                "id": e.pk,
                "kind": e.kind,
                "points": e.points,
                "order_id": e.order_id,
                "order_number": e.order.order_number if e.order is not None else None,
                "note": e.note,
                "created_at": _time(e.created_at),
            }
            for e in rows
        ]
        return Response(_page("transactions", data, total, query))


# --- Promotions ---------------------------------------------------------------------------------


def promotion_data(rule: dict) -> dict:
    return {
        "id": rule["id"],
        "name": rule["name"],
        "description": rule["description"],
        "kind": rule["kind"],
        "value": str(rule["value"]),
        "min_subtotal": money_str(rule["min_subtotal"]),
        "starts_at": _time(rule["starts_at"]),
        "ends_at": _time(rule["ends_at"]),
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


# --- Quotes -------------------------------------------------------------------------------------


def quote_data(quote) -> dict:
    return {
        "id": quote.pk,
        "name": quote.name,
        "email": quote.email,
        "company": quote.company,
        "phone": quote.phone,
        "message": quote.message,
        "status": quote.status,
        "created_at": _time(quote.created_at),
        "items": [
            {"product_id": i.product_id, "title": i.product.title, "quantity": i.quantity}
            for i in quote.items.all()
        ],
    }


class QuotesView(ModuleView):
    module = "quotes"
    access = {"GET": MANAGE_ORDERS, "POST": PUBLIC}
    throttle_scopes = {"POST": "quote_request"}

    @store_schema(
        summary="Quote requests",
        parameters=[s.QuoteQuerySerializer],
        responses={200: s.QuotePageSerializer},
        description="Newest first, optionally by status. Needs ec_manage_orders.",
    )
    def get(self, request):
        query = validate_query(s.QuoteQuerySerializer, request.query_params)
        rows, total = selectors.quotes(**_window(query), status=query.get("status"))
        return Response(_page("quotes", [quote_data(q) for q in rows], total, query))

    @store_schema(
        summary="Request a quote",
        request=s.QuoteRequestSerializer,
        responses={201: s.QuoteReceivedSerializer},
        errors={404: f"A product is not an active product (`product_not_found`). {OFF}"},
        description="Products (each once, at most 100) with quantities and contact details; "
        "staff answer by e-mail. Public, rate limited (THROTTLE_RATE_QUOTE_REQUEST).",
    )
    def post(self, request):
        body = validate_body(s.QuoteRequestSerializer, request.data)
        items = body.pop("items")
        quote = services.quote_request(user=request.user, fields=body, items=items)
        return Response(
            {
                "id": quote.pk,
                "status": quote.status,
                "message": "Thank you: we will answer your request by e-mail.",
            },
            status=201,
        )


# --- Product names and labels -------------------------------------------------------------------


class ProductNamesView(ModuleView):
    module = "product_names"
    access = {"GET": PUBLIC}

    @store_schema(
        summary="Product titles by id",
        parameters=[s.ProductNamesQuerySerializer],
        responses={200: s.ProductNamesSerializer},
        description="`ids`: comma-separated product ids, at most THEME_PRODUCT_NAMES_MAX "
        "(400 beyond). Active products only; the others are listed in `missing`. Public.",
    )
    def get(self, request):
        query = validate_query(s.ProductNamesQuerySerializer, request.query_params)
        ids = services.parse_ids(query["ids"])
        names = selectors.product_names(ids)
        return Response(
            {
                "names": {str(pk): title for pk, title in names.items()},
                "missing": [pk for pk in ids if pk not in names],
            }
        )


class ProductLabelsView(ModuleView):
    module = "labels"
    access = {"GET": PUBLIC}

    @store_schema(
        summary="A product's labels",
        parameters=[
            OpenApiParameter("product_id", int, OpenApiParameter.PATH, description="A product.")
        ],
        responses={200: s.ProductLabelsSerializer},
        errors={404: f"No such active product (`product_not_found`). {OFF}"},
        description="Computed from the product: `new` (created within THEME_LABEL_NEW_DAYS), "
        "`sale` (on sale now), `out_of_stock`, or `low_stock` (tracked stock at or under its "
        "low-stock threshold, else THEME_LABEL_LOW_STOCK). Public.",
    )
    def get(self, request, product_id: int):
        product = selectors.active_product(product_id)
        return Response({"product_id": product.pk, "labels": selectors.product_labels(product)})


# --- B2B groups ---------------------------------------------------------------------------------


def group_entry(group) -> dict:
    return {
        "id": group.pk,
        "name": group.name,
        "description": group.description,
        "discount_percent": str(group.discount_percent),
        "member_count": group.member_count
        if hasattr(group, "member_count")
        else group.memberships.count(),
    }


def group_data(group) -> dict:
    return {
        "id": group.pk,
        "name": group.name,
        "description": group.description,
        "discount_percent": str(group.discount_percent),
        "member_ids": sorted(group.memberships.values_list("user_id", flat=True)),
    }


GROUP_ID = OpenApiParameter("group_id", int, OpenApiParameter.PATH, description="A group id.")
GROUP_TEXT = (
    " A member's cart prices are the catalogue's less the group's `discount_percent` (the "
    "ec_cart_item_price hook). An account is in at most one group. Needs ec_manage_customers."
)


class GroupsView(ModuleView):
    module = "b2b"
    access = {"*": MANAGE_CUSTOMERS}

    @store_schema(
        summary="Customer groups",
        parameters=[s.PageQuerySerializer],
        responses={200: s.GroupPageSerializer},
        description="By name, with their member counts." + GROUP_TEXT,
    )
    def get(self, request):
        query = validate_query(s.PageQuerySerializer, request.query_params)
        rows, total = selectors.groups(**_window(query))
        return Response(_page("groups", [group_entry(g) for g in rows], total, query))

    @store_schema(
        summary="Create a customer group",
        request=s.GroupWriteSerializer,
        responses={201: s.GroupBodySerializer},
        errors={409: "A group with this name exists (`customer_group_exists`)."},
        description="`member_ids` moves those accounts into it." + GROUP_TEXT,
    )
    def post(self, request):
        body = validate_body(s.GroupWriteSerializer, request.data)
        members = body.pop("member_ids", None)
        group = services.group_save(fields=body, member_ids=members)
        return Response({"group": group_data(group)}, status=201)


class GroupView(ModuleView):
    module = "b2b"
    access = {"*": MANAGE_CUSTOMERS}

    @store_schema(
        summary="A customer group",
        parameters=[GROUP_ID],
        responses={200: s.GroupBodySerializer},
        errors={404: f"No such group (`customer_group_not_found`). {OFF}"},
        description="With its member ids." + GROUP_TEXT,
    )
    def get(self, request, group_id: int):
        return Response({"group": group_data(services.group_get(group_id=group_id))})

    def _write(self, request, group_id: int, *, partial: bool) -> Response:
        body = validate_body(s.GroupWriteSerializer, request.data, partial=partial)
        members = body.pop("member_ids", None)
        group = services.group_save(fields=body, member_ids=members, group_id=group_id)
        return Response({"group": group_data(group)})

    @store_schema(
        summary="Replace a customer group",
        parameters=[GROUP_ID],
        request=s.GroupWriteSerializer,
        responses={200: s.GroupBodySerializer},
        errors={
            404: f"No such group (`customer_group_not_found`). {OFF}",
            409: "A group with this name exists (`customer_group_exists`).",
        },
        description="`name` required; `member_ids`, when sent, replaces the members." + GROUP_TEXT,
    )
    def put(self, request, group_id: int):
        return self._write(request, group_id, partial=False)

    @store_schema(
        summary="Change a customer group",
        parameters=[GROUP_ID],
        request=s.GroupWriteSerializer,
        responses={200: s.GroupBodySerializer},
        errors={
            404: f"No such group (`customer_group_not_found`). {OFF}",
            409: "A group with this name exists (`customer_group_exists`).",
        },
        description="Only the keys sent change." + GROUP_TEXT,
    )
    def patch(self, request, group_id: int):
        return self._write(request, group_id, partial=True)

    @store_schema(
        summary="Delete a customer group",
        parameters=[GROUP_ID],
        responses={200: s.ModuleDeletedSerializer},
        errors={404: f"No such group (`customer_group_not_found`). {OFF}"},
        description="Its members leave it (their accounts stay)." + GROUP_TEXT,
    )
    def delete(self, request, group_id: int):
        services.group_delete(group_id=group_id)
        return Response({"deleted": 1})


class MyGroupView(ModuleView):
    module = "b2b"
    access = {"GET": LOGGED_IN}

    @store_schema(
        summary="My customer group",
        responses={200: s.MyGroupSerializer},
        description="The logged-in customer's group (null when in none): its name and discount.",
    )
    def get(self, request):
        group = selectors.group_of(request.user)
        return Response({"group": group_entry(group) if group is not None else None})


# --- Recover cart -------------------------------------------------------------------------------


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
