from django.apps import AppConfig


class CommonConfig(AppConfig):
    name = "common"
    verbose_name = "Infrastructure"

    def ready(self) -> None:
        # The audit trail's Celery signals (tasks act as "system"); the OpenAPI
        # authentication extensions.
        from common import audit  # noqa: F401
        from common.api import schema  # noqa: F401
