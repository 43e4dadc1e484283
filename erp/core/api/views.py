"""/erp/status, /erp/activate, /erp/deactivate (administrators: manage_options).

These routes are not behind the licence gate: they are how a store turns the ERP on."""

from __future__ import annotations

from rest_framework.response import Response

from erp.core import selectors, services
from store.common.capabilities import MANAGE_OPTIONS
from store.common.params import validate_body
from store.common.schema import store_schema
from store.common.views import StoreAPIView

from . import serializers as s

TAG = "ERP config"


class ErpConfigView(StoreAPIView):
    access = {"*": MANAGE_OPTIONS}
    openapi_tag = TAG


class ErpStatusView(ErpConfigView):
    @store_schema(
        summary="Whether the ERP is on and licensed",
        responses={200: s.StatusSerializer},
        description="`available` is what every ERP route checks: the ERP is on (`active`) "
        "and the store's licence (a licence of this service) is active, unexpired and of the "
        "Business tier (`licensed`). Otherwise the ERP routes answer 403 "
        "`erp_not_active` or `erp_license_required`, and `reason` says why.",
    )
    def get(self, request):
        return Response(selectors.erp_status())


class ErpActivateView(ErpConfigView):
    @store_schema(
        summary="Turn the ERP on",
        request=s.ActivateSerializer,
        responses={200: s.StatusSerializer},
        description="Under `license_key` (default: the key configured, ERP_LICENSE_KEY). A "
        "key that names no licence: 400; a licence that is revoked, expired or not of the "
        "Business tier: 409 `erp_license_required`; nothing changes then.",
        errors={409: "The licence cannot run the ERP (`erp_license_required`)."},
    )
    def post(self, request):
        fields = validate_body(s.ActivateSerializer, request.data)
        services.erp_activate(license_key=fields.get("license_key") or None, user=request.user)
        return Response(selectors.erp_status())


class ErpDeactivateView(ErpConfigView):
    @store_schema(
        summary="Turn the ERP off",
        request=None,
        responses={200: s.StatusSerializer},
        description="The ERP's data stay; every ERP route answers 403 `erp_not_active` until "
        "POST /erp/activate.",
    )
    def post(self, request):
        services.erp_deactivate(user=request.user)
        return Response(selectors.erp_status())
