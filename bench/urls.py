"""The project's routes plus the two floors every bench compares against.

- F-pk  `GET  /bench/floor/pk`:  one indexed lookup by primary key, answered as JSON;
- F-pkw `POST /bench/floor/pkw`: transaction.atomic + select_for_update of one row by primary
  key + an UPDATE of that row, answered as JSON.

Both are bare Django views behind the project's full middleware stack (no DRF). The row is
random among the seeded rows (`?id=` fixes it), so concurrent writers do not queue on one lock,
as two shoppers' carts do not.

The auth probes (bench_auth) are DRF views that only authenticate and answer the caller's id:
`GET /bench/auth/portal` (bearer token or X-API-Key, as a portal endpoint of the API-key table)
and `GET /bench/auth/store` (HTTP Basic with an application password, as the store's).
"""

import random

from django.db import transaction
from django.db.models import F
from django.http import JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import AppPasswordAuthentication
from bench.models import FloorRow
from common.api.views import PortalAPIView
from config.urls import urlpatterns as project_urlpatterns

FLOOR_ROWS = 10_000


def _row_id(request) -> int:
    try:
        return int(request.GET["id"])
    except (KeyError, ValueError):
        return random.randint(1, FLOOR_ROWS)  # noqa: S311 - not a secret


@require_GET
def floor_pk(request):
    row = FloorRow.objects.filter(pk=_row_id(request)).values("id", "counter", "label").first()
    return JsonResponse({"row": row})


@csrf_exempt
@require_POST
def floor_pkw(request):
    with transaction.atomic():
        row = FloorRow.objects.select_for_update().only("id").get(pk=_row_id(request))
        FloorRow.objects.filter(pk=row.pk).update(counter=F("counter") + 1)
    return JsonResponse({"id": row.pk})


class PortalAuthProbe(PortalAPIView):
    api_key_methods = frozenset({"GET"})

    def get(self, request):
        return Response({"user": request.user.pk})


class StoreAuthProbe(APIView):
    authentication_classes = [AppPasswordAuthentication]

    def get(self, request):
        return Response({"user": request.user.pk})


urlpatterns = [
    path("bench/floor/pk", floor_pk),
    path("bench/floor/pkw", floor_pkw),
    path("bench/auth/portal", PortalAuthProbe.as_view()),
    path("bench/auth/store", StoreAuthProbe.as_view()),
    *project_urlpatterns,
]
