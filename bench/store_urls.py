"""The project's routes plus the benchmark's floor: a bare view doing one indexed lookup."""

from django.http import JsonResponse
from django.urls import path

from config.urls import urlpatterns as project_urlpatterns
from store.catalog.models import Product


def floor(request, product_id: int):
    found = Product.objects.filter(pk=product_id).values_list("pk", flat=True).first()
    return JsonResponse({"id": found})


urlpatterns = [path("bench/floor/<int:product_id>", floor), *project_urlpatterns]
