"""The store's roles for `manage.py seed_demo` (they also exist after every migrate)."""

from __future__ import annotations

from store.access import services


def seed() -> list[str]:
    roles = services.roles_ensure_defaults()
    return [
        "  roles: "
        + ", ".join(f"'{role.name}'" for role in roles)
        + " (give one in the admin: Store: capabilities and roles > Managers, or POST /managers)",
        "  admin@example.com is a superuser and holds every capability, manage_options included",
    ]
