"""Trigram GIN indexes for the order search's customer part (e-mail, names): PostgreSQL only."""

from django.db import migrations

from common.pg_indexes import postgres_extension, trigram_index

CUSTOMERS = "store_customers_customer"


class Migration(migrations.Migration):
    dependencies = [("store_customers", "0001_initial")]

    operations = [
        postgres_extension("pg_trgm"),
        trigram_index(CUSTOMERS, "store_customer_email_trgm", "upper((email)::text)"),
        trigram_index(CUSTOMERS, "store_customer_first_trgm", "upper((first_name)::text)"),
        trigram_index(CUSTOMERS, "store_customer_last_trgm", "upper((last_name)::text)"),
    ]
