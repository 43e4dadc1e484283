from django.apps import AppConfig


class LicensingConfig(AppConfig):
    name = "licensing"
    verbose_name = "Licensing"

    def ready(self) -> None:
        from licensing import signing

        # A malformed LICENSE_SIGNING_KEY stops the process at start, naming the variable.
        signing.private_key()
