"""The project's routes plus the benchmark floor: a bare Django view, one indexed lookup."""

from django.http import JsonResponse
from django.urls import path

from config.urls import urlpatterns as project_urlpatterns
from licensing.models import License


def floor(request):
    license_id = (
        License.objects.filter(license_key=request.GET.get("key", ""))
        .values_list("id", flat=True)
        .first()
    )
    return JsonResponse({"id": license_id})


urlpatterns = [path("bench/floor", floor), *project_urlpatterns]
