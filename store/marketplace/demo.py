"""Demo marketplace sync for `manage.py seed_demo`: the `generic` marketplace on, with a public
demo webhook secret (a development secret, like the demo passwords), so the signed webhook
walk-through of docs/api/store.md works on `make run` (idempotent)."""

from __future__ import annotations

from store.marketplace import services

DEMO_SECRET = "emporion-demo-marketplace-secret"  # noqa: S105 - public, development only


def seed() -> list[str]:
    services.settings_update(
        changes={
            "generic": {
                "enabled": True,
                "webhook_secret": DEMO_SECRET,
                "order_status": "processing",
            }
        }
    )
    return [
        f"  generic: on, webhook secret {DEMO_SECRET!r} (signed as in docs/api/store.md)",
        "  POST /rest/ec/v1/marketplace/webhook/generic; staff: GET /rest/ec/v1/marketplace/orders",
    ]
