from django.urls import path

from .views import ProductNamesView

urlpatterns = [
    path("products/names", ProductNamesView.as_view(), name="theme-product-names"),
]
