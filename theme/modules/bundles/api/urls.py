from django.urls import path

from .views import BundlesView

urlpatterns = [
    path("bundles", BundlesView.as_view(), name="theme-bundles"),
]
