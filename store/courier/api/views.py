"""Courier routes (staff: ec_manage_shipping) and an order's courier routes (ec_manage_orders):
thin views over store.courier.selectors and services."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema_view
from rest_framework import status
from rest_framework.response import Response

from store.common.capabilities import MANAGE_ORDERS, manage
from store.common.pagination import named_page
from store.common.params import validate_body, validate_query
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.courier import selectors, services
from store.courier.providers import PROVIDERS, provider_class

from . import serializers as s

TAG = "Courier"
SHIPPING = {"*": manage("shipping")}
ORDERS = {"*": MANAGE_ORDERS}
PROVIDER = OpenApiParameter(
    "provider", str, OpenApiParameter.PATH, enum=list(PROVIDERS), description="The courier."
)
VOUCHER = OpenApiParameter(
    "voucher", str, OpenApiParameter.PATH, pattern=r"^[A-Za-z0-9-]{1,40}$",
    description="The voucher number.",
)  # fmt: skip
ORDER_ID = OpenApiParameter("order_id", int, OpenApiParameter.PATH)
SHIPMENT_ID = OpenApiParameter("shipment_id", int, OpenApiParameter.PATH)
PDF = {(200, "application/pdf"): OpenApiTypes.BINARY}

NOT_CONFIGURED = (
    "The courier lacks credentials, or is the sandbox where it is not allowed "
    "(`courier_not_configured`)."
)
COURIER_FAILED = (
    "The courier could not be reached or failed (`courier_unavailable`), or refused the "
    "request (`courier_refused`, with its message)."
)
CREATE_409 = (
    f"{NOT_CONFIGURED} The courier is disabled (`courier_disabled`); the order has no complete "
    "shipping address (`order_no_shipping_address`), is closed (`order_closed`), or the "
    "shipment already has a live voucher (`voucher_exists`) or is closed (`shipment_closed`)."
)
CANCEL_409 = (
    "Already cancelled (`voucher_cancelled`), or collected already "
    f"(`voucher_not_cancellable`). {NOT_CONFIGURED}"
)
LABEL_409 = "The voucher was cancelled (`voucher_cancelled`)."


def pdf_response(content: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response


def voucher_body(voucher) -> dict:
    return s.voucher_data(selectors.voucher_by_id(voucher.pk))


# --- /courier/{provider}/... ----------------------------------------------------------------------


class CourierTestConnectionView(StoreAPIView):
    access = SHIPPING
    openapi_tag = TAG

    @store_schema(
        summary="Test a courier's connection",
        request=None,
        parameters=[PROVIDER],
        responses={200: s.ConnectionSerializer},
        errors={409: NOT_CONFIGURED, 502: COURIER_FAILED},
        description="Calls the courier with the stored credentials (the sandbox answers "
        "locally). Works whether the courier is enabled or not.",
    )
    def post(self, request, provider):
        return Response(services.connection_test(provider))


class CourierVoucherCreateView(StoreAPIView):
    access = SHIPPING
    openapi_tag = TAG

    @store_schema(
        summary="Create a courier voucher",
        request=s.VoucherCreateSerializer,
        parameters=[PROVIDER],
        responses={201: s.VoucherSerializer},
        errors={409: CREATE_409, 502: COURIER_FAILED},
        description="For an order (`order_id`, optionally `shipment_id`: as POST "
        "/orders/{id}/courier/create-voucher) or for a `recipient` address alone. The label "
        "is `label_url`. Send an Idempotency-Key to retry safely.",
    )
    def post(self, request, provider):
        provider_class(provider)
        fields = validate_body(s.VoucherCreateSerializer, request.data)
        voucher = services.voucher_create(
            provider=provider, fields=dict(fields), actor=request.user
        )
        return Response(voucher_body(voucher), status=status.HTTP_201_CREATED)


class _ByNumber(StoreAPIView):
    """The voucher a /courier/{provider}/.../{voucher} route names."""

    access = SHIPPING
    openapi_tag = TAG

    def found(self, kwargs):
        return selectors.voucher_get(kwargs["provider"], kwargs["voucher"])


class _ByShipment(StoreAPIView):
    """The latest voucher of the order's shipment an /orders/{id}/courier/... route names."""

    access = ORDERS
    openapi_tag = "Orders"

    def found(self, kwargs):
        return selectors.shipment_voucher(kwargs["order_id"], kwargs["shipment_id"])


class _Label:
    def get(self, request, **kwargs):
        voucher = self.found(kwargs)
        return pdf_response(selectors.label_of(voucher), f"voucher-{voucher.number}.pdf")


class _Track:
    def get(self, request, **kwargs):
        voucher = self.found(kwargs)
        services.voucher_track(voucher_id=voucher.pk, actor=request.user)
        return Response(voucher_body(voucher))


class _Cancel:
    def post(self, request, **kwargs):
        voucher = self.found(kwargs)
        services.voucher_cancel(voucher_id=voucher.pk, actor=request.user)
        return Response(voucher_body(voucher))


@extend_schema_view(
    get=store_schema(
        summary="A voucher's label (PDF)",
        parameters=[PROVIDER, VOUCHER],
        responses=PDF,
        errors={409: LABEL_409},
        description="The courier's own label when it sent one, else one drawn by the store: "
        "a page per parcel with a Code 128 barcode and a QR code of the voucher number, both "
        "addresses, the weight, the parcel count and any cash on delivery.",
    )
)
class CourierLabelView(_Label, _ByNumber):
    pass


@extend_schema_view(
    post=store_schema(
        summary="Cancel a voucher",
        request=None,
        parameters=[PROVIDER, VOUCHER],
        responses={200: s.VoucherSerializer},
        errors={409: CANCEL_409, 502: COURIER_FAILED},
        description="Cancels it at the courier; its shipment loses the tracking number (and "
        "can get a new voucher).",
    )
)
class CourierCancelView(_Cancel, _ByNumber):
    pass


@extend_schema_view(
    get=store_schema(
        summary="Track a voucher",
        parameters=[PROVIDER, VOUCHER],
        responses={200: s.VoucherSerializer},
        errors={409: NOT_CONFIGURED, 502: COURIER_FAILED},
        description="Asks the courier now and answers the voucher with its events; its "
        "shipment and the order's fulfilment status follow (delivered: the shipment is "
        "delivered and the order fulfilled once every unit is). A cancelled voucher is "
        "answered as kept.",
    )
)
class CourierTrackView(_Track, _ByNumber):
    pass


class CourierPickupListView(StoreAPIView):
    access = SHIPPING
    openapi_tag = TAG

    @store_schema(
        summary="A courier's pickup list",
        parameters=[s.PickupListQuerySerializer],
        responses={
            (200, "application/json"): s.PickupListSerializer,
            (200, "application/pdf"): OpenApiTypes.BINARY,
        },
        description="The vouchers of one `provider` to be collected on `date` (default today; "
        "cancelled ones left out), with their totals: paged JSON, or with `output=pdf` a "
        "printable list of all of them with a signature line.",
    )
    def get(self, request):
        query = validate_query(s.PickupListQuerySerializer, request.query_params)
        name, day = query["provider"], query.get("date") or timezone.localdate()
        totals = s.totals_data(selectors.pickup_totals(name, day))
        if query["output"] == "pdf":
            rows = [s.pickup_row(v) for v in selectors.pickup_rows(name, day)]
            pdf = selectors.pickup_list_pdf(
                provider_title=PROVIDERS[name].title, day=day, rows=rows, totals=totals
            )
            return pdf_response(pdf, f"pickup-{name}-{day}.pdf")
        page = selectors.pickup_page(name, day, page=query["page"], per_page=query["per_page"])
        return Response(
            named_page(
                "vouchers", page, s.pickup_row, provider=name, date=day.isoformat(), totals=totals
            )
        )


class CourierSettingsView(StoreAPIView):
    access = SHIPPING
    openapi_tag = TAG

    def _body(self):
        return {"providers": [s.settings_data(a) for a in selectors.accounts()]}

    @store_schema(
        summary="Courier settings",
        responses={200: s.CourierSettingsSerializer},
        description="Per courier: enabled, the sender's address, the default weight (kg) and "
        "its credentials, masked (never answered in full; stored encrypted).",
    )
    def get(self, request):
        return Response(self._body())

    @store_schema(
        summary="Change courier settings",
        request=s.CourierSettingsWriteSerializer,
        responses={200: s.CourierSettingsSerializer},
        description='A body keyed by courier (`{"acs": {"enabled": true, "credentials": '
        "{...}}}`); only what is sent changes.",
    )
    def patch(self, request):
        fields = validate_body(s.CourierSettingsWriteSerializer, request.data, partial=True)
        services.settings_update(changes={k: dict(v) for k, v in fields.items()})
        return Response(self._body())

    @store_schema(
        summary="Change courier settings (as PATCH)",
        request=s.CourierSettingsWriteSerializer,
        responses={200: s.CourierSettingsSerializer},
        description="Same as PATCH.",
    )
    def put(self, request):
        return self.patch(request)


# --- /orders/{order_id}/courier/... --------------------------------------------------------------


class OrderCourierVoucherCreateView(StoreAPIView):
    access = ORDERS
    openapi_tag = "Orders"

    @store_schema(
        summary="Create a courier voucher for an order",
        request=s.OrderVoucherCreateSerializer,
        parameters=[ORDER_ID],
        responses={201: s.VoucherSerializer},
        errors={409: CREATE_409, 502: COURIER_FAILED},
        description="To the order's shipping address (complete: else 409 "
        "`order_no_shipping_address`). The voucher goes on `shipment_id`, else on the "
        "order's latest open shipment without a tracking number, else on a new shipment "
        "(pending) of every unit not yet in one (400 `nothing_to_ship` when none is left); "
        "the shipment gets the courier as carrier and the voucher number as tracking number. "
        "Cash on delivery defaults to what is left to pay of an order paid cash on delivery. "
        "Send an Idempotency-Key to retry safely.",
    )
    def post(self, request, order_id):
        fields = validate_body(s.OrderVoucherCreateSerializer, request.data)
        voucher = services.order_voucher_create(
            order_id=order_id, fields=dict(fields), actor=request.user
        )
        return Response(voucher_body(voucher), status=status.HTTP_201_CREATED)


@extend_schema_view(
    get=store_schema(
        summary="The label of an order's shipment (PDF)",
        parameters=[ORDER_ID, SHIPMENT_ID],
        responses=PDF,
        errors={409: LABEL_409},
        description="The label of the shipment's latest voucher (404 `voucher_not_found` "
        "when it has none; 404 `shipment_not_found` for another order's shipment).",
    )
)
class OrderCourierLabelView(_Label, _ByShipment):
    pass


@extend_schema_view(
    get=store_schema(
        summary="Track an order's shipment",
        parameters=[ORDER_ID, SHIPMENT_ID],
        responses={200: s.VoucherSerializer},
        errors={409: NOT_CONFIGURED, 502: COURIER_FAILED},
        description="As GET /courier/{provider}/track/{voucher} for the shipment's latest "
        "voucher: the shipment and the order's fulfilment status follow.",
    )
)
class OrderCourierTrackView(_Track, _ByShipment):
    pass


@extend_schema_view(
    post=store_schema(
        summary="Cancel the voucher of an order's shipment",
        request=None,
        parameters=[ORDER_ID, SHIPMENT_ID],
        responses={200: s.VoucherSerializer},
        errors={409: CANCEL_409, 502: COURIER_FAILED},
        description="Cancels the shipment's latest voucher at the courier; the shipment loses "
        "its tracking number and can get a new voucher.",
    )
)
class OrderCourierCancelView(_Cancel, _ByShipment):
    pass
