"""Generate the enabled marketplace feeds now (as the worker's task does), or hand that to
the worker through the outbox with --enqueue."""

from django.core.management.base import BaseCommand, CommandError

from common.errors import ServiceError
from store.feeds import selectors, services


class Command(BaseCommand):
    help = "Generate marketplace feeds (every enabled one, or those named; idempotent)."

    def create_parser(self, prog_name, subcommand, **kwargs):
        """Options may also stand between the names (`generate_feeds google -v 0 skroutz`)."""
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.parse_args = parser.parse_intermixed_args
        return parser

    def add_arguments(self, parser):
        parser.add_argument(
            "marketplaces", nargs="*", help=f"Any of: {', '.join(selectors.MARKETPLACES)}."
        )
        parser.add_argument(
            "--enqueue", action="store_true", help="Send the work to the worker instead."
        )

    def handle(self, *args, marketplaces: list[str], enqueue: bool, **options):
        unknown = sorted(set(marketplaces) - set(selectors.MARKETPLACES))
        if unknown:
            raise CommandError(f"Unknown marketplace(s): {', '.join(unknown)}.")
        feeds = services.feeds_ensure()
        chosen = [
            f.marketplace
            for f in feeds
            if f.enabled and f.marketplace in (marketplaces or selectors.MARKETPLACES)
        ]
        off = sorted(set(marketplaces) - set(chosen))
        if off:
            raise CommandError(f"Not enabled: {', '.join(off)}.")
        for marketplace in chosen:
            if enqueue:
                try:
                    services.generation_request(marketplace=marketplace)
                except ServiceError as exc:  # turned off meanwhile
                    raise CommandError(f"{marketplace}: {exc}") from exc
                self.stdout.write(f"{marketplace}: generation enqueued.")
                continue
            feed = services.generate(marketplace=marketplace)
            counts = f"{feed.item_count} item(s), {feed.skipped_count} skipped."
            error = f" {feed.error}" if feed.error else ""
            self.stdout.write(f"{marketplace}: {feed.status}, {counts}{error}")
        if not chosen:
            self.stdout.write("No feed is enabled.")
