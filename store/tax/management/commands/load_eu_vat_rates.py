from django.core.management.base import BaseCommand

from store.tax import selectors, services


class Command(BaseCommand):
    help = (
        "Create or update the EU VAT rates (standard and reduced-rate classes, country-wide) "
        "from the data the project ships (store/tax/data/eu_vat_rates.json). Idempotent; "
        "rates entered by staff are never changed."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Show what would change; save nothing."
        )

    def handle(self, *args, dry_run, **options):
        table = selectors.eu_vat_table()
        report = services.eu_vat_rates_load(dry_run=dry_run)
        prefix = "would create" if dry_run else "created"
        for label in report.created:
            self.stdout.write(f"  {prefix} {label}")
        for label in report.updated:
            self.stdout.write(f"  {'would update' if dry_run else 'updated'} {label}")
        self.stdout.write(
            self.style.SUCCESS(
                f"EU VAT rates as of {table['as_of']}: {len(report.created)} "
                f"{'to create' if dry_run else 'created'}, {len(report.updated)} "
                f"{'to update' if dry_run else 'updated'}, {report.unchanged} unchanged."
            )
        )
