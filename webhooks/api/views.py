"""Portal webhook endpoints: reseller and agency accounts, bearer token only (no API keys)."""

from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from accounts.permissions import IsPartner
from common.api.schema import portal_schema
from common.api.views import PortalAPIView, validate_input
from webhooks import selectors, services
from webhooks.api import serializers as s

TAGS = ["Webhooks"]
# POST operations that take no body say so (portal_schema leaves the request out when None).
NO_BODY = extend_schema(request=None)
WEBHOOK_ID = OpenApiParameter("webhook_id", int, OpenApiParameter.PATH)
# The answers that show a secret (create, rotate-secret) are never stored by a cache.
NO_STORE = method_decorator(never_cache, name="dispatch")
LOG_ID = OpenApiParameter(
    "log_id", int, OpenApiParameter.PATH, description="The `id` of a delivery log entry."
)


class WebhookView(PortalAPIView):
    permission_classes = [IsPartner]

    def get_webhook(self, request, webhook_id: int):
        return selectors.webhook_get(account=request.user, webhook_id=webhook_id)


@NO_STORE
class WebhookListView(WebhookView):
    @portal_schema(
        summary="List webhooks",
        responses={200: s.WebhookSerializer(many=True)},
        errors=(403,),
        tags=TAGS,
        description="The account's webhooks, oldest first, without their secrets.",
    )
    def get(self, request):
        webhooks = selectors.webhook_list(account=request.user)
        return Response(s.WebhookSerializer(webhooks, many=True).data)

    @portal_schema(
        summary="Create a webhook",
        request=s.WebhookCreateInputSerializer,
        responses={201: s.WebhookWithSecretSerializer},
        errors=(403,),
        tags=TAGS,
        description="Answers the webhook with its secret, the only time the secret is shown. "
        "The URL must be https:// and its host must resolve to public addresses only (422 "
        "`url_not_allowed` otherwise). 400 `webhook_limit_reached` past 10 webhooks.",
    )
    def post(self, request):
        data = validate_input(s.WebhookCreateInputSerializer, request.data)
        webhook = services.webhook_create(
            account=request.user,
            url=data["url"],
            events=data["events"],
            description=data.get("description"),
        )
        return Response(s.WebhookWithSecretSerializer(webhook).data, status=status.HTTP_201_CREATED)


class WebhookDetailView(WebhookView):
    @portal_schema(
        summary="Get a webhook",
        responses={200: s.WebhookSerializer},
        errors=(403, 404),
        tags=TAGS,
        parameters=[WEBHOOK_ID],
    )
    def get(self, request, webhook_id: int):
        return Response(s.WebhookSerializer(self.get_webhook(request, webhook_id)).data)

    @portal_schema(
        summary="Update a webhook",
        request=s.WebhookUpdateInputSerializer,
        responses={200: s.WebhookSerializer},
        errors=(403, 404),
        tags=TAGS,
        parameters=[WEBHOOK_ID],
        description="Any of url, events, is_active and description. Setting is_active to true "
        "re-enables a webhook that was disabled; setting it to false gives up its pending "
        "deliveries.",
    )
    def patch(self, request, webhook_id: int):
        webhook = self.get_webhook(request, webhook_id)
        data = validate_input(s.WebhookUpdateInputSerializer, request.data)
        webhook = services.webhook_update(webhook=webhook, **data)
        return Response(s.WebhookSerializer(webhook).data)

    @portal_schema(
        summary="Delete a webhook",
        responses={204: OpenApiResponse(description="Deleted, with all its delivery logs.")},
        errors=(403, 404),
        tags=TAGS,
        parameters=[WEBHOOK_ID],
    )
    def delete(self, request, webhook_id: int):
        services.webhook_delete(webhook=self.get_webhook(request, webhook_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookTestView(WebhookView):
    throttle_scope = "webhook_send"

    @NO_BODY
    @portal_schema(
        summary="Send a test ping",
        responses={200: s.TestResultSerializer},
        errors=(403, 404),
        throttled=True,
        method="POST",
        tags=TAGS,
        parameters=[WEBHOOK_ID],
        description="Sends a signed `ping` event now and reports whether the receiver answered "
        "2xx, its status code and the error on failure (never the receiver's body). The "
        "attempt is logged; it is not retried.",
    )
    def post(self, request, webhook_id: int):
        webhook = self.get_webhook(request, webhook_id)
        entry, result = services.webhook_ping(webhook=webhook)
        return Response(
            {
                "success": result.success,
                "status_code": result.status_code,
                "error": result.error or None,
                "duration_ms": result.duration_ms,
                "delivery_id": entry.delivery.uuid if entry is not None else None,
            }
        )


@NO_STORE
class WebhookRotateSecretView(WebhookView):
    @NO_BODY
    @portal_schema(
        summary="Rotate a webhook's secret",
        responses={200: s.WebhookWithSecretSerializer},
        errors=(403, 404),
        method="POST",
        tags=TAGS,
        parameters=[WEBHOOK_ID],
        description="Answers the webhook with a new secret, in force at once: every attempt "
        "from now on (retries included) is signed with it.",
    )
    def post(self, request, webhook_id: int):
        webhook = services.webhook_rotate_secret(webhook=self.get_webhook(request, webhook_id))
        return Response(s.WebhookWithSecretSerializer(webhook).data)


class WebhookDeliveriesView(WebhookView):
    @portal_schema(
        summary="Recent delivery log entries",
        responses={200: s.DeliveryLogSerializer(many=True)},
        errors=(403, 404, 422),
        tags=TAGS,
        parameters=[WEBHOOK_ID, s.DeliveryLogQuerySerializer],
        description="One entry per attempt, newest first; the newest 100 per webhook are kept.",
    )
    def get(self, request, webhook_id: int):
        webhook = self.get_webhook(request, webhook_id)
        query = validate_input(s.DeliveryLogQuerySerializer, request.query_params)
        entries = selectors.delivery_log_list(webhook=webhook, limit=query["limit"])
        return Response(s.DeliveryLogSerializer(entries, many=True).data)


class WebhookRedeliverView(WebhookView):
    throttle_scope = "webhook_send"

    @NO_BODY
    @portal_schema(
        summary="Redeliver a logged delivery",
        responses={202: s.DeliverySerializer},
        errors=(400, 403, 404),
        throttled=True,
        method="POST",
        tags=TAGS,
        parameters=[WEBHOOK_ID, LOG_ID],
        description="Sends the event of a log entry again: the same body and X-Hub-Delivery "
        "id, signed with the current secret, as one more attempt. 400 `webhook_inactive` "
        "while the webhook is inactive.",
    )
    def post(self, request, webhook_id: int, log_id: int):
        webhook = self.get_webhook(request, webhook_id)
        entry = selectors.delivery_log_get(webhook=webhook, log_id=log_id)
        delivery = services.delivery_redeliver(delivery=entry.delivery)
        return Response(s.DeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)
