"""Units of work done once (common.models.DoneMarker): one e-mail, one purchase order sent.

A task that may be delivered twice records its marker before it does the work, and does
nothing when the marker was there already. `mark_done` costs one statement: the conflict on
the unique key is answered by the database (INSERT ... ON CONFLICT DO NOTHING), not raised,
so it needs no savepoint inside a transaction.
"""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections, router
from django.utils import timezone

from common.models import DoneMarker


def mark_done(key: str) -> bool:
    """Record `key` as done; False when it was recorded already (someone did the work)."""
    connection = connections[router.db_for_write(DoneMarker) or DEFAULT_DB_ALIAS]
    quote = connection.ops.quote_name
    key_column = quote("key")
    table = quote(DoneMarker._meta.db_table)
    created = quote("created_at")
    # names from the model, quoted; the values are parameters
    sql = f"INSERT INTO {table} ({key_column}, {created}) VALUES (%s, %s) "  # noqa: S608
    sql += f"ON CONFLICT ({key_column}) DO NOTHING"
    with connection.cursor() as cursor:
        cursor.execute(sql, [key, connection.ops.adapt_datetimefield_value(timezone.now())])
        return bool(cursor.rowcount == 1)


def unmark(key: str) -> None:
    """Forget `key` (the work failed and will be tried again)."""
    DoneMarker.objects.filter(key=key).delete()
