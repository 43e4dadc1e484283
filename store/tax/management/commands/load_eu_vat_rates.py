from django.core.management.base import BaseCommand, CommandError

from store.tax import eu_vat, selectors, services


class Command(BaseCommand):
    help = (
        "Create or update the EU VAT rates (standard and reduced-rate classes, country-wide) "
        "from the pinned eu-vat-rates-data library (European Commission TEDB; upgrade it with "
        "`uv lock --upgrade-package eu-vat-rates-data`), or from --file, a dataset JSON in "
        "that library's format. Idempotent; rates entered by staff are never changed."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Show what would change; save nothing."
        )
        parser.add_argument(
            "--file",
            help="A dataset file in the library's format (the eu_vat_rates_data.json of the "
            "library's repository, downloaded), for rates newer than the pinned release.",
        )

    def handle(self, *args, dry_run, file=None, **options):
        try:
            table = eu_vat.file_table(file) if file else selectors.eu_vat_table()
        except eu_vat.DatasetError as exc:
            raise CommandError(str(exc)) from exc
        report = services.eu_vat_rates_load(dry_run=dry_run, table=table)
        prefix = "would create" if dry_run else "created"
        for label in report.created:
            self.stdout.write(f"  {prefix} {label}")
        for label in report.updated:
            self.stdout.write(f"  {'would update' if dry_run else 'updated'} {label}")
        for label in report.kept:
            self.stdout.write(f"  left alone: {label}")
        self.stdout.write(
            self.style.SUCCESS(
                f"EU VAT rates as of {table['as_of']} ({table['source']}): "
                f"{len(report.created)} {'to create' if dry_run else 'created'}, "
                f"{len(report.updated)} {'to update' if dry_run else 'updated'}, "
                f"{report.unchanged} unchanged."
            )
        )
