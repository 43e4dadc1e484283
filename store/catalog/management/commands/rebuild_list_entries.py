"""Build every product's stored list entry again (services.list_entries): after products'
categories were written without the ORM's m2m managers (a bulk import), or to start afresh.
The lists never serve an invalid entry whether or not this runs; they build what is missing
as they are read."""

from django.core.management.base import BaseCommand, CommandError

from store.catalog.models import Product
from store.catalog.selectors import product_json
from store.catalog.services import list_entries


class Command(BaseCommand):
    help = "Drop the stored product list entries and build every product's again."

    def add_arguments(self, parser):
        parser.add_argument(
            "--batch", type=int, default=500, help="Products built per query (default 500)."
        )

    def handle(self, *args, batch: int, **options):
        if not product_json.enabled():
            raise CommandError(
                "List entries are stored only where the database writes the product bodies "
                "(PostgreSQL, media on the local file system)."
            )
        batch = max(1, min(batch, 5000))
        list_entries.clear()
        ids = list(Product.objects.order_by("pk").values_list("pk", flat=True))
        for start in range(0, len(ids), batch):
            # Every entry is missing: the query builds each and `finish` stores them.
            queryset = Product.objects.filter(pk__in=ids[start : start + batch]).order_by()
            product_json.finish(product_json.with_entries(queryset))
        built = len(ids)
        self.stdout.write(f"{built} list entr{'y' if built == 1 else 'ies'} built.")
