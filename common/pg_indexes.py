"""Migration operations for PostgreSQL-only indexes (GIN full-text, trigram, NULLS LAST),
no-ops elsewhere.

Such indexes stay out of the models' Meta, which must hold for every database. An index that
Django's ORM lookups can use must index the very expression the lookup writes:
`field__icontains=x` on PostgreSQL is `UPPER("field"::text) LIKE UPPER('%x%')`, and on a JSON
key `UPPER(("field" ->> 'key')::text) LIKE ...`; a trigram GIN index on `UPPER(...)` serves
both. SQLite has no trigrams: there these lookups stay plain LIKE scans.
"""

from __future__ import annotations

from django.db import migrations


def postgres_indexes(*indexes: tuple[str, str]) -> migrations.RunPython:
    """An operation running `CREATE INDEX IF NOT EXISTS <name> ON <target>` for each
    (name, target) on PostgreSQL only (reverse: dropping them). A trigram target needs the
    pg_trgm extension (django.contrib.postgres.operations.TrigramExtension) earlier on."""

    def forwards(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for name, target in indexes:
                schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {target}")

    def backwards(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for name, _target in indexes:
                schema_editor.execute(f"DROP INDEX IF EXISTS {name}")

    return migrations.RunPython(forwards, backwards, elidable=False)


def trigram_index(table: str, name: str, expression: str) -> migrations.RunPython:
    """`CREATE INDEX name ON table USING gin ((expression) gin_trgm_ops)` on PostgreSQL only."""
    return postgres_indexes((name, f"{table} USING gin (({expression}) gin_trgm_ops)"))


def postgres_extension(name: str) -> migrations.RunPython:
    """`CREATE EXTENSION IF NOT EXISTS <name>` on PostgreSQL only. Unapplying leaves it in
    place: several apps' indexes use the same extension (pg_trgm, btree_gin), and undoing one
    app's migration must not drop what another's indexes depend on (Django's CreateExtension
    drops it)."""

    def forwards(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"CREATE EXTENSION IF NOT EXISTS {name}")

    return migrations.RunPython(forwards, migrations.RunPython.noop, elidable=False)
