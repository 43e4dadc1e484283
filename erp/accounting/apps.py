from django.apps import AppConfig


class ErpAccountingConfig(AppConfig):
    """Double-entry accounting: the chart of accounts, fiscal years, journal entries (draft, posted,
    reversed), reports computed in SQL aggregates, and the entries that business events post."""

    name = "erp.accounting"
    label = "erp_accounting"
    verbose_name = "ERP: accounting"

    def ready(self) -> None:
        from erp.accounting import listeners

        listeners.connect()
