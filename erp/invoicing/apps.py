from django.apps import AppConfig


class ErpInvoicingConfig(AppConfig):
    """Invoices and credit notes, their gapless series, PDFs and their transmission to the tax
    authority (a sandbox by default; Greece's myDATA)."""

    name = "erp.invoicing"
    label = "erp_invoicing"
    verbose_name = "ERP: invoicing"

    def ready(self) -> None:
        from erp.invoicing import listeners

        listeners.connect()
