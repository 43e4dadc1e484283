"""Indexes of the portal licence list: the caller's licences newest first (keyset),
and on PostgreSQL trigram GIN indexes for the partial key / domain search.

The trigram indexes exist on PostgreSQL only (pg_trgm; btree_gin puts owner_id in the key
index, so a key search reads only the caller's entries); on SQLite the search is a plain scan
of the caller's rows and these steps do nothing. They are not in the models' Meta, which must
hold for every database.
"""

from django.conf import settings
from django.db import migrations, models

from common.pg_indexes import postgres_extension, postgres_indexes

TRIGRAM_INDEXES = (
    (
        "licensing_license_owner_key_trgm",
        "licensing_license USING gin (owner_id, UPPER(license_key) gin_trgm_ops)",
    ),
    (
        "licensing_activation_domain_trgm",
        "licensing_activation USING gin (UPPER(domain) gin_trgm_ops)",
    ),
)


class Migration(migrations.Migration):
    dependencies = [
        ("clients", "0001_initial"),
        ("licensing", "0002_licences"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="license",
            name="licensing_l_owner_i_ab3f24_idx",
        ),
        migrations.AddIndex(
            model_name="license",
            index=models.Index(
                fields=["owner", "-created_at", "-id"], name="licensing_owner_newest"
            ),
        ),
        migrations.AddIndex(
            model_name="license",
            index=models.Index(
                fields=["owner", "status", "-created_at", "-id"], name="licensing_owner_status"
            ),
        ),
        # No-ops on other databases (CreateExtension checks the vendor itself).
        postgres_extension("pg_trgm"),
        postgres_extension("btree_gin"),
        postgres_indexes(*TRIGRAM_INDEXES),
    ]
