"""The store's webhooks: ec_manage_webhooks (or manage_options).

Thin views: the store's view kernel (store.common: authentication, capabilities, errors,
pages, Idempotency-Key) over the webhooks app's services and selectors, which deliver store
webhooks exactly as the portal's (signing, retries, SSRF guard, logs, batching, metrics).
"""

from __future__ import annotations

from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from common.errors import ServiceError
from store.common.capabilities import MANAGE_WEBHOOKS
from store.common.pagination import paginate
from store.common.params import validate_body, validate_query
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from webhooks import selectors, services

from . import serializers as s

TAG = "Webhooks"
ACCESS = {"*": MANAGE_WEBHOOKS}
WEBHOOK_ID = OpenApiParameter("webhook_id", int, OpenApiParameter.PATH)
DELIVERY_ID = OpenApiParameter(
    "delivery_id", int, OpenApiParameter.PATH, description="The `id` of a delivery."
)
NO_STORE = method_decorator(never_cache, name="dispatch")
SEND_SCOPES = {"POST": "webhook_send"}

EVENTS = """Events and their `data` (the body is `{event, timestamp, data}`, compact JSON, \
signed with `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the body with the secret>`; \
`X-Hub-Event` names the event, `X-Hub-Delivery` is the same on every retry; amounts are \
decimal strings, times ISO 8601 UTC):

- `order.created`, `order.paid`: `{order}`; `order.status_changed`: `{from, to, order}`; \
`order.refunded`: `{amount, refunds: [{payment_id, gateway, refund_id, amount}], restocked, \
order}` (the amounts negative: money going back). `order` is `{order_id, number, status, \
payment_status, fulfillment_status, currency, \
subtotal, discount_total, shipping_total, shipping_tax, tax_total, total, amount_paid, \
amount_refunded, item_count, customer_id, source, created_at, paid_at, completed_at}` (no \
addresses).
- `product.created`: `{product}`; `product.updated`: `{changed, product}` (`changed`: the \
fields the write sent); `product` is `{product_id, sku, title, slug, type, status, price, \
regular_price, sale_price, stock_quantity, stock_status, created_at, updated_at}`; \
`product.deleted`: `{product: {product_id, sku, title, slug}}`.
- `stock.low`: `{product_id, variant_id, sku, title, stock_quantity, previous_quantity, \
low_stock_threshold}`, once when a tracked simple product or enabled variant falls from above \
its low-stock threshold (the product's, else the store's inventory setting) to at or below it.
- `customer.created`: `{customer: {customer_id, email, first_name, last_name, company, \
user_id, created_at}}` (any way a customer is made: the API, the admin, an order, the \
checkout, a sign-up).

Events are recorded in the transaction of the change and sent after it commits (a change \
that rolls back sends nothing); failed deliveries are retried on the schedule 5 s, 5 min, \
30 min, 2 h, 5 h, 10 h, 10 h; a receiver answering 410, or failing for 5 days, disables the \
webhook."""


class WebhookView(StoreAPIView):
    access = ACCESS
    openapi_tag = TAG


@NO_STORE
class WebhookListView(WebhookView):
    @store_schema(
        summary="List the store's webhooks",
        parameters=[s.WebhookListQuerySerializer],
        responses={200: s.WebhookPageSerializer},
        description="`{webhooks, total, page, per_page, total_pages}`, oldest first, without "
        "their secrets; `active` true or false filters.",
    )
    def get(self, request):
        query = validate_query(s.WebhookListQuerySerializer, request.query_params)
        page = paginate(
            selectors.store_webhook_list(active=query.get("active")),
            page=query["page"],
            per_page=query["per_page"],
        )
        return Response(
            {"webhooks": [s.webhook_data(webhook) for webhook in page.items], **page.meta()}
        )

    @store_schema(
        summary="Register a store webhook",
        request=s.WebhookCreateSerializer,
        responses={201: s.WebhookWithSecretSerializer},
        description="Answers the webhook with its `secret`, the only time it is shown. "
        "`url`: https:// only, and its host must resolve to public addresses only (400 "
        "`url_not_allowed`, naming the address); `events`: a non-empty subset of the store's "
        "events (400 naming the unknown ones); unknown fields are refused (400). At most 20 "
        "store webhooks (400 `webhook_limit_reached`). Send an Idempotency-Key to retry "
        "safely.\n\n" + EVENTS,
    )
    def post(self, request):
        fields = validate_body(s.WebhookCreateSerializer, request.data)
        webhook = services.store_webhook_create(
            url=fields["url"],
            events=fields["events"],
            description=fields.get("description"),
            is_active=fields.get("is_active", True),
            created_by=request.user,
        )
        return Response(s.webhook_data(webhook, secret=True), status=status.HTTP_201_CREATED)


class WebhookDetailView(WebhookView, StoreResourceView):
    resource = "webhook"
    id_kwarg = "webhook_id"
    output_serializer = s.WebhookSerializer
    write_serializer = s.WebhookUpdateSerializer
    summaries = {"get": "Read a store webhook", "delete": "Delete a store webhook"}
    descriptions = {
        "get": "The webhook, without its secret. " + EVENTS,
        "patch": "Any of `url` (checked as at creation: 400 `url_not_allowed`), `events`, "
        "`description`, `is_active` (false gives up the pending deliveries; true re-enables "
        "a disabled webhook and clears its failure clock). Unknown fields are refused.",
        "put": "Same as PATCH.",
        "delete": "Deletes the webhook with its deliveries and delivery log.",
    }

    def read(self, request, pk):
        return s.webhook_data(selectors.store_webhook_get(webhook_id=pk))

    def update(self, request, pk, fields):
        webhook = selectors.store_webhook_get(webhook_id=pk)
        services.webhook_update(
            webhook=webhook, disabled_reason="Disabled by staff.", **dict(fields)
        )

    def remove(self, request, pk):
        services.webhook_delete(webhook=selectors.store_webhook_get(webhook_id=pk))


class WebhookTestView(WebhookView):
    throttle_scopes = SEND_SCOPES

    @store_schema(
        summary="Send a test ping to a store webhook",
        request=None,
        parameters=[WEBHOOK_ID],
        responses={200: s.TestResultSerializer},
        description="Sends a signed `ping` event (data `{webhook_id, url, events}`) now and "
        "answers whether the receiver answered 2xx, its status code and the error on failure "
        "(never the receiver's body). Logged as a delivery, never retried; allowed while the "
        "webhook is inactive. Rate-limited with redeliveries (30 a minute).",
    )
    def post(self, request, webhook_id):
        webhook = selectors.store_webhook_get(webhook_id=webhook_id)
        entry, result = services.webhook_ping(webhook=webhook)
        return Response(
            {
                "success": result.success,
                "status_code": result.status_code,
                "error": result.error or None,
                "duration_ms": result.duration_ms,
                "delivery_id": str(entry.delivery.uuid) if entry is not None else None,
            }
        )


@NO_STORE
class WebhookRotateSecretView(WebhookView):
    @store_schema(
        summary="Rotate a store webhook's secret",
        request=None,
        parameters=[WEBHOOK_ID],
        responses={200: s.WebhookWithSecretSerializer},
        description="Answers the webhook with a new `secret`, in force at once: every attempt "
        "from now on (retries and redeliveries included) is signed with it.",
    )
    def post(self, request, webhook_id):
        webhook = selectors.store_webhook_get(webhook_id=webhook_id)
        webhook = services.webhook_rotate_secret(webhook=webhook)
        return Response(s.webhook_data(webhook, secret=True))


class WebhookDeliveriesView(WebhookView):
    @store_schema(
        summary="A store webhook's deliveries",
        parameters=[WEBHOOK_ID, s.DeliveryListQuerySerializer],
        responses={200: s.DeliveryPageSerializer},
        description="`{deliveries, total, page, per_page, total_pages}`, newest first: one "
        "delivery per event sent (pings included), with its body and its attempts (`log`). "
        "Filters `status` (pending, succeeded, failed) and `event`. The newest 100 attempts "
        "per webhook are kept; a finished delivery whose log is gone goes with it.",
    )
    def get(self, request, webhook_id):
        query = validate_query(s.DeliveryListQuerySerializer, request.query_params)
        webhook = selectors.store_webhook_get(webhook_id=webhook_id)
        page = paginate(
            selectors.store_delivery_list(
                webhook=webhook, status=query.get("status"), event=query.get("event")
            ),
            page=query["page"],
            per_page=query["per_page"],
        )
        logs = selectors.delivery_logs_of([delivery.pk for delivery in page.items])
        return Response(
            {
                "deliveries": [s.delivery_data(d, logs[d.pk]) for d in page.items],
                **page.meta(),
            }
        )


class WebhookRedeliverView(WebhookView):
    throttle_scopes = SEND_SCOPES

    @store_schema(
        summary="Redeliver a delivery",
        request=None,
        parameters=[WEBHOOK_ID, DELIVERY_ID],
        responses={202: s.DeliverySerializer},
        errors={409: "The webhook is inactive (`webhook_inactive`): re-enable it first."},
        description="Sends the delivery again: the same body and X-Hub-Delivery id, signed "
        "with the current secret, as one more attempt (a delivery still being retried has "
        "its next attempt brought forward). Answers the delivery; the attempt is made by a "
        "worker. Rate-limited with test pings (30 a minute).",
    )
    def post(self, request, webhook_id, delivery_id):
        webhook = selectors.store_webhook_get(webhook_id=webhook_id)
        delivery = selectors.store_delivery_get(webhook=webhook, delivery_id=delivery_id)
        try:
            delivery = services.delivery_redeliver(delivery=delivery)
        except ServiceError as exc:
            if exc.code == "webhook_inactive":
                exc.status_code = 409
            raise
        logs = selectors.delivery_logs_of([delivery.pk])
        return Response(s.delivery_data(delivery, logs[delivery.pk]), status=202)
