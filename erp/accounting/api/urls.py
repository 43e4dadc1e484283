from django.urls import path

from . import views

urlpatterns = [
    path("accounts", views.AccountListView.as_view(), name="erp-accounts"),
    path("accounts/tree", views.AccountTreeView.as_view(), name="erp-accounts-tree"),
    path("accounts/<id:account_id>", views.AccountDetailView.as_view(), name="erp-account"),
    path("fiscal-years", views.FiscalYearListView.as_view(), name="erp-fiscal-years"),
    path("fiscal-years/<id:year_id>", views.FiscalYearDetailView.as_view(), name="erp-fiscal-year"),
    path(
        "fiscal-years/<id:year_id>/close",
        views.FiscalYearCloseView.as_view(),
        name="erp-fiscal-year-close",
    ),
    path("journal-entries", views.JournalEntryListView.as_view(), name="erp-journal-entries"),
    path(
        "journal-entries/<id:entry_id>",
        views.JournalEntryDetailView.as_view(),
        name="erp-journal-entry",
    ),
    path(
        "journal-entries/<id:entry_id>/post",
        views.JournalEntryPostView.as_view(),
        name="erp-journal-entry-post",
    ),
    path(
        "journal-entries/<id:entry_id>/reverse",
        views.JournalEntryReverseView.as_view(),
        name="erp-journal-entry-reverse",
    ),
    path("reports/trial-balance", views.TrialBalanceView.as_view(), name="erp-trial-balance"),
    path("reports/profit-loss", views.ProfitLossView.as_view(), name="erp-profit-loss"),
    path("reports/balance-sheet", views.BalanceSheetView.as_view(), name="erp-balance-sheet"),
    path("reports/vat-return", views.VatReturnView.as_view(), name="erp-vat-return"),
    path(
        "reports/accounts-receivable",
        views.AccountsReceivableView.as_view(),
        name="erp-accounts-receivable",
    ),
    path(
        "reports/accounts-payable",
        views.AccountsPayableView.as_view(),
        name="erp-accounts-payable",
    ),
]
