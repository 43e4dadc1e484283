"""Demo accounts for `manage.py seed_demo` (development only)."""

from __future__ import annotations

from django.contrib.auth.hashers import check_password

from accounts.models import AccountType, User

DEMO_PASSWORD = "emporion-demo-2026"  # noqa: S105 - public demo login, DEBUG only

DEMO_ACCOUNTS = [
    ("admin@example.com", "Ada Admin", AccountType.DEVELOPER, True),
    ("developer@example.com", "Dev Eloper", AccountType.DEVELOPER, False),
    ("reseller@example.com", "Rhea Seller", AccountType.RESELLER, False),
    ("agency@example.com", "Agnes Agency", AccountType.AGENCY, False),
]


def seed() -> list[str]:
    """Create the demo accounts that are missing; answers the lines to print.

    An account that exists keeps its password (a changed one too) and so its sessions: the
    password is set only when the account is created. Its role and flags are put back.
    """
    lines = []
    for email, name, account_type, is_admin in DEMO_ACCOUNTS:
        user = User.objects.filter(email=email).first()
        if user is None:
            user = User(email=email, name=name)
            user.set_password(DEMO_PASSWORD)
        user.type = account_type
        user.email_verified = True
        user.is_active = True
        user.is_staff = user.is_superuser = is_admin
        user.save()
        # Compared without the "upgrade the hash" side effect of User.check_password.
        password = DEMO_PASSWORD if check_password(DEMO_PASSWORD, user.password) else "(changed)"
        role = "admin (staff, superuser)" if is_admin else account_type
        lines.append(f"  {email:<24} {password:<20} {role}")
    return lines
