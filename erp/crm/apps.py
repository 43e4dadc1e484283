from django.apps import AppConfig


class ErpCrmConfig(AppConfig):
    """CRM: contacts, leads through a pipeline, activities, segments and RFM scores."""

    name = "erp.crm"
    label = "erp_crm"
    verbose_name = "ERP: CRM"

    def ready(self) -> None:
        from erp.crm import listeners

        listeners.connect()
