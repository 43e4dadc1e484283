from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts import services
from accounts.models import AccountType, User
from common.errors import ServiceError


class Command(BaseCommand):
    help = "Create a verified account (developer, reseller or agency)."

    def add_arguments(self, parser):
        parser.add_argument("email")
        parser.add_argument("--password", required=True)
        parser.add_argument("--name", required=True)
        parser.add_argument(
            "--type",
            dest="account_type",
            default=AccountType.DEVELOPER,
            help="developer, reseller or agency (default developer)",
        )
        parser.add_argument("--staff", action="store_true", help="May log in to the admin.")

    def handle(self, *args, email, password, name, account_type, staff, **options):
        try:
            password_validation.validate_password(password, user=User(email=email, name=name))
        except ValidationError as exc:
            self.stderr.write(
                self.style.WARNING("Warning: weak password: " + " ".join(exc.messages))
            )
        try:
            user = services.account_create(
                email=email,
                password=password,
                name=name,
                type=account_type,
                email_verified=True,
                check_password_strength=False,
            )
        except ServiceError as exc:
            raise CommandError(exc.detail) from None
        if staff:
            user.is_staff = True
            user.save(update_fields=["is_staff"])
        self.stdout.write(
            self.style.SUCCESS(f"Created {user.type} account {user.email} (id {user.pk}).")
        )
