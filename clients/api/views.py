"""Sub-client endpoints (/api/v1/portal/clients...): resellers and agencies only."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse
from rest_framework import status
from rest_framework.response import Response

from accounts.permissions import IsPartner
from clients import selectors, services
from clients.api import serializers as s
from common.api.schema import portal_schema
from common.api.views import PortalAPIView, validate_input
from licensing import selectors as licensing_selectors
from licensing.api.serializers import ClientLicenseSerializer

TAG = ["Clients"]
KEY_NOTE = " Accepts an X-API-Key."


class ClientListView(PortalAPIView):
    permission_classes = [IsPartner]
    api_key_methods = frozenset({"GET", "POST"})

    @portal_schema(
        summary="List clients",
        responses={200: s.ClientSerializer(many=True)},
        errors=(403,),
        tags=TAG,
        description="The caller's clients by name. A plain array." + KEY_NOTE,
    )
    def get(self, request):
        return Response(
            s.ClientSerializer(selectors.client_list(owner=request.user), many=True).data
        )

    @portal_schema(
        summary="Create a client",
        request=s.ClientCreateInputSerializer,
        responses={201: s.ClientSerializer},
        errors=(403,),
        tags=TAG,
        description="400 `email_taken` when any client, of any account, has the address."
        + KEY_NOTE,
    )
    def post(self, request):
        data = validate_input(s.ClientCreateInputSerializer, request.data)
        client = services.client_create(owner=request.user, **data)
        client.license_count = 0
        return Response(s.ClientSerializer(client).data, status=status.HTTP_201_CREATED)


class ClientDetailView(PortalAPIView):
    permission_classes = [IsPartner]
    api_key_methods = frozenset({"DELETE"})

    @portal_schema(
        summary="Delete a client (irreversible)",
        responses={204: OpenApiResponse(description="Deleted.")},
        errors=(403, 404),
        tags=TAG,
        description="Revokes and deactivates every licence of the client (each emits "
        "license.revoked), then deletes the client. The revoked licences stay on the account."
        + KEY_NOTE,
    )
    def delete(self, request, client_id: int):
        services.client_delete(owner=request.user, client_id=client_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ClientLicensesView(PortalAPIView):
    permission_classes = [IsPartner]
    api_key_methods = frozenset({"GET"})

    @portal_schema(
        summary="A client's licences",
        responses={200: ClientLicenseSerializer(many=True)},
        errors=(403, 404),
        tags=TAG,
        description="Licences without source, customer_id and created_at." + KEY_NOTE,
    )
    def get(self, request, client_id: int):
        rows = licensing_selectors.client_license_list(user=request.user, client_id=client_id)
        return Response(
            ClientLicenseSerializer(rows, many=True, context={"now": timezone.now()}).data
        )
