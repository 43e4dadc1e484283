"""Recount the accounting reports' rollups (AccountBalance) from the posted journal lines:
after a restore, or lines written straight into the tables. Safe to run at any time (postings
wait for it) and as often as wanted: the rows come out the same."""

import time

from django.core.management.base import BaseCommand

from erp.accounting.choices import EntryStatus
from erp.accounting.models import JournalLine
from erp.accounting.services import balances


class Command(BaseCommand):
    help = "Recount the accounting reports' balances from the posted journal lines (idempotent)."

    def handle(self, *args, **options):
        started = time.perf_counter()
        rows = balances.rebuild()
        took = time.perf_counter() - started
        lines = JournalLine.objects.filter(entry__status=EntryStatus.POSTED).count()
        self.stdout.write(
            f"Account balances recounted in {took:.1f} s: {rows} rows from {lines} posted lines."
        )
