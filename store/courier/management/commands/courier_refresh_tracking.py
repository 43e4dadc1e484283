"""Track the open courier vouchers now (as the worker's task does), or hand that to the
worker through the outbox with --enqueue."""

from django.core.management.base import BaseCommand

from common import outbox
from store.courier import services

TASK = "store_courier.refresh_tracking"


class Command(BaseCommand):
    help = "Refresh the tracking of open courier vouchers (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--limit", type=int, default=200, help="At most this many vouchers.")
        parser.add_argument(
            "--enqueue", action="store_true", help="Send the task to the worker instead."
        )

    def handle(self, *args, limit: int, enqueue: bool, **options):
        limit = max(1, min(limit, 10_000))
        if enqueue:
            outbox.enqueue(TASK, kwargs={"limit": limit}, dedupe_key=TASK)
            self.stdout.write("Tracking refresh enqueued.")
            return
        done = services.refresh_tracking(limit=limit)
        self.stdout.write(f"{done} voucher(s) tracked.")
