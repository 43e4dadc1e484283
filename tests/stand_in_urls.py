"""Stand-in endpoints for mechanisms whose real users arrive in later apps.

The project's routes stay mounted; these are added in front of them.
"""

from django.urls import path
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import AppPasswordAuthentication
from accounts.permissions import IsPartner
from common.api.views import PortalAPIView
from config.urls import urlpatterns as project_urlpatterns


class KeyedView(PortalAPIView):
    """Like GET/POST /portal/licenses: bearer token or API key."""

    permission_classes = [IsPartner]
    api_key_methods = frozenset({"GET", "POST"})

    def get(self, request):
        return Response({"user": request.user.email, "via": type(request.auth).__name__})

    def post(self, request):
        return Response({"user": request.user.email}, status=status.HTTP_201_CREATED)

    def delete(self, request):  # not in the key table: bearer only
        return Response(status=status.HTTP_204_NO_CONTENT)


class AccountThrottledView(PortalAPIView):
    throttle_scope = "stand_in"

    def get(self, request):
        return Response({"ok": True})


class CrashView(PortalAPIView):
    permission_classes: list = []
    authentication_classes: list = []

    def get(self, request):
        raise RuntimeError("boom")


class StoreBasicView(APIView):
    authentication_classes = [AppPasswordAuthentication]

    def get(self, request):
        return Response({"user": request.user.email})


urlpatterns = [
    path("api/v1/portal/stand-in/keyed", KeyedView.as_view()),
    path("api/v1/portal/stand-in/throttled", AccountThrottledView.as_view()),
    path("api/v1/portal/stand-in/crash", CrashView.as_view()),
    path("rest/ec/v1/stand-in/basic", StoreBasicView.as_view()),
    *project_urlpatterns,
]
