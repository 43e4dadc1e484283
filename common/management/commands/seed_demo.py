import contextlib
import logging

from django.conf import settings
from django.core import mail
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.test.utils import override_settings
from django.urls import NoReverseMatch, reverse
from django.utils.module_loading import import_string

from accounts.demo import DEMO_PASSWORD
from common.links import absolute_url, base_url_problem, site_url

# Each app that has demo data offers a `demo.seed()` that is idempotent and returns the lines
# to print. Apps added later append theirs here. The logins are seeded first (the other apps'
# data belong to these accounts) and printed last, where `make run` leaves them on the screen.
LOGINS = ("Demo logins (e-mail, password, role)", "accounts.demo.seed")
SEEDERS = [
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
# The e-mails the demo's data send (order status e-mails, ...) are kept in memory, not printed:
# on the console backend their bodies would scroll the logins away. So is each eager task's
# "succeeded" line; a failing task still logs its error.
QUIET_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
QUIET_LOGGERS = ("celery.app.trace",)


@contextlib.contextmanager
def _quiet():
    """E-mails to memory and the task log at WARNING while the demo is seeded; answers the
    list the e-mails sent meanwhile are appended to."""
    if not hasattr(mail, "outbox"):
        mail.outbox = []
    loggers = [logging.getLogger(name) for name in QUIET_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(max(logger.getEffectiveLevel(), logging.WARNING))
    try:
        with override_settings(EMAIL_BACKEND=QUIET_BACKEND):
            yield mail.outbox
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


class Command(BaseCommand):
    help = (
        "Load demo data (idempotent): demo accounts of each type, products, licences and the "
        "store. Accounts that exist keep their passwords and sessions. The logins are printed "
        "last; the e-mails the data send are counted, not printed."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--base-url",
            default=None,
            help="Where the server will answer: the links of the demo's e-mails and feeds and "
            "the URLs printed (default: FRONTEND_URL).",
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
        base = (base_url or settings.FRONTEND_URL).strip().rstrip("/")
        problem = base_url_problem(base)
        if problem:
            raise CommandError(f"--base-url {base!r}: {problem}.")
        with override_settings(FRONTEND_URL=base):
            self.seed_and_print()

    def seed_and_print(self):
        with _quiet() as outbox:
            before = len(outbox)
            with transaction.atomic():
                logins = import_string(LOGINS[1])()
                sections = [(title, import_string(path)()) for title, path in SEEDERS]
            emails = len(outbox) - before
        for title, lines in sections:
            self.heading(title)
            for line in lines:
                self.stdout.write(line)
        base = site_url()
        self.heading("URLs")
        self.stdout.write(f"  API docs (Swagger UI)  {base}/api/v1/docs/")
        self.stdout.write(f"  OpenAPI schema         {base}/api/v1/schema/")
        self.stdout.write(f"  Admin                  {base}/admin/")
        self.stdout.write(f"  Health                 {base}/healthz")
        if emails:
            self.stdout.write(self.emails_line(emails))
        self.heading(LOGINS[0])
        for line in logins:
            self.stdout.write(line)
        self.stdout.write(
            f"  Log in:  curl -X POST {base}/api/v1/portal/auth/login "
            "-H 'Content-Type: application/json' "
            f'-d \'{{"email": "developer@example.com", "password": "{DEMO_PASSWORD}"}}\''
        )

    def heading(self, title: str) -> None:
        self.stdout.write(self.style.MIGRATE_HEADING(title + ":"))

    def emails_line(self, count: int) -> str:
        line = f"E-mails: {count} sent by the demo's data, not printed"
        try:
            log = absolute_url(reverse("admin:store_emails_sentemail_changelist"))
        except NoReverseMatch:
            return line + "."
        return f"{line} (the store's e-mail log: {log})."
