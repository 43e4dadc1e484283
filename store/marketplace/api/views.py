"""The /marketplace routes of marketplace sync: the marketplaces' signed webhooks (public: the
signature is the authentication), their orders and actions, and the settings
(ec_manage_marketplace, or manage_options)."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from store.common.capabilities import manage
from store.common.pagination import named_page, page_of
from store.common.params import validate_body, validate_query
from store.common.permissions import PUBLIC
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.marketplace import selectors, services
from store.marketplace.providers import MARKETPLACE_NAMES

from . import serializers as s

TAG = "Marketplace"
MANAGE_MARKETPLACE = manage("marketplace")
STAFF = {"*": MANAGE_MARKETPLACE}
MARKETPLACE = OpenApiParameter("marketplace", str, OpenApiParameter.PATH, enum=MARKETPLACE_NAMES)
ORDER_ID = OpenApiParameter(
    "order_id", int, OpenApiParameter.PATH, description="The marketplace order's `id`."
)
PROVIDER_502 = (
    "The marketplace's API failed or refused (`marketplace_unavailable`); nothing changed."
)
NOT_CONFIGURED = (
    "The live API has no credentials for this marketplace (`marketplace_not_configured`)."
)

WEBHOOK_DESCRIPTION = """A marketplace's notification. Public: the signature is the \
authentication. Sign the raw body with the marketplace's webhook secret (PUT \
/marketplace/settings): `X-Marketplace-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of \
"<t>." followed by the raw body>`; a timestamp further than MARKETPLACE_WEBHOOK_TOLERANCE_SECONDS \
(300) from now, a missing or malformed header or another secret is 401 `invalid_signature`. \
A marketplace unknown or not enabled is 404 `marketplace_not_found`; a body over \
MARKETPLACE_WEBHOOK_MAX_BYTES (256 KiB) 413 `payload_too_large`; a body that is not the \
marketplace's JSON 400 `invalid_payload` naming each bad field.

`skroutz` takes Skroutz Smart Cart's webhook body: `{event_type: new_order | order_updated, \
event_time, order: {code, state, customer: {first_name, last_name, address?}, invoice, \
invoice_details?, comments, line_items: [{shop_uid, product_name, quantity, unit_price, ...}], \
accept_options?, ...}, changes?}` (`shop_uid`: our SKU, or product id); its event id is \
`<event_type>:<code>:<event_time>` unless `X-Marketplace-Event-Id` names one. `generic` takes \
`{id, type: order.created | order.updated | order.cancelled, order: {code, state, currency, \
billing_address, shipping_address, shipping_total, note, items: [{sku, quantity, unit_price, \
title}]}}`. Other event types are recorded and ignored.

Recorded once per (marketplace, event id) and answered at once (200); the worker then imports \
a new order as a store order (lines matched by SKU; stock taken as for any order), once per \
marketplace order code, or cancels the store order of a cancelled one (its stock comes back). \
The same event id again is 200 with `replayed: true` and the first's status and outcome, \
changing nothing. While the broker is down the event waits (status `pending`) and is processed \
once it is back."""


class MarketplaceWebhookView(StoreAPIView):
    access = {"*": PUBLIC}
    openapi_tag = TAG
    idempotent = False  # the event id is the idempotency key

    @store_schema(
        summary="Receive a marketplace's notification",
        parameters=[MARKETPLACE],
        request={"application/json": {"type": "object"}},
        responses={200: s.MarketplaceWebhookAnswerSerializer},
        errors={
            401: "Bad or missing signature (`invalid_signature`).",
            413: "The body is too large (`payload_too_large`).",
        },
        description=WEBHOOK_DESCRIPTION,
    )
    def post(self, request, marketplace):
        services.check_length(request.META.get("CONTENT_LENGTH"))
        answer = services.webhook_receive(
            marketplace=marketplace, body=request._request.body, headers=request.headers
        )
        return Response(answer)


class MarketplaceOrderListView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="List marketplace orders",
        parameters=[s.MarketplaceOrderListQuerySerializer],
        responses={200: s.MarketplaceOrderPageSerializer},
        description="`{orders, total, page, per_page, total_pages}`, newest first: each order "
        "a marketplace sold, its state there, whether it was imported (`import_status`; "
        "`failure` says why not) and its store order. Filters `marketplace`, `state`, "
        "`import_status`, `date_from`/`date_to` (received), `search` (the marketplace's "
        "order code, or the store order number).",
    )
    def get(self, request):
        query = validate_query(s.MarketplaceOrderListQuerySerializer, request.query_params)
        rows = selectors.order_list(
            marketplace=query.get("marketplace"),
            state=query.get("state"),
            import_status=query.get("import_status"),
            search=query.get("search"),
            date_from=query.get("date_from"),
            date_to=query.get("date_to"),
        )
        return Response(named_page("orders", page_of(rows, query), s.order_data))


def _detail(row) -> Response:
    row = selectors.order_get(row.pk)
    return Response(s.order_data(row, events=selectors.order_events(row)))


class MarketplaceOrderDetailView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Read a marketplace order",
        parameters=[ORDER_ID],
        responses={200: s.MarketplaceOrderDetailSerializer},
        description="The order with its addresses, note and its newest 20 events.",
    )
    def get(self, request, order_id):
        return _detail(selectors.order_get(order_id))


class MarketplaceAcknowledgeView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Accept a marketplace order at the marketplace",
        parameters=[ORDER_ID],
        request=s.MarketplaceAcknowledgeSerializer,
        responses={200: s.MarketplaceOrderDetailSerializer},
        errors={
            409: "Cancelled or rejected (`marketplace_order_closed`), or not imported "
            "(`marketplace_order_not_imported`). " + NOT_CONFIGURED,
            502: PROVIDER_502,
        },
        description="Tells the marketplace the shop takes the order (Skroutz: accept, with the "
        "first pickup location, window and number of parcels it offered unless sent). Once: "
        "again (or at the same time) answers the order as accepted, without a second call.",
    )
    def post(self, request, order_id):
        body = validate_body(s.MarketplaceAcknowledgeSerializer, request.data)
        row = services.order_acknowledge(
            marketplace_order_id=order_id, options=dict(body), actor=request.user
        )
        return _detail(row)


class MarketplaceRejectView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Reject a marketplace order",
        parameters=[ORDER_ID],
        request=s.MarketplaceRejectSerializer,
        responses={200: s.MarketplaceOrderDetailSerializer},
        errors={
            409: "Accepted already (`marketplace_order_acknowledged`) or cancelled "
            "(`marketplace_order_closed`). " + NOT_CONFIGURED,
            502: PROVIDER_502,
        },
        description="Refuses the order at the marketplace with the `reason`, and cancels its "
        "store order (its stock comes back); an order whose import failed is rejected there "
        "only. Again answers the first rejection.",
    )
    def post(self, request, order_id):
        body = validate_body(s.MarketplaceRejectSerializer, request.data)
        row = services.order_reject(
            marketplace_order_id=order_id, reason=body["reason"], actor=request.user
        )
        return _detail(row)


class MarketplaceShipView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Ship a marketplace order",
        parameters=[ORDER_ID],
        request=s.MarketplaceShipSerializer,
        responses={200: s.MarketplaceOrderDetailSerializer},
        errors={
            409: "Shipped already with another tracking number (`marketplace_order_shipped`), "
            "cancelled (`marketplace_order_closed`), not imported "
            "(`marketplace_order_not_imported`) or nothing left to ship (`nothing_to_ship`). "
            + NOT_CONFIGURED,
            502: PROVIDER_502,
        },
        description="Records the store order's shipment of every unit not yet shipped (carrier, "
        "tracking number) and tells the marketplace (generic: POST /orders/{code}/ship; "
        "Skroutz ships with its own voucher, so nothing is sent there). Again with the same "
        "tracking number answers the first.",
    )
    def post(self, request, order_id):
        body = validate_body(s.MarketplaceShipSerializer, request.data)
        row = services.order_ship(marketplace_order_id=order_id, actor=request.user, **body)
        return _detail(row)


class MarketplaceImportView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Import a failed marketplace order again",
        parameters=[ORDER_ID],
        request=None,
        responses={200: s.MarketplaceOrderDetailSerializer},
        errors={
            409: "Imported already (`marketplace_order_imported`) or cancelled "
            "(`marketplace_order_closed`).",
        },
        description="After fixing what failed (an unknown SKU, too little stock), imports the "
        "order again, all or nothing. Answers the order: `import_status` imported, or failed "
        "again with the new `failure` (recorded, `import_attempts` counts them).",
    )
    def post(self, request, order_id):
        row = services.order_import_retry(marketplace_order_id=order_id, actor=request.user)
        return _detail(row)


class MarketplaceSettingsView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    def _body(self):
        prefix = f"/{settings.REST_ROOT}/ec/v1"
        return {"marketplaces": [s.settings_data(a, prefix=prefix) for a in selectors.accounts()]}

    @store_schema(
        summary="Marketplace settings",
        responses={200: s.MarketplaceSettingsListSerializer},
        description="Per marketplace: enabled, whether its webhook secret and each API "
        "credential are set (never their values: they are stored sealed), "
        "auto_acknowledge, the status an imported order gets, its shipping method, and the "
        "path its webhooks go to.",
    )
    def get(self, request):
        return Response(self._body())

    UPDATE = {
        "request": s.MarketplaceSettingsChangeSerializer,
        "responses": {200: s.MarketplaceSettingsListSerializer},
    }

    @store_schema(
        summary="Change marketplace settings",
        description='A body keyed by marketplace (`{"skroutz": {"enabled": true, '
        '"webhook_secret": "...", "credentials": {"api_token": "..."}}}`); only what is '
        "sent changes. Enabling needs a webhook secret (400 `webhook_secret_required`). "
        "`order_status`: pending, on_hold or processing.",
        **UPDATE,
    )
    def patch(self, request):
        fields = validate_body(s.MarketplaceSettingsChangeSerializer, request.data, partial=True)
        services.settings_update(changes={k: dict(v) for k, v in fields.items()})
        return Response(self._body())

    @store_schema(
        summary="Change marketplace settings (as PATCH)", description="Same as PATCH.", **UPDATE
    )
    def put(self, request):
        return self.patch(request)
