"""Demo accounts for `manage.py seed_demo` (development only)."""

from __future__ import annotations

from accounts.models import AccountType, User

DEMO_PASSWORD = "emporion-demo-2026"  # noqa: S105 - public demo login, DEBUG only

DEMO_ACCOUNTS = [
    ("admin@example.com", "Ada Admin", AccountType.DEVELOPER, True),
    ("developer@example.com", "Dev Eloper", AccountType.DEVELOPER, False),
    ("reseller@example.com", "Rhea Seller", AccountType.RESELLER, False),
    ("agency@example.com", "Agnes Agency", AccountType.AGENCY, False),
]


def seed() -> list[str]:
    """Create or reset the demo accounts; answers the lines to print."""
    lines = []
    for email, name, account_type, is_admin in DEMO_ACCOUNTS:
        user = User.objects.filter(email=email).first() or User(email=email)
        user.name = name
        user.type = account_type
        user.email_verified = True
        user.is_active = True
        user.is_staff = user.is_superuser = is_admin
        user.set_password(DEMO_PASSWORD)
        user.save()
        role = "admin (staff, superuser)" if is_admin else account_type
        lines.append(f"  {email:<24} {DEMO_PASSWORD}   {role}")
    return lines
