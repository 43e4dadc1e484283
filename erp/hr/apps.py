from django.apps import AppConfig


class ErpHrConfig(AppConfig):
    """HR: employees, departments, leave, time entries, employee documents, and the labor-registry
    submissions built from HR events."""

    name = "erp.hr"
    label = "erp_hr"
    verbose_name = "ERP: HR"
