"""Mounted under /{REST_ROOT}/ec/v1/ beside the store's routes (config/urls.py)."""

from django.urls import path

from . import views

urlpatterns = [
    path("webhooks", views.WebhookListView.as_view(), name="store-webhooks"),
    path("webhooks/<id:webhook_id>", views.WebhookDetailView.as_view(), name="store-webhook"),
    path(
        "webhooks/<id:webhook_id>/test", views.WebhookTestView.as_view(), name="store-webhook-test"
    ),
    path(
        "webhooks/<id:webhook_id>/rotate-secret",
        views.WebhookRotateSecretView.as_view(),
        name="store-webhook-rotate-secret",
    ),
    path(
        "webhooks/<id:webhook_id>/deliveries",
        views.WebhookDeliveriesView.as_view(),
        name="store-webhook-deliveries",
    ),
    path(
        "webhooks/<id:webhook_id>/deliveries/<id:delivery_id>/redeliver",
        views.WebhookRedeliverView.as_view(),
        name="store-webhook-redeliver",
    ),
]
