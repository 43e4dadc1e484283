from django.urls import path

from .views import (
    CartTotalsView,
    IconsView,
    MenuView,
    NewsletterConfirmView,
    NewsletterSubscribeView,
    SearchView,
    SettingsView,
    ValidateVatView,
    WishlistItemView,
    WishlistView,
)

urlpatterns = [
    path("settings", SettingsView.as_view(), name="theme-settings"),
    path("menus/<str:location>", MenuView.as_view(), name="theme-menu"),
    path("search", SearchView.as_view(), name="theme-search"),
    path("cart/totals", CartTotalsView.as_view(), name="theme-cart-totals"),
    path("wishlist", WishlistView.as_view(), name="theme-wishlist"),
    path("wishlist/<id:product_id>", WishlistItemView.as_view(), name="theme-wishlist-item"),
    path("validate-vat", ValidateVatView.as_view(), name="theme-validate-vat"),
    path("newsletter/subscribe", NewsletterSubscribeView.as_view(), name="theme-newsletter"),
    path(
        "newsletter/confirm/<str:token>",
        NewsletterConfirmView.as_view(),
        name="theme-newsletter-confirm",
    ),
    path("icons", IconsView.as_view(), name="theme-icons"),
]
