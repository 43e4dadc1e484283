from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts.admin_login import admin_login
from common.health import HealthView
from common.metrics import metrics_view
from common.views import api_not_found
from licensing.sandbox_views import SandboxCheckoutView
from store.pages import OrderReceivedPage

api_v1 = [
    path("portal/", include("accounts.api.urls")),
    # Licensing: portal licences and clients, the public licence API.
    path("portal/", include("licensing.api.urls")),
    path("portal/", include("clients.api.urls")),
    path("", include("licensing.api.public_urls")),
    # Webhooks.
    path("portal/", include("webhooks.api.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("schema", SpectacularAPIView.as_view()),
    path("docs", SpectacularSwaggerView.as_view(url_name="schema")),
]

urlpatterns = [
    # The admin's log-in, behind the log-in limits (429 with Retry-After while locked).
    path("admin/login/", admin_login),
    path("admin/", admin.site.urls),
    path("healthz", HealthView.as_view(), name="healthz"),
    # Prometheus metrics, for a scraper with the token or from an allowed network.
    path("metrics", metrics_view, name="metrics"),
    # The pages e-mails link to: verify the address, set a new password, the order received.
    path("", include("accounts.urls")),
    path("order-received/<id:order_id>", OrderReceivedPage.as_view(), name="order-received-page"),
    # The sandbox payment provider's checkout page (licence renewals).
    path("pay/sandbox/<str:token>", SandboxCheckoutView.as_view(), name="sandbox-checkout"),
    path("api/v1/", include(api_v1)),
    path(f"{settings.REST_ROOT}/ec/v1/", include("store.urls")),
    path(f"{settings.REST_ROOT}/ec/v1/", include("erp.urls")),
    path(f"{settings.REST_ROOT}/{settings.THEME_NS}/v1/", include("theme.urls")),
    path(f"{settings.REST_ROOT}/{settings.CORE_NS}/v1/", include("debugtools.api.urls")),
    # Store webhooks: the store's view kernel over the webhooks app.
    path(f"{settings.REST_ROOT}/ec/v1/", include("integrations.store_webhooks.api.urls")),
    # Anything else under an API prefix is a JSON 404 in that namespace's style, never an
    # HTML page or a slash-appending redirect.
    re_path(r"^api/", api_not_found),
    re_path(rf"^{settings.REST_ROOT}/", api_not_found),
]

if settings.DEBUG:  # uploaded media, served by the web server in production
    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)

handler400 = "common.views.handler400"
handler403 = "common.views.handler403"
handler404 = "common.views.handler404"
handler500 = "common.views.handler500"
