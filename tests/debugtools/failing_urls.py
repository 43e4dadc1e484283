"""A URL configuration with one view that writes in a transaction and then fails (500)."""

from django.db import transaction
from django.urls import path

from debugtools.models import DebugSettings


def fail(request):
    with transaction.atomic():
        DebugSettings.objects.create(pk=1, retention_days=3)
        raise RuntimeError("the view failed")


urlpatterns = [path("fail", fail)]
