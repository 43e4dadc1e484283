from django.apps import AppConfig


class CommonConfig(AppConfig):
    name = "common"
    verbose_name = "Infrastructure"

    def ready(self) -> None:
        # Registers the OpenAPI authentication extensions and the deploy checks.
        from common import checks  # noqa: F401
        from common.api import schema  # noqa: F401
