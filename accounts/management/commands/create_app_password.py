from django.core.management.base import BaseCommand, CommandError

from accounts import services
from accounts.models import User, normalize_email
from common.errors import ServiceError


class Command(BaseCommand):
    help = "Create an application password (HTTP Basic on the store API) and print it once."

    def add_arguments(self, parser):
        parser.add_argument("email")
        parser.add_argument("name", help="What the password is for, e.g. 'ERP sync'.")

    def handle(self, *args, email, name, **options):
        user = User.objects.filter(email=normalize_email(email)).first()
        if user is None:
            raise CommandError(f"No account with the e-mail address {email}.")
        try:
            _app_password, secret = services.app_password_create(user=user, name=name)
        except ServiceError as exc:
            raise CommandError(exc.detail) from None
        self.stderr.write(f"Application password {name!r} for {user.email} (shown once):")
        self.stdout.write(secret)
