"""Stand-in endpoints for the database-loss tests: a plain Django view under each API prefix
(its exceptions reach ApiErrorMiddleware, not DRF's handler) and a DRF view raising the
database errors a backend can raise. The project's routes stay mounted behind them."""

import sqlite3

from django.db import InterfaceError, OperationalError
from django.http import JsonResponse
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from accounts.models import User
from config.urls import urlpatterns as project_urlpatterns


def plain(request):
    return JsonResponse({"users": User.objects.count()})


def _raise(kind: str):
    if kind == "interface":
        raise InterfaceError("connection already closed")
    # as Django's wrapper raises them: the driver's error as the cause
    cause = sqlite3.OperationalError(
        "database is locked" if kind == "locked" else "no such table: accounts_user"
    )
    raise OperationalError(*cause.args) from cause


class RaisingView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    def get(self, request, kind: str):
        _raise(kind)


urlpatterns = [
    path("api/v1/portal/stand-in/plain", plain),
    path("rest/ec/v1/stand-in/plain", plain),
    path("rest/ec/v1/stand-in/raise/<str:kind>", RaisingView.as_view()),
    *project_urlpatterns,
]
