"""List entries written as JSON by PostgreSQL (issue 11: list pages within 3x of the floor).

A page of 100 rows read into Python costs more than the rest of the request: the driver parses
200 timestamps and 100 decimals, Python turns them back into text, builds 100 dicts and the
renderer encodes them. PostgreSQL's `json_build_object` writes the same entry in C; the view
joins the entries' text into the body. The SQLite default keeps the Python path, and a parity
test per list compares the two answers on PostgreSQL.

- `JsonBuildObject(key=expression, ...)`: `json_build_object`, keys in the order given (`json`,
  not `jsonb`, which would reorder them); nest it for an object inside an entry.
- `IsoUtc(column)`: a timestamp in the spelling of store.common.formats.iso and DRF (UTC, `T`,
  six digits of fraction only when there is one, `Z`); NULL stays NULL.
- `JsonAgg(expression, order_by=...)`: `json_agg`, ordered (a list inside an entry).
- `entry_text(object)`: the outermost object as text, so the ORM hands it on untouched.
"""

from __future__ import annotations

from django.contrib.postgres.aggregates.mixins import OrderableAggMixin
from django.db import connections, router
from django.db.models import Aggregate, Func, JSONField, TextField, Value
from django.db.models.functions import Cast


class JsonBuildObject(Func):
    function = "json_build_object"
    output_field = JSONField()

    def __init__(self, **fields):
        expressions = []
        for key, value in fields.items():
            expressions.extend((Cast(Value(key), TextField()), value))
        super().__init__(*expressions)


class JsonAgg(OrderableAggMixin, Aggregate):
    function = "JSON_AGG"
    template = "%(function)s(%(distinct)s%(expressions)s %(order_by)s)"
    output_field = JSONField()


class IsoUtc(Func):
    # One to_char with the microseconds, whose all-zero form is then dropped: about a third
    # of the cost of testing for a whole second first (two to_char calls and a date_trunc).
    output_field = TextField()
    template = (
        "replace(to_char(%(expressions)s AT TIME ZONE 'UTC', "
        "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), '.000000Z', 'Z')"
    )


def entry_text(value: JsonBuildObject) -> Cast:
    return Cast(value, TextField())


def enabled_for(model) -> bool:
    """Whether lists of `model` are written by the database (PostgreSQL only)."""
    return connections[router.db_for_read(model)].vendor == "postgresql"


def join_entries(entries: list[str]) -> str:
    """`[entry,entry,...]` from the entries' JSON text."""
    return "[" + ",".join(entries) + "]"
