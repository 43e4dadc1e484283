from django.urls import path

from .views import (
    BundlesView,
    GroupsView,
    GroupView,
    MyGroupView,
    PointsBalanceView,
    PointsTransactionsView,
    ProductLabelsView,
    ProductNamesView,
    PromotionsCartView,
    PromotionsView,
    QuotesView,
    RecentlyViewedView,
    RecoverCartView,
)

urlpatterns = [
    path("recently-viewed", RecentlyViewedView.as_view(), name="theme-recently-viewed"),
    path("bundles", BundlesView.as_view(), name="theme-bundles"),
    path("points/balance", PointsBalanceView.as_view(), name="theme-points-balance"),
    path("points/transactions", PointsTransactionsView.as_view(), name="theme-points-transactions"),
    path("promotions", PromotionsView.as_view(), name="theme-promotions"),
    path("promotions/cart", PromotionsCartView.as_view(), name="theme-promotions-cart"),
    path("quotes", QuotesView.as_view(), name="theme-quotes"),
    path("products/names", ProductNamesView.as_view(), name="theme-product-names"),
    path(
        "labels/product/<id:product_id>", ProductLabelsView.as_view(), name="theme-product-labels"
    ),
    path("b2b/groups", GroupsView.as_view(), name="theme-b2b-groups"),
    path("b2b/groups/<id:group_id>", GroupView.as_view(), name="theme-b2b-group"),
    path("b2b/my-group", MyGroupView.as_view(), name="theme-b2b-my-group"),
    path("recover-cart/<str:token>", RecoverCartView.as_view(), name="theme-recover-cart"),
]
