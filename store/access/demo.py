"""Demo shop manager for `manage.py seed_demo` (development only)."""

from __future__ import annotations

from accounts.demo import DEMO_PASSWORD
from accounts.models import AccountType, User
from store.access import services
from store.common.capabilities import SHOP_MANAGER_ROLE

MANAGER_EMAIL = "manager@example.com"


def seed() -> list[str]:
    services.roles_ensure_defaults()
    user = User.objects.filter(email=MANAGER_EMAIL).first() or User(email=MANAGER_EMAIL)
    user.name = "Mona Manager"
    user.type = AccountType.DEVELOPER
    user.email_verified = True
    user.is_active = True
    user.is_staff = True
    user.set_password(DEMO_PASSWORD)
    user.save()
    services.role_assign(user=user, role_name=SHOP_MANAGER_ROLE)
    return [
        f"  {MANAGER_EMAIL:<24} {DEMO_PASSWORD}   role '{SHOP_MANAGER_ROLE}'",
        "  admin@example.com is a superuser and holds every capability, manage_options included",
    ]
