"""List entries written as JSON by PostgreSQL (list pages within 3x of the floor).

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

import json
from typing import TYPE_CHECKING, Any

from django.contrib.postgres.aggregates.mixins import OrderableAggMixin
from django.db import connections, router
from django.db.models import Aggregate, F, Func, JSONField, Subquery, TextField, Value
from django.db.models.expressions import Col
from django.db.models.functions import Cast, Coalesce

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.models.sql.compiler import SQLCompiler


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


# --- Compact JSON text: the bytes DRF's JSONRenderer writes -------------------------------------
#
# `json_build_object` writes `{"a" : 1, "b" : 2}`; DRF's renderer (compact, ensure_ascii off)
# writes `{"a":1,"b":2}`. A body cached or compared byte for byte is built with these instead:
#
# - `JsonText(expression)`: a scalar as JSON text (`to_json`: strings escaped as Python's json
#   module escapes them with ensure_ascii off, numbers and booleans bare), NULL as `null`;
#   `JsonString(expression)` writes a number or an IsoUtc time as a string (`"12.50"`).
# - `CompactObject(key=value, ...)`: `{"key":value,...}`, keys in the order given; a value is a
#   field name (its JsonText) or an expression answering JSON text, never NULL.
# - `CompactMembers(key=value, ...)`: the same object without the members whose value is NULL;
#   `JsonMembers(expression)`: a run of members (keys and values) written by one expression,
#   as `member_run(key=value, ...)` writes them.
# - `CompactAgg(element, order_by=...)`: `[element,...]` over a group of rows (NULL over none:
#   wrap the subquery in `json_list`); `json_or_null(subquery)`, `json_or(subquery, "{}")`: a
#   subquery's JSON text or a default when it finds no row.
# - `RendererText(text)`: U+2028 and U+2029 escaped, as the renderer escapes them in its output.
# - `FileUrlJson(name, base)`: a media URL (base + filepath_to_uri(name)) as a JSON string, or
#   UNWRITTEN_URL where the name needs percent-encoding (`IfUriSafe` tests several names at
#   once for an object of URLs); `JsonPathText(column, "a", "b")`:
#   `column #>> '{a,b}'`; `TextConstant(text)`: a constant written into the SQL.


# What an as_sql answers: the SQL and its parameters.
Sql = tuple[str, tuple[Any, ...]]


def _sql_literal(text: str) -> str:
    if "%" in text:  # the SQL goes through the driver's %-formatting
        raise ValueError(f"no % in a JSON literal: {text!r}")
    return "'" + text.replace("'", "''") + "'"


def _compiled(compiler: SQLCompiler, expression: Any) -> Sql:
    sql, params = compiler.compile(expression)
    return sql, tuple(params)


class TextConstant(Func):
    """A string constant written into the SQL, not a parameter (an object's keys, defaults):
    the SQL stays the same whatever the values, and short. No `%` in it."""

    output_field = TextField()

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__()

    def as_sql(
        self,
        compiler: SQLCompiler,
        connection: BaseDatabaseWrapper,
        function: str | None = None,
        template: str | None = None,
        arg_joiner: str | None = None,
        **extra_context: Any,
    ) -> Sql:
        return _sql_literal(self.text), ()

    def get_group_by_cols(self) -> list[Any]:
        return []  # a constant: beside an aggregate it groups nothing


# Fields whose text is their JSON as it is (integers; booleans read `true`, `false`).
_BARE = frozenset(
    {
        "AutoField",
        "BigAutoField",
        "BigIntegerField",
        "BooleanField",
        "IntegerField",
        "PositiveBigIntegerField",
        "PositiveIntegerField",
        "PositiveSmallIntegerField",
        "SmallAutoField",
        "SmallIntegerField",
    }
)


def _never_null(expression: Any) -> bool:
    field = getattr(expression, "target", None)
    return isinstance(expression, Col) and field is not None and not field.null


class JsonText(Func):
    output_field = TextField()

    def as_sql(
        self,
        compiler: SQLCompiler,
        connection: BaseDatabaseWrapper,
        function: str | None = None,
        template: str | None = None,
        arg_joiner: str | None = None,
        **extra_context: Any,
    ) -> Sql:
        source = self.get_source_expressions()[0]
        if source.output_field.get_internal_type() in _BARE:
            template = "(%(expressions)s)::text"
        else:
            template = "to_json(%(expressions)s)::text"
        if not _never_null(source):
            template = f"COALESCE({template}, 'null')"
        return super().as_sql(compiler, connection, template=template, **extra_context)


class JsonString(Func):
    """A value whose text JSON never escapes (a number, a time from IsoUtc) as a JSON string
    (`"12.50"`: the column's own text), NULL as `null`."""

    output_field = TextField()

    def __init__(self, expression: Any) -> None:
        super().__init__(F(expression) if isinstance(expression, str) else expression)

    def as_sql(
        self,
        compiler: SQLCompiler,
        connection: BaseDatabaseWrapper,
        function: str | None = None,
        template: str | None = None,
        arg_joiner: str | None = None,
        **extra_context: Any,
    ) -> Sql:
        template = "'\"' || (%(expressions)s)::text || '\"'"
        if not _never_null(self.get_source_expressions()[0]):
            template = f"COALESCE({template}, 'null')"
        return super().as_sql(compiler, connection, template=template, **extra_context)


def _json_value(value: Any) -> Any:
    return JsonText(F(value)) if isinstance(value, str) else value


# PostgreSQL functions take at most 100 arguments: longer concatenations are nested.
_MAX_ARGS = 100


def _concat(parts: list[Any]) -> Func:
    while len(parts) > _MAX_ARGS:
        parts = [
            Func(*parts[i : i + _MAX_ARGS], function="concat", output_field=TextField())
            for i in range(0, len(parts), _MAX_ARGS)
        ]
    return Func(*parts, function="concat", output_field=TextField())


class JsonMembers(Func):
    """Members of a CompactObject written by one expression, keys included (`"a":1,"b":[2]`):
    the value of the first one's key, the others' keys left out (one subquery for both)."""

    template = "%(expressions)s"
    output_field = TextField()


def member_run(**fields: Any) -> Func:
    """`"key":value,...`: the members of a CompactObject without its braces (the text of a
    JsonMembers)."""
    parts: list[Any] = []
    for position, (key, value) in enumerate(fields.items()):
        parts += [TextConstant(("" if position == 0 else ",") + json.dumps(key) + ":")]
        parts += [_json_value(value)]
    return _concat(parts)


class CompactObject(Func):
    output_field = TextField()

    def __init__(self, **fields: Any) -> None:
        parts: list[Any] = []
        for position, (key, value) in enumerate(fields.items()):
            opening = "{" if position == 0 else ","
            if isinstance(value, JsonMembers):
                parts += [TextConstant(opening), value]
            else:
                parts += [TextConstant(opening + json.dumps(key) + ":"), _json_value(value)]
        parts.append(TextConstant("}" if parts else "{}"))
        super().__init__(_concat(parts))

    def as_sql(
        self,
        compiler: SQLCompiler,
        connection: BaseDatabaseWrapper,
        function: str | None = None,
        template: str | None = None,
        arg_joiner: str | None = None,
        **extra_context: Any,
    ) -> Sql:
        return _compiled(compiler, self.get_source_expressions()[0])


class CompactMembers(Func):
    """`{...}` of the members whose value (JSON text or NULL) is not NULL, in the order given."""

    output_field = TextField()
    template = "concat('{', concat_ws(',', %(expressions)s), '}')"

    def __init__(self, **fields: Any) -> None:
        members = [
            Func(
                TextConstant(json.dumps(key) + ":"),
                _json_value(value),
                template="(%(expressions)s)",
                arg_joiner=" || ",
                output_field=TextField(),
            )
            for key, value in fields.items()
        ]
        super().__init__(*members)


class CompactAgg(OrderableAggMixin, Aggregate):
    function = "STRING_AGG"
    template = "'[' || %(function)s(%(distinct)s%(expressions)s, ',' %(order_by)s) || ']'"
    output_field = TextField()


def json_or(rows: Any, default: str) -> Coalesce:
    """A subquery's one value (JSON text), or the JSON text `default` when it has no row."""
    return Coalesce(Subquery(rows, output_field=TextField()), TextConstant(default))


def json_list(rows: Any) -> Coalesce:
    """A subquery's CompactAgg, or `[]` when it has no row."""
    return json_or(rows, "[]")


def json_or_null(rows: Any) -> Coalesce:
    """A subquery's one value (JSON text), or `null` when it has no row."""
    return json_or(rows, "null")


class RendererText(Func):
    template = "replace(replace(%(expressions)s, chr(8232), '\\u2028'), chr(8233), '\\u2029')"
    output_field = TextField()


# The characters quote() leaves alone with filepath_to_uri's `safe` (a bracket expression's
# ranges are code point ranges in PostgreSQL's regular expressions, whatever the collation).
_URI_SAFE = "^[-A-Za-z0-9_.~/!*()']*$"
# What FileUrlJson writes for a name it cannot write: a control character, which to_json and
# these helpers never leave raw in their text, so that a body holding it is known to need
# building another way.
UNWRITTEN_URL = "\x01"


class FileUrlJson(Func):
    """The JSON string of `base` and a stored file's name as filepath_to_uri writes it (its
    leading slashes dropped), for a name made only of the characters filepath_to_uri leaves
    alone (every name the store writes); UNWRITTEN_URL for another name; NULL for NULL.
    `checked`: the caller tested the name already (IfUriSafe). `base` is written into the
    SQL: no `%`, nothing that JSON escapes."""

    output_field = TextField()

    def __init__(self, name: Any, base: str, *, checked: bool = False) -> None:
        if not self.writes(base):
            raise ValueError(f"not a base URL this SQL can write: {base!r}")
        self.base, self.checked = base, checked
        super().__init__(name)

    @staticmethod
    def writes(base: str) -> bool:
        """Whether `base` can be written into the SQL and the JSON as it is."""
        return not any(char in '%"\\' or ord(char) < 32 for char in base)

    def as_sql(
        self,
        compiler: SQLCompiler,
        connection: BaseDatabaseWrapper,
        function: str | None = None,
        template: str | None = None,
        arg_joiner: str | None = None,
        **extra_context: Any,
    ) -> Sql:
        name, params = _compiled(compiler, self.get_source_expressions()[0])
        url = f"{_sql_literal(chr(34) + self.base)} || ltrim({name}, '/') || '\"'"
        if self.checked:
            return f"({url})", params
        # The name is compiled SQL (a column), the rest constants: nothing of the caller's.
        sql = (
            f"(CASE WHEN {name} ~ {_sql_literal(_URI_SAFE)} THEN {url}"
            f" WHEN {name} IS NOT NULL THEN chr(1) END)"
        )
        return sql, params * 3


class IfUriSafe(Func):
    """`value` when every one of `names` (NULL ones aside) is made of the characters
    filepath_to_uri leaves alone, else UNWRITTEN_URL: one test for the names of an object
    whose URLs are FileUrlJson(..., checked=True)."""

    output_field = TextField()

    def as_sql(
        self,
        compiler: SQLCompiler,
        connection: BaseDatabaseWrapper,
        function: str | None = None,
        template: str | None = None,
        arg_joiner: str | None = None,
        **extra_context: Any,
    ) -> Sql:
        value, *names = self.get_source_expressions()
        value_sql, value_params = _compiled(compiler, value)
        compiled = [_compiled(compiler, name) for name in names]
        joined = ", ".join(sql for sql, _params in compiled)
        params = tuple(param for _sql, name_params in compiled for param in name_params)
        sql = (
            f"(CASE WHEN concat({joined}) ~ {_sql_literal(_URI_SAFE)} THEN {value_sql}"
            " ELSE chr(1) END)"
        )
        return sql, params + value_params


class JsonPathText(Func):
    """`column #>> '{a,b,c}'`: the text at a path of a JSON column (NULL where the path is
    missing or crosses a value that is not an object), the path written into the SQL."""

    output_field = TextField()

    def __init__(self, expression: Any, *path: str) -> None:
        for key in path:
            if not key.replace("_", "").isalnum():
                raise ValueError(f"a JSON path key of letters, digits and _: {key!r}")
        self.path = path
        super().__init__(expression)

    def as_sql(
        self,
        compiler: SQLCompiler,
        connection: BaseDatabaseWrapper,
        function: str | None = None,
        template: str | None = None,
        arg_joiner: str | None = None,
        **extra_context: Any,
    ) -> Sql:
        column, params = _compiled(compiler, self.get_source_expressions()[0])
        return f"({column} #>> '{{{','.join(self.path)}}}')", params
