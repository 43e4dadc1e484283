from django.urls import path

from . import views

urlpatterns = [
    path("warehouses", views.WarehouseListView.as_view(), name="erp-warehouses"),
    path("warehouses/<id:warehouse_id>", views.WarehouseDetailView.as_view(), name="erp-warehouse"),
    path(
        "warehouses/<id:warehouse_id>/set-default",
        views.WarehouseSetDefaultView.as_view(),
        name="erp-warehouse-set-default",
    ),
    path(
        "warehouses/<id:warehouse_id>/activate",
        views.WarehouseActivateView.as_view(),
        name="erp-warehouse-activate",
    ),
    path(
        "warehouses/<id:warehouse_id>/deactivate",
        views.WarehouseDeactivateView.as_view(),
        name="erp-warehouse-deactivate",
    ),
    path("stock/levels", views.StockLevelListView.as_view(), name="erp-stock-levels"),
    path(
        "stock/levels/<id:level_id>", views.StockLevelDetailView.as_view(), name="erp-stock-level"
    ),
    path("stock/adjust", views.StockAdjustView.as_view(), name="erp-stock-adjust"),
    path("stock/transfer", views.StockTransferView.as_view(), name="erp-stock-transfer"),
    path("stock/stocktake", views.StockStocktakeView.as_view(), name="erp-stock-stocktake"),
    path("stock/movements", views.StockMovementListView.as_view(), name="erp-stock-movements"),
    path("stock/stats", views.StockStatsView.as_view(), name="erp-stock-stats"),
]
