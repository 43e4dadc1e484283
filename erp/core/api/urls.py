from django.urls import path

from . import views

urlpatterns = [
    path("erp/status", views.ErpStatusView.as_view(), name="erp-status"),
    path("erp/activate", views.ErpActivateView.as_view(), name="erp-activate"),
    path("erp/deactivate", views.ErpDeactivateView.as_view(), name="erp-deactivate"),
]
