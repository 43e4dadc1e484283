from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils.module_loading import import_string

from accounts.demo import DEMO_PASSWORD

# Each app that has demo data offers a `demo.seed()` that is idempotent and returns the lines
# to print. Apps added later append theirs here.
SEEDERS = [
    ("Demo logins (e-mail, password, role)", "accounts.demo.seed"),
    ("Demo products", "licensing.demo.seed"),
    ("Demo licences, packs, subscription and clients", "licensing.demo.seed_licensing"),
    ("Store (ec/v1)", "store.demo.seed"),
    ("ERP (the store's Business licence, roles, portal, imported data)", "erp.core.demo.seed"),
    ("ERP purchasing", "erp.purchasing.demo.seed"),
    ("ERP invoicing", "erp.invoicing.demo.seed"),
    ("ERP CRM", "erp.crm.demo.seed"),
    ("ERP accounting", "erp.accounting.demo.seed"),
    ("ERP HR", "erp.hr.demo.seed"),
    ("Theme storefront (menus, theme settings)", "theme.storefront.demo.seed"),
    ("Theme page builder (a home-page layout, templates)", "theme.builder.demo.seed"),
]


class Command(BaseCommand):
    help = (
        "Load demo data (idempotent): demo accounts of each type, products, licences and the "
        "store. Accounts that exist keep their passwords and sessions."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--base-url", default="http://127.0.0.1:8000", help="Where the server will answer."
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="Run even with DEBUG off (creates logins with a public password).",
        )

    def handle(self, *args, base_url, force, **options):
        if not settings.DEBUG and not force:
            raise CommandError(
                "seed_demo creates accounts with a public password; it runs only with DEBUG on "
                "(or pass --force)."
            )
        with transaction.atomic():
            sections = [(title, import_string(path)()) for title, path in SEEDERS]
        for title, lines in sections:
            self.stdout.write(self.style.MIGRATE_HEADING(title + ":"))
            for line in lines:
                self.stdout.write(line)
        base = base_url.rstrip("/")
        self.stdout.write(self.style.MIGRATE_HEADING("URLs:"))
        self.stdout.write(f"  API docs (Swagger UI)  {base}/api/v1/docs/")
        self.stdout.write(f"  OpenAPI schema         {base}/api/v1/schema/")
        self.stdout.write(f"  Admin                  {base}/admin/")
        self.stdout.write(f"  Health                 {base}/healthz")
        self.stdout.write(
            f"  Log in:  curl -X POST {base}/api/v1/portal/auth/login "
            "-H 'Content-Type: application/json' "
            f'-d \'{{"email": "developer@example.com", "password": "{DEMO_PASSWORD}"}}\''
        )
