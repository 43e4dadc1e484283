from django.urls import path

from . import views

urlpatterns = [
    path("invoices", views.InvoiceListView.as_view(), name="erp-invoices"),
    path("invoices/settings", views.InvoiceSettingsView.as_view(), name="erp-invoice-settings"),
    path(
        "invoices/reference-data",
        views.ReferenceDataView.as_view(),
        name="erp-invoice-reference-data",
    ),
    path(
        "invoices/transmission/test",
        views.TransmissionTestView.as_view(),
        name="erp-invoice-transmission-test",
    ),
    path(
        "invoices/from-order/<id:order_id>",
        views.InvoiceFromOrderView.as_view(),
        name="erp-invoice-from-order",
    ),
    path("invoices/<id:invoice_id>", views.InvoiceDetailView.as_view(), name="erp-invoice"),
    path(
        "invoices/<id:invoice_id>/issue",
        views.InvoiceIssueView.as_view(),
        name="erp-invoice-issue",
    ),
    path(
        "invoices/<id:invoice_id>/cancel",
        views.InvoiceCancelView.as_view(),
        name="erp-invoice-cancel",
    ),
    path(
        "invoices/<id:invoice_id>/transmit",
        views.InvoiceTransmitView.as_view(),
        name="erp-invoice-transmit",
    ),
    path(
        "invoices/<id:invoice_id>/cancel-transmission",
        views.InvoiceCancelTransmissionView.as_view(),
        name="erp-invoice-cancel-transmission",
    ),
    path("invoices/<id:invoice_id>/pdf", views.InvoicePdfView.as_view(), name="erp-invoice-pdf"),
    path("invoice-series", views.SeriesListView.as_view(), name="erp-invoice-series"),
    path(
        "invoice-series/<id:series_id>",
        views.SeriesDetailView.as_view(),
        name="erp-invoice-series-detail",
    ),
]
