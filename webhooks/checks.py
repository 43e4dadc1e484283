from django.conf import settings
from django.core.checks import Warning, register


@register("webhooks", deploy=True)
def private_urls_allowed_in_production(app_configs, **kwargs):
    names = ("OUTBOUND_ALLOW_PRIVATE_URLS", "WEBHOOKS_ALLOW_PRIVATE_URLS")
    on = [name for name in names if getattr(settings, name, False)]
    if on:
        return [
            Warning(
                f"{' and '.join(on)} on: outbound calls (webhook deliveries, the marketplace, "
                "the providers) may go to http:// URLs and loopback addresses of this machine.",
                hint="It is for development and tests only; unset it in production.",
                id="webhooks.W001",
            )
        ]
    return []
