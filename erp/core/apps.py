from django.apps import AppConfig


class ErpCoreConfig(AppConfig):
    """The ERP's kernel: whether the ERP is on, the Business-tier licence gate every ERP route
    sits behind, and the base view of the ERP's apps."""

    name = "erp.core"
    label = "erp_core"
    verbose_name = "ERP: configuration"

    def ready(self) -> None:
        from erp.core import gate

        gate.connect()
