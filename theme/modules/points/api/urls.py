from django.urls import path

from .views import PointsBalanceView, PointsTransactionsView

urlpatterns = [
    path("points/balance", PointsBalanceView.as_view(), name="theme-points-balance"),
    path("points/transactions", PointsTransactionsView.as_view(), name="theme-points-transactions"),
]
