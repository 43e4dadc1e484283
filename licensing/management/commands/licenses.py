"""Bulk licence jobs for ops: `manage.py licenses <create|revoke|export|import|expire>`.

Every job goes through licensing.services (the same rules as the API), runs in one transaction
(bad input changes nothing and exits 1 with a message), shows a progress bar of the licences
it handles on a terminal (`--no-progress` to hide it) and ends with a one-line summary. Options
go before or after the job's name; a reader that stops early (`licenses export | head`) ends
the command quietly.
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import os
import sys
from datetime import UTC, datetime, time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from tqdm import tqdm

from accounts.models import User, normalize_email
from clients.models import Client
from common.errors import ServiceError
from licensing import services
from licensing.dates import add_years
from licensing.models import (
    License,
    LicenseSource,
    LicenseStatus,
    Pack,
    PackStatus,
    Product,
    Subscription,
    SubscriptionStatus,
    Tier,
)

CHUNK = 100
EXPORT_FIELDS = [
    "id",
    "license_key",
    "product",
    "tier",
    "status",
    "source",
    "expires_at",
    "customer_id",
    "customer_email",
    "domains",
    "invoiced_at",
    "created_at",
]


class _DryRun(Exception):
    """Raised inside the transaction to roll a dry run back."""


def _chunks(items: list, size: int = CHUNK):
    for start in range(0, len(items), size):
        yield items[start : start + size]


def parse_moment(raw: str, what: str) -> datetime:
    """An ISO date (midnight UTC) or datetime (UTC when it names no offset)."""
    value = (raw or "").strip()
    moment = parse_datetime(value)
    if moment is None:
        day = parse_date(value) if value else None
        if day is None:
            raise CommandError(f"{what}: {raw!r} is not an ISO date or datetime (2027-01-31).")
        moment = datetime.combine(day, time.min)
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, UTC)
    return moment


class Command(BaseCommand):
    help = "Bulk licence jobs: create, revoke, export, import, expire."

    def create_parser(self, prog_name, subcommand, **kwargs):
        """Every option of the command (Django's too) is also accepted after the job's name:
        `licenses --no-progress export ...` and `licenses export ... --no-progress` agree."""
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        shared = [
            action
            for action in parser._actions
            if action.option_strings and not isinstance(action, argparse._HelpAction)
        ]
        jobs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        for job in jobs.choices.values():
            for action in shared:
                again = copy.copy(action)
                again.default = argparse.SUPPRESS  # set only when given after the job
                job._add_action(again)
        return parser

    def add_arguments(self, parser):
        parser.add_argument("--no-progress", action="store_true", help="Never show a progress bar.")
        sub = parser.add_subparsers(dest="job", required=True, metavar="JOB")

        create = sub.add_parser("create", help="Create N licences for an account.")
        create.add_argument("--account", required=True, help="Owner's e-mail.")
        create.add_argument("--product", required=True, help="Product slug.")
        create.add_argument("--count", type=int, default=1)
        create.add_argument("--tier", default=Tier.STARTER, choices=Tier.values)
        create.add_argument(
            "--source", default=LicenseSource.INDIVIDUAL, choices=LicenseSource.values
        )
        create.add_argument("--expires-at", help="ISO date or datetime; default one year.")
        create.add_argument("--customer", help="Client id or e-mail (resellers and agencies).")

        revoke = sub.add_parser("revoke", help="Revoke licences (they are deactivated).")
        which = revoke.add_mutually_exclusive_group()
        which.add_argument("--ids", help="Comma-separated licence ids.")
        which.add_argument("--file", help="A file of licence ids or keys, one per line.")
        revoke.add_argument("--account", help="Every licence of this account (e-mail).")
        revoke.add_argument(
            "--expired-before", help="Licences whose expiry is before this ISO date."
        )
        revoke.add_argument("--dry-run", action="store_true")

        export = sub.add_parser("export", help="Export an account's licences.")
        export.add_argument("--account", required=True)
        export.add_argument("--format", choices=["csv", "json"], default="csv")
        export.add_argument("--output", help="File to write; default standard output.")

        imp = sub.add_parser("import", help="Import licences from CSV (idempotent by key).")
        imp.add_argument(
            "path",
            help="CSV with license_key, product, tier, status, source, "
            "expires_at, customer_email columns (the export's columns work).",
        )
        imp.add_argument("--account", required=True)
        imp.add_argument("--dry-run", action="store_true")

        expire = sub.add_parser("expire", help="Expire what is past its end (as the beat task).")
        expire.add_argument("--dry-run", action="store_true")

    # --- helpers ------------------------------------------------------------------------------

    def run_from_argv(self, argv):
        try:
            super().run_from_argv(argv)
            sys.stdout.flush()
        except BrokenPipeError:
            # The reader stopped early (`licenses export | head`): what it read is what it
            # wanted. Point the standard output at /dev/null so that the flush at exit cannot
            # fail again, and end without a traceback.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(0)

    def handle(self, *args, job, no_progress, **options):
        self.show_progress = not no_progress and sys.stderr.isatty()
        try:
            getattr(self, f"job_{job}")(**options)
        except ServiceError as exc:
            detail = exc.detail
            if exc.errors:
                detail = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.errors.items())
            raise CommandError(f"{detail} Nothing was changed.") from None

    def progress(self, total: int, desc: str, iterable=None, unit: str = "licence"):
        """A bar that counts rows (licences, subscriptions), whatever the batches."""
        return tqdm(
            iterable,
            total=total,
            desc=desc,
            unit=unit,
            disable=not self.show_progress,
            file=sys.stderr,
        )

    def account(self, email: str) -> User:
        user = User.objects.filter(email=normalize_email(email)).first()
        if user is None:
            raise CommandError(f"No account with the e-mail {email!r}.")
        return user

    def customer_id(self, owner: User, raw: str | None) -> int | None:
        if not raw:
            return None
        rows = Client.objects.filter(owner=owner)
        client = (
            rows.filter(pk=int(raw)).first()
            if raw.isdigit()
            else rows.filter(email=normalize_email(raw)).first()
        )
        if client is None:
            raise CommandError(f"{owner.email} has no client {raw!r}.")
        return client.pk

    # --- jobs ---------------------------------------------------------------------------------

    def job_create(self, *, account, product, count, tier, source, expires_at, customer, **_):
        owner = self.account(account)
        item = Product.objects.filter(slug=product).first()
        if item is None:
            raise CommandError(f"No product with the slug {product!r}.")
        if count < 1:
            raise CommandError("--count must be at least 1.")
        expiry = parse_moment(expires_at, "--expires-at") if expires_at else None
        customer_id = self.customer_id(owner, customer)
        created: list[License] = []
        sizes = [min(CHUNK, count - start) for start in range(0, count, CHUNK)]
        with transaction.atomic(), self.progress(count, "creating") as bar:
            for size in sizes:
                created += services.licenses_issue(
                    owner=owner,
                    product=item,
                    count=size,
                    tier=tier,
                    expires_at=expiry,
                    customer_id=customer_id,
                    source=source,
                )
                bar.update(size)
        for license in created if count <= 20 else ():
            self.stdout.write(license.license_key)
        self.stdout.write(
            self.style.SUCCESS(
                f"Created {len(created)} {tier} licence(s) of {item.slug} for {owner.email}."
            )
        )

    def _revoke_selection(self, *, ids, file, account, expired_before):
        if not any([ids, file, account, expired_before]):
            raise CommandError("Say what to revoke: --ids, --file, --account or --expired-before.")
        rows = License.objects.all()
        if ids or file:
            tokens = [part.strip() for part in ids.split(",")] if ids else self._read_lines(file)
            tokens = [token for token in tokens if token]
            numbers = [token for token in tokens if token.isdigit()]
            keys = [token.upper() for token in tokens if not token.isdigit()]
            found_ids = set(License.objects.filter(pk__in=numbers).values_list("pk", flat=True))
            found_keys = set(
                License.objects.filter(license_key__in=keys).values_list("license_key", flat=True)
            )
            missing = [n for n in numbers if int(n) not in found_ids]
            missing += [k for k in keys if k not in found_keys]
            if missing:
                raise CommandError(
                    f"{len(missing)} licence(s) do not exist: {', '.join(missing[:20])}. "
                    "Nothing was changed."
                )
            rows = rows.filter(pk__in=[int(n) for n in numbers]) | rows.filter(license_key__in=keys)
        if account:
            rows = rows.filter(owner=self.account(account))
        if expired_before:
            rows = rows.filter(expires_at__lt=parse_moment(expired_before, "--expired-before"))
        return rows

    def _read_lines(self, path: str) -> list[str]:
        try:
            return Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"Cannot read {path}: {exc}") from None

    def job_revoke(self, *, ids, file, account, expired_before, dry_run, **_):
        selection = self._revoke_selection(
            ids=ids, file=file, account=account, expired_before=expired_before
        )
        targets = list(
            selection.filter(status__in=services.REVOCABLE)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        already = selection.count() - len(targets)
        revoked = 0
        try:
            with transaction.atomic(), self.progress(len(targets), "revoking") as bar:
                for chunk in _chunks(targets):
                    revoked += services.licenses_revoke(
                        queryset=License.objects.filter(pk__in=chunk)
                    )
                    bar.update(len(chunk))
                if dry_run:
                    raise _DryRun
        except _DryRun:
            self.stdout.write(
                f"Dry run: would revoke {revoked} licence(s); {already} already revoked. "
                "Nothing was changed."
            )
            return
        self.stdout.write(
            self.style.SUCCESS(f"Revoked {revoked} licence(s); {already} were already revoked.")
        )

    def job_export(self, *, account, format, output, **_):
        owner = self.account(account)
        rows = (
            License.objects.filter(owner=owner)
            .select_related("product", "customer")
            .prefetch_related("activations")
            .order_by("pk")
        )
        now = timezone.now()

        def record(license: License) -> dict:
            return {
                "id": license.pk,
                "license_key": license.license_key,
                "product": license.product.slug,
                "tier": license.tier,
                "status": license.effective_status(now),
                "source": license.source,
                "expires_at": license.expires_at.isoformat(),
                "customer_id": license.customer_id,
                "customer_email": license.customer.email if license.customer else None,
                "domains": sorted(a.domain for a in license.activations.all()),
                "invoiced_at": license.invoiced_at.isoformat() if license.invoiced_at else None,
                "created_at": license.created_at.isoformat(),
            }

        total = rows.count()
        handle = open(output, "w", newline="", encoding="utf-8") if output else self.stdout  # noqa: SIM115
        try:
            records = (record(license) for license in rows.iterator(chunk_size=500))
            bar = self.progress(total, "exporting", records)
            if format == "json":
                handle.write(json.dumps(list(bar), indent=2) + "\n")
            else:
                writer = csv.DictWriter(handle, fieldnames=EXPORT_FIELDS, lineterminator="\n")
                writer.writeheader()
                for item in bar:
                    writer.writerow(
                        {
                            **item,
                            "customer_id": item["customer_id"] or "",
                            "customer_email": item["customer_email"] or "",
                            "invoiced_at": item["invoiced_at"] or "",
                            "domains": ";".join(item["domains"]),
                        }
                    )
        finally:
            if output:
                handle.close()
        if output:
            self.stdout.write(
                self.style.SUCCESS(f"Exported {total} licence(s) of {owner.email} to {output}.")
            )
        else:
            self.stderr.write(f"Exported {total} licence(s) of {owner.email}.")

    def _import_rows(self, owner: User, path: str) -> list[services.ImportRow]:
        try:
            with open(path, newline="", encoding="utf-8") as handle:
                reader = csv.DictReader(handle)
                if not reader.fieldnames or not {"license_key", "product"} <= set(
                    reader.fieldnames
                ):
                    raise CommandError(
                        f"{path}: the header must name at least license_key and product."
                    )
                raw_rows = list(reader)
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise CommandError(f"Cannot read {path}: {exc}") from None
        products = {p.slug: p for p in Product.objects.all()}
        clients = {c.email: c.pk for c in Client.objects.filter(owner=owner)}
        rows, errors, seen = [], [], set()
        now = timezone.now()
        for line, raw in enumerate(raw_rows, start=2):
            problems = []
            try:
                key = services.check_import_key(raw.get("license_key") or "")
            except ServiceError:
                key = None
                problems.append("license_key must be 8 to 64 letters, digits and hyphens")
            if key in seen:
                problems.append(f"license_key {key} appears twice")
            seen.add(key)
            product = products.get((raw.get("product") or "").strip())
            if product is None:
                problems.append(f"unknown product {raw.get('product')!r}")
            tier = (raw.get("tier") or Tier.STARTER).strip()
            if tier not in Tier.values:
                problems.append(f"tier must be one of {', '.join(Tier.values)}")
            status = (raw.get("status") or LicenseStatus.ACTIVE).strip()
            if status not in LicenseStatus.values:
                problems.append(f"status must be one of {', '.join(LicenseStatus.values)}")
            source = (raw.get("source") or LicenseSource.INDIVIDUAL).strip()
            if source not in LicenseSource.values:
                problems.append(f"source must be one of {', '.join(LicenseSource.values)}")
            expires_at = None
            if (raw.get("expires_at") or "").strip():
                try:
                    expires_at = parse_moment(raw["expires_at"], "expires_at")
                except CommandError as exc:
                    problems.append(str(exc))
            customer_id = None
            customer_email = normalize_email(raw.get("customer_email") or "")
            if customer_email:
                customer_id = clients.get(customer_email)
                if customer_id is None:
                    problems.append(f"{owner.email} has no client {customer_email}")
            if problems:
                errors.append(f"line {line}: " + "; ".join(problems))
                continue
            rows.append(
                services.ImportRow(
                    line=line,
                    license_key=key,
                    product=product,
                    tier=tier,
                    status=status,
                    source=source,
                    expires_at=expires_at or add_years(now, 1),
                    customer_id=customer_id,
                )
            )
        if errors:
            shown = "\n  ".join(errors[:20])
            more = f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else ""
            raise CommandError(
                f"{len(errors)} bad row(s) in {path}; nothing was imported:\n  {shown}{more}"
            )
        return rows

    def job_import(self, *, path, account, dry_run, **_):
        owner = self.account(account)
        rows = self._import_rows(owner, path)
        result = {"created": 0, "skipped": 0}
        try:
            with transaction.atomic(), self.progress(len(rows), "importing") as bar:
                for chunk in _chunks(rows):
                    done = services.licenses_import(owner=owner, rows=chunk)
                    result["created"] += done["created"]
                    result["skipped"] += done["skipped"]
                    bar.update(len(chunk))
                if dry_run:
                    raise _DryRun
        except _DryRun:
            self.stdout.write(
                f"Dry run: would create {result['created']} licence(s), skip "
                f"{result['skipped']} existing. Nothing was changed."
            )
            return
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {result['created']} licence(s) for {owner.email}; skipped "
                f"{result['skipped']} that exist."
            )
        )

    def job_expire(self, *, dry_run, **_):
        now = timezone.now()
        if dry_run:
            subscriptions = Subscription.objects.filter(
                status=SubscriptionStatus.ACTIVE, current_period_end__lte=now
            ).count()
            licenses = License.objects.filter(
                status=LicenseStatus.ACTIVE, expires_at__lte=now
            ).count()
            packs = Pack.objects.filter(
                status=PackStatus.ACTIVE, expires_at__isnull=False, expires_at__lte=now
            ).count()
            self.stdout.write(
                f"Dry run: {subscriptions} subscription(s), at least {licenses} licence(s) and "
                f"{packs} pack(s) are due. Nothing was changed."
            )
            return
        result = services.expire_due(
            now=now,
            progress=lambda items: self.progress(
                len(items) if hasattr(items, "__len__") else None,
                "subscriptions",
                items,
                unit="subscription",
            ),
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Expired {result.subscriptions} subscription(s), {result.licenses} licence(s) "
                f"and {result.packs} pack(s)."
            )
        )
