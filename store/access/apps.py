from django.apps import AppConfig
from django.db.models.signals import post_migrate


class StoreAccessConfig(AppConfig):
    name = "store.access"
    label = "store_access"
    verbose_name = "Store: capabilities and roles"

    def ready(self) -> None:
        from store.access import services

        # Permissions are created after migrations (and after a test flush); the seeded
        # roles follow them.
        post_migrate.connect(
            services.roles_ensure_on_migrate, dispatch_uid="store.access.roles_ensure_on_migrate"
        )
