"""The project's routes plus the benchmark's floor: a bare view doing one indexed lookup."""

from django.http import JsonResponse
from django.urls import path

from config.urls import urlpatterns as project_urlpatterns
from store.orders.models import Order


def floor(request, order_id: int):
    found = Order.objects.filter(pk=order_id).values_list("pk", flat=True).first()
    return JsonResponse({"id": found})


urlpatterns = [path("bench/floor/<int:order_id>", floor), *project_urlpatterns]
