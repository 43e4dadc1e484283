from django.urls import path

from .views import ProductLabelsView

urlpatterns = [
    path(
        "labels/product/<id:product_id>", ProductLabelsView.as_view(), name="theme-product-labels"
    ),
]
