"""Portal licence endpoints (/api/v1/portal/licenses..., /api/v1/portal/products).

Thin: validate the input, call one service or selector, shape the answer.
"""

from __future__ import annotations

from django.db.models import Prefetch
from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from accounts.permissions import IsPartner, IsPortalAccount
from common.api.schema import ErrorSerializer, portal_schema
from common.api.views import PortalAPIView, validate_input
from licensing import selectors
from licensing.api import rows
from licensing.api import serializers as s
from licensing.models import RenewalOrderItem
from licensing.services.licenses import license_bulk_create, license_create
from licensing.services.lifecycle import (
    license_change_tier,
    license_delete,
    license_reactivate,
    license_revoke,
    licenses_bulk_delete,
    licenses_bulk_revoke,
)
from licensing.services.renewals import renewal_confirm, renewal_order_create

TAG = ["Licenses"]
RENEW_TAG = ["Renewals"]
KEY_METHODS_NOTE = " Accepts an X-API-Key (resellers and agencies)."
PROVIDER_DOWN = {
    502: OpenApiResponse(
        ErrorSerializer, description="The payment provider is unreachable; nothing changed."
    )
}


class LicenseListView(PortalAPIView):
    permission_classes = [IsPortalAccount]
    api_key_methods = frozenset({"GET", "POST"})

    @portal_schema(
        summary="List licences",
        responses={200: s.LicenseSerializer(many=True)},
        errors=(403, 422),
        parameters=[
            OpenApiParameter("status", str, enum=["active", "revoked", "expired"]),
            OpenApiParameter("source", str, enum=["individual", "bulk_pack", "commitment", "nfr"]),
            OpenApiParameter("search", str, description="Part of a licence key or a domain."),
        ],
        tags=TAG,
        description="The caller's licences, newest first; resellers and agencies also see "
        "their sub-clients' licences. A plain array." + KEY_METHODS_NOTE,
    )
    def get(self, request):
        # (no parameters, the common call: nothing to validate, and no serializer built)
        params = request.query_params
        query = validate_input(s.LicenseListQuerySerializer, params) if params else {}
        # Everything that can refuse the request (authentication, permission, throttle, the
        # filters) has run; the rows are read and written out as the answer streams.
        now = timezone.now()
        entries = selectors.license_list_entries()
        chunks = selectors.license_list_chunks(user=request.user, now=now, entries=entries, **query)
        body = rows.json_array(chunks, entries=entries)
        return StreamingHttpResponse(body, content_type="application/json")

    @portal_schema(
        summary="Create a licence",
        request=s.LicenseCreateInputSerializer,
        responses={201: s.LicenseCreatedSerializer},
        errors=(403, 404),
        tags=TAG,
        description="Tier defaults to starter, expiry to one year from now. `customer_id` "
        "(resellers and agencies) must be one of the caller's clients (404 otherwise; 403 for "
        "developers). 400 `license_limit_reached` past a developer's limit, 400 "
        "`business_bundle_required` for business without a Business Bundle." + KEY_METHODS_NOTE,
    )
    def post(self, request):
        data = validate_input(s.LicenseCreateInputSerializer, request.data)
        license = license_create(owner=request.user, **data)
        return Response(s.LicenseCreatedSerializer(license).data, status=status.HTTP_201_CREATED)


class LicenseBulkCreateView(PortalAPIView):
    permission_classes = [IsPartner]
    api_key_methods = frozenset({"POST"})

    @portal_schema(
        summary="Create licences in bulk from pack credits",
        request=s.BulkCreateInputSerializer,
        responses={201: s.BulkCreatedSerializer},
        errors=(403, 404),
        tags=TAG,
        description="1 to 100 licences, all or nothing, each paid with one pack credit (source "
        "bulk_pack). 400 `insufficient_pack_credits` names the shortfall and creates nothing."
        + KEY_METHODS_NOTE,
    )
    def post(self, request):
        data = validate_input(s.BulkCreateInputSerializer, request.data)
        result = license_bulk_create(owner=request.user, **data)
        body = {
            "count": len(result.licenses),
            "license_keys": [license.license_key for license in result.licenses],
            "pack_credits_remaining": result.pack_credits_remaining,
        }
        return Response(s.BulkCreatedSerializer(body).data, status=status.HTTP_201_CREATED)


class LicenseUsageView(PortalAPIView):
    permission_classes = [IsPortalAccount]

    @portal_schema(
        summary="Licence usage against the account's limit",
        responses={200: s.UsageSerializer},
        errors=(403,),
        tags=TAG,
    )
    def get(self, request):
        return Response(s.UsageSerializer(selectors.license_usage(user=request.user)).data)


class PackCreditsView(PortalAPIView):
    permission_classes = [IsPortalAccount]

    @portal_schema(
        summary="Pack credits (active bulk packs)",
        responses={200: s.PackCreditsSerializer},
        errors=(403,),
        tags=TAG,
    )
    def get(self, request):
        return Response(s.PackCreditsSerializer(selectors.pack_credits(user=request.user)).data)


class LicenseDetailView(PortalAPIView):
    permission_classes = [IsPortalAccount]

    @portal_schema(
        summary="One licence",
        responses={200: s.LicenseSerializer},
        errors=(403, 404),
        tags=TAG,
    )
    def get(self, request, license_id: int):
        license = selectors.license_get(user=request.user, license_id=license_id)
        return Response(s.LicenseSerializer(license, context={"now": timezone.now()}).data)

    @portal_schema(
        summary="Change a licence's tier",
        request=s.TierInputSerializer,
        responses={200: s.TierChangeSerializer},
        errors=(403, 404),
        tags=TAG,
        method="PATCH",
        description="starter <-> business, status unchanged. 400 `business_bundle_required` "
        "without a current Business Bundle subscription; 400 `license_revoked` / "
        "`license_expired` for a licence that is not active.",
    )
    def patch(self, request, license_id: int):
        data = validate_input(s.TierInputSerializer, request.data)
        change = license_change_tier(user=request.user, license_id=license_id, tier=data["tier"])
        key = change.license.license_key
        message = (
            f"License {key} moved from {change.old_tier} to {change.new_tier}."
            if change.changed
            else f"License {key} is already on the {change.new_tier} tier; nothing changed."
        )
        body = {
            "success": True,
            "message": message,
            "old_tier": change.old_tier,
            "new_tier": change.new_tier,
        }
        return Response(s.TierChangeSerializer(body).data)

    @portal_schema(
        summary="Revoke a licence",
        responses={200: s.SuccessSerializer},
        errors=(400, 403, 404),
        tags=TAG,
        description="Deactivates every domain and emits license.revoked. 400 "
        "`license_not_active` for a licence already revoked.",
    )
    def delete(self, request, license_id: int):
        license = license_revoke(user=request.user, license_id=license_id)
        count = len(license.deactivated_domains)
        message = (
            f"License {license.license_key} revoked; deactivated on {count} "
            f"domain{'s' if count != 1 else ''}."
        )
        return Response(s.SuccessSerializer({"success": True, "message": message}).data)


class LicensePermanentDeleteView(PortalAPIView):
    permission_classes = [IsPortalAccount]

    @portal_schema(
        summary="Delete a revoked licence permanently",
        responses={200: s.SuccessSerializer},
        errors=(400, 403, 404),
        tags=TAG,
        description="Only a revoked licence that has never been invoiced: 400 "
        "`license_not_revoked` or `license_invoiced` otherwise.",
    )
    def delete(self, request, license_id: int):
        key = license_delete(user=request.user, license_id=license_id)
        message = f"License {key} deleted permanently."
        return Response(s.SuccessSerializer({"success": True, "message": message}).data)


class LicenseReactivateView(PortalAPIView):
    permission_classes = [IsPortalAccount]
    api_key_methods = frozenset({"POST"})

    @extend_schema(request=None)
    @portal_schema(
        summary="Reactivate a revoked licence",
        responses={200: s.SuccessSerializer},
        errors=(400, 403, 404),
        tags=TAG,
        method="POST",
        description="Free of charge; only a revoked licence that has not expired (400 "
        "`license_not_revoked` / `license_expired`). Domains stay deactivated." + KEY_METHODS_NOTE,
    )
    def post(self, request, license_id: int):
        license = license_reactivate(user=request.user, license_id=license_id)
        message = f"License {license.license_key} is active again."
        return Response(s.SuccessSerializer({"success": True, "message": message}).data)


class LicenseBulkRevokeView(PortalAPIView):
    permission_classes = [IsPortalAccount]

    @portal_schema(
        summary="Revoke licences in bulk",
        request=s.IdsInputSerializer,
        responses={200: s.RevokedCountSerializer},
        errors=(403,),
        tags=TAG,
        description="At most 100 ids (422 beyond). Ids that are not the caller's, or already "
        "revoked, are skipped and not counted.",
    )
    def post(self, request):
        data = validate_input(s.IdsInputSerializer, request.data)
        revoked = licenses_bulk_revoke(user=request.user, ids=data["ids"])
        return Response({"revoked": revoked})


class LicenseBulkDeleteView(PortalAPIView):
    permission_classes = [IsPortalAccount]

    @portal_schema(
        summary="Delete revoked licences permanently in bulk",
        request=s.IdsInputSerializer,
        responses={200: s.DeletedCountSerializer},
        errors=(403,),
        tags=TAG,
        description="At most 100 ids (422 beyond). Only revoked, never-invoiced licences of "
        "the caller are deleted; the others are skipped and not counted.",
    )
    def post(self, request):
        data = validate_input(s.IdsInputSerializer, request.data)
        deleted = licenses_bulk_delete(user=request.user, ids=data["ids"])
        return Response({"deleted": deleted})


def _order_answer(order) -> dict:
    items = RenewalOrderItem.objects.filter(order=order).select_related("product")
    order = type(order).objects.prefetch_related(Prefetch("items", queryset=items)).get(pk=order.pk)
    return s.RenewalOrderSerializer(order).data


class BulkRenewView(PortalAPIView):
    permission_classes = [IsPortalAccount]

    @portal_schema(
        summary="Price a one-year renewal and open a checkout",
        request=s.RenewInputSerializer,
        responses={201: s.RenewalOrderSerializer, **PROVIDER_DOWN},
        errors=(403, 404),
        tags=RENEW_TAG,
        description="Prices each of the caller's licences (per product and tier) into a "
        "pending order and answers the payment provider's checkout URL. Ids that are not the "
        "caller's are skipped. 400 `license_revoked` for revoked licences.",
    )
    def post(self, request):
        data = validate_input(s.RenewInputSerializer, request.data)
        order = renewal_order_create(user=request.user, license_ids=data["license_ids"])
        return Response(_order_answer(order), status=status.HTTP_201_CREATED)


class BulkRenewConfirmView(PortalAPIView):
    permission_classes = [IsPortalAccount]

    @portal_schema(
        summary="Confirm a renewal payment",
        request=s.RenewConfirmInputSerializer,
        responses={200: s.RenewalOrderSerializer, **PROVIDER_DOWN},
        errors=(403, 404),
        tags=RENEW_TAG,
        description="Checks the transaction with the payment provider and extends each licence "
        "one year from the later of now and its expiry. Confirming again with the same "
        "transaction answers the same and extends nothing more. 400 `transaction_not_found`, "
        "`transaction_mismatch`, `payment_not_completed`: nothing changed.",
    )
    def post(self, request):
        data = validate_input(s.RenewConfirmInputSerializer, request.data)
        order = renewal_confirm(user=request.user, **data)
        return Response(_order_answer(order))


class RenewalInfoView(PortalAPIView):
    permission_classes = [IsPortalAccount]

    @portal_schema(
        summary="Renewal prices and expiring licences",
        responses={200: s.RenewalInfoSerializer},
        errors=(403,),
        tags=RENEW_TAG,
        description="Yearly prices per product and tier, and the caller's licences expiring "
        "within 30 days or already expired (revoked ones excepted).",
    )
    def get(self, request):
        return Response(s.RenewalInfoSerializer(selectors.renewal_info(user=request.user)).data)


class ProductListView(PortalAPIView):
    permission_classes = [IsPortalAccount]

    @portal_schema(
        summary="Products that can be licensed",
        responses={200: s.ProductSerializer(many=True)},
        errors=(403,),
        tags=["Products"],
    )
    def get(self, request):
        return Response(s.ProductSerializer(selectors.product_list(), many=True).data)
