from django.urls import path

from webhooks.api import views

urlpatterns = [
    path("webhooks", views.WebhookListView.as_view(), name="portal-webhooks"),
    path("webhooks/<id:webhook_id>", views.WebhookDetailView.as_view(), name="portal-webhook"),
    path(
        "webhooks/<id:webhook_id>/test",
        views.WebhookTestView.as_view(),
        name="portal-webhook-test",
    ),
    path(
        "webhooks/<id:webhook_id>/rotate-secret",
        views.WebhookRotateSecretView.as_view(),
        name="portal-webhook-rotate-secret",
    ),
    path(
        "webhooks/<id:webhook_id>/deliveries",
        views.WebhookDeliveriesView.as_view(),
        name="portal-webhook-deliveries",
    ),
    path(
        "webhooks/<id:webhook_id>/deliveries/<id:log_id>/redeliver",
        views.WebhookRedeliverView.as_view(),
        name="portal-webhook-redeliver",
    ),
]
