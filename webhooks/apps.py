from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from common.events import event_published
        from webhooks import checks, receivers  # noqa: F401 - registers the system check

        event_published.connect(receivers.on_event_published, dispatch_uid="webhooks.emit")
