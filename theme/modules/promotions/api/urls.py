from django.urls import path

from .views import PromotionsCartView, PromotionsView

urlpatterns = [
    path("promotions", PromotionsView.as_view(), name="theme-promotions"),
    path("promotions/cart", PromotionsCartView.as_view(), name="theme-promotions-cart"),
]
