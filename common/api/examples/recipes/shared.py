"""What the recipes of every description use."""

from __future__ import annotations

from django.utils.module_loading import import_string

#: The portal's paths (the recipes of the store read the reseller's licences there too).
PORTAL = "/api/v1/portal"


def demo_password() -> str:
    """The demo logins' password (accounts.demo, loaded by name: `common` imports no app)."""
    return import_string("accounts.demo.DEMO_PASSWORD")
