from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security, deploy=True)
def sandbox_payments_in_production(app_configs, **kwargs):
    if settings.DEBUG or not settings.PAYMENT_SANDBOX_ALLOWED:
        return []
    return [
        Warning(
            "PAYMENT_SANDBOX_ALLOWED is on: sandbox payments move no money, so anyone can "
            "'pay' for renewals with the Pay button.",
            hint="Use it on staging sites only; production sets PAYMENT_PROVIDER=stripe.",
            id="licensing.W001",
        )
    ]
