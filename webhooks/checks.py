from django.conf import settings
from django.core.checks import Warning, register


@register("webhooks", deploy=True)
def private_urls_allowed_in_production(app_configs, **kwargs):
    if getattr(settings, "WEBHOOKS_ALLOW_PRIVATE_URLS", False):
        return [
            Warning(
                "WEBHOOKS_ALLOW_PRIVATE_URLS is on: webhook deliveries may go to http:// URLs "
                "and loopback addresses of this machine.",
                hint="It is for development and tests only; unset it in production.",
                id="webhooks.W001",
            )
        ]
    return []
