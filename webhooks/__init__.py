"""Outbound webhooks: events, signing, Celery delivery and delivery logs.

Other apps publish domain events (`common.events.publish`); this app listens and delivers them.
`webhooks.emit(account, event, data)` may also be called directly.
"""


def emit(account, event: str, data: dict):
    """Shortcut for webhooks.services.emit (importable before the app registry is ready)."""
    from webhooks.services import emit as _emit

    return _emit(account, event, data)
