"""The ERP's routes, mounted under /{REST_ROOT}/ec/v1/ beside the store's (config/urls.py):
every erp app's api/urls.py. Apps added later append theirs here."""

from django.urls import include, path

urlpatterns = [
    path("", include("erp.core.api.urls")),
    path("", include("erp.inventory.api.urls")),
    path("", include("erp.invoicing.api.urls")),
    path("", include("erp.purchasing.api.urls")),
    path("", include("erp.accounting.api.urls")),
    path("", include("erp.crm.api.urls")),
    path("", include("erp.hr.api.urls")),
]
