"""The ec/v1 namespace: every store app's api/urls.py, mounted at /{REST_ROOT}/ec/v1/.

Apps added later append their `api.urls` here. Unknown paths fall through to the project's
JSON 404 catch-all, answered in the store's error style.
"""

from django.urls import include, path

urlpatterns = [
    path("", include("store.access.api.urls")),
    path("", include("store.settings.api.urls")),
    path("", include("store.media.api.urls")),
    path("", include("store.catalog.api.urls")),
    path("", include("store.reviews.api.urls")),
    path("", include("store.docs.api.urls")),
    path("", include("store.orders.api.urls")),
    path("", include("store.cart.api.urls")),
    path("", include("store.coupons.api.urls")),
    path("", include("store.checkout.api.urls")),
    path("", include("store.customers.api.urls")),
    path("", include("store.emails.api.urls")),
    path("", include("store.reports.api.urls")),
    path("", include("store.courier.api.urls")),
    path("", include("store.shipping.api.urls")),
    path("", include("store.payments.api.urls")),
    path("", include("store.tax.api.urls")),
    path("", include("store.marketplace.api.urls")),
    path("", include("store.feeds.api.urls")),
]
