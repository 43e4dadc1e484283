from django.apps import AppConfig


class ErpInventoryConfig(AppConfig):
    name = "erp.inventory"
    label = "erp_inventory"
    verbose_name = "ERP: inventory"
