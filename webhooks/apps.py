from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from common.events import events_published
        from webhooks import checks, receivers  # noqa: F401 - registers the system check

        events_published.connect(receivers.on_events_published, dispatch_uid="webhooks.emit")
