"""Migration helpers for PostgreSQL-only search indexes (trigram GIN), no-ops elsewhere.

An index that Django's ORM lookups can use must index the very expression the lookup writes:
`field__icontains=x` on PostgreSQL is `UPPER("field"::text) LIKE UPPER('%x%')`, and on a JSON
key `UPPER(("field" ->> 'key')::text) LIKE ...`; a trigram GIN index on `UPPER(...)` serves
both. SQLite has no trigrams: there these lookups stay plain LIKE scans.
"""

from __future__ import annotations

from django.db import migrations


def trigram_index(table: str, name: str, expression: str) -> migrations.RunPython:
    """A migration operation creating (reverse: dropping) `CREATE INDEX name ON table USING gin
    ((expression) gin_trgm_ops)` on PostgreSQL only. Needs the pg_trgm extension
    (django.contrib.postgres.operations.TrigramExtension) earlier in the migration."""

    def forwards(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(
                f"CREATE INDEX IF NOT EXISTS {name} ON {table} "
                f"USING gin (({expression}) gin_trgm_ops)"
            )

    def backwards(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"DROP INDEX IF EXISTS {name}")

    return migrations.RunPython(forwards, backwards, elidable=False)
