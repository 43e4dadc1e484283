from django.urls import path

from . import views

urlpatterns = [
    path("docs/openapi.json", views.OpenApiView.as_view(), name="store-openapi"),
    path("docs/playground", views.PlaygroundView.as_view(), name="store-playground"),
]
