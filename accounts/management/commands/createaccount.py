from django.core.management.base import BaseCommand, CommandError

from accounts import services
from accounts.models import AccountType
from common.errors import ServiceError


class Command(BaseCommand):
    help = (
        "Create a verified account (developer, reseller or agency). The password must pass the "
        "password validators, as at registration."
    )

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
            user = services.account_create(
                email=email,
                password=password,
                name=name,
                type=account_type,
                email_verified=True,
                is_staff=staff,
            )
        except ServiceError as exc:
            if exc.errors:
                raise CommandError(
                    "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in exc.errors.items())
                    + " Nothing was created."
                ) from None
            raise CommandError(exc.detail) from None
        self.stdout.write(
            self.style.SUCCESS(f"Created {user.type} account {user.email} (id {user.pk}).")
        )
