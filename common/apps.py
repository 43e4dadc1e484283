from django.apps import AppConfig


class CommonConfig(AppConfig):
    name = "common"
    verbose_name = "Infrastructure"

    def ready(self) -> None:
        from django.urls import register_converter

        # The deploy checks; the audit trail's Celery signals (tasks act as "system"); the
        # OpenAPI authentication extensions.
        from common import audit, checks  # noqa: F401
        from common.api import schema  # noqa: F401
        from common.api.fields import IdPathConverter

        # `<id:name>`: every id in an API path (a huge id matches no route: a JSON 404).
        register_converter(IdPathConverter, "id")

        # Request ids and metrics travel with Celery tasks; a task sent from the outbox marks
        # its row acknowledged when it ends.
        from common import metrics, observability, outbox

        observability.connect_celery_signals()
        metrics.connect_celery_signals()
        outbox.connect_worker_signals()
