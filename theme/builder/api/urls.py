from django.urls import path  # noqa: F401 - routes land here

urlpatterns: list = []
