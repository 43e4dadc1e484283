from django.apps import AppConfig
from django.db.models.signals import post_migrate


class StoreEmailsConfig(AppConfig):
    name = "store.emails"
    label = "store_emails"
    verbose_name = "Store: e-mails"

    def ready(self) -> None:
        from common import email
        from store.emails import listeners, sections, services  # noqa: F401 - the section

        listeners.connect()
        for template in services.ACCOUNT_TEMPLATES:
            email.register_handler(template, services.account_email)
        post_migrate.connect(
            services.templates_ensure, sender=self, dispatch_uid="store_emails_templates"
        )
