from django.apps import AppConfig


class StoreWebhooksConfig(AppConfig):
    """Store webhooks: the HTTP routes only; the webhooks are
    webhooks.Webhook rows of scope `store`, delivered by the webhooks app."""

    name = "integrations.store_webhooks"
    label = "integrations_store_webhooks"
    verbose_name = "Store webhooks"
