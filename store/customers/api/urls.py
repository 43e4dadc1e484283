from django.urls import path, re_path

from . import views

urlpatterns = [
    # Customers (staff)
    path("customers", views.CustomerListView.as_view(), name="store-customers"),
    path("customers/stats", views.CustomersStatsView.as_view(), name="store-customers-stats"),
    path(
        "customers/find-by-email",
        views.CustomerFindByEmailView.as_view(),
        name="store-customers-find-by-email",
    ),
    path(
        "customers-with-stats",
        views.CustomersWithStatsView.as_view(),
        name="store-customers-with-stats",
    ),
    path("customers/<id:customer_id>", views.CustomerDetailView.as_view(), name="store-customer"),
    path(
        "customers/<id:customer_id>/orders",
        views.CustomerOrdersView.as_view(),
        name="store-customer-orders",
    ),
    path(
        "customers/<id:customer_id>/stats",
        views.CustomerStatsView.as_view(),
        name="store-customer-stats",
    ),
    path(
        "customers/<id:customer_id>/profile",
        views.CustomerProfileView.as_view(),
        name="store-customer-profile",
    ),
    path(
        "customers/<id:customer_id>/top-products",
        views.CustomerTopProductsView.as_view(),
        name="store-customer-top-products",
    ),
    path(
        "customers/<id:customer_id>/spending-history",
        views.CustomerSpendingHistoryView.as_view(),
        name="store-customer-spending-history",
    ),
    path(
        "customers/<id:customer_id>/addresses",
        views.CustomerAddressesView.as_view(),
        name="store-customer-addresses",
    ),
    path("addresses/<id:address_id>", views.AddressDetailView.as_view(), name="store-address"),
    # My account (/account/orders is the orders app's)
    path("account", views.AccountView.as_view(), name="store-account"),
    path(
        "account/addresses",
        views.AccountAddressesView.as_view(),
        name="store-account-addresses",
    ),
    re_path(
        r"^account/addresses/(?P<address_type>billing|shipping)$",
        views.AccountAddressView.as_view(),
        name="store-account-address",
    ),
    path("account/details", views.AccountDetailsView.as_view(), name="store-account-details"),
    path("account/password", views.AccountPasswordView.as_view(), name="store-account-password"),
]
