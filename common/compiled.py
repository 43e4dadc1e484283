"""Fixed-shape ORM queries, compiled once per database connection.

Building a Django query and compiling it to SQL costs more than the database takes to run a
lookup by primary key or unique column: on the hot paths (authentication, the
caller's capabilities, licence verify) about 0.3-0.8 ms per query, while PostgreSQL answers in
0.1 ms. A `CompiledQuery` is written as an ORM query (so it follows the models, the routers and
the backend's SQL dialect), compiled on its first use on each connection, and from then on runs
that SQL with the call's parameters, converting the columns as the ORM would.

Only for queries whose shape never changes with their arguments: the arguments fill the SQL's
parameters and nothing else (no `None` that turns `=` into `IS NULL`, no lists whose length
changes the SQL, no boolean that the ORM writes into the SQL). The first use compiles it with
two sets of sample arguments and checks that the SQL is the same and that each parameter is
either one of the arguments or a constant, so a query that transforms an argument or writes
one into the SQL is refused at once, not answered wrongly.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from django.db import connections, router, transaction
from django.db.models import Case, F, Model, QuerySet, Value, When
from django.db.models.functions import Cast, Now
from django.db.models.query import get_related_populators
from django.db.models.signals import post_save, pre_save
from django.db.models.sql import InsertQuery, UpdateQuery


def _check_samples(sample: tuple[Any, ...], other: tuple[Any, ...]) -> None:
    for values in (sample, other):
        if len(set(values)) != len(values):
            raise ValueError("CompiledQuery: the sample arguments must be distinct")
    if len(sample) != len(other) or any(a == b for a, b in zip(sample, other, strict=True)):
        raise ValueError("CompiledQuery: the two samples must differ in every argument")


Places = list[tuple[str, Any]]
Sql = tuple[str, Sequence[Any]]


def _places(
    sample: tuple[Any, ...], other: tuple[Any, ...], compiled: Sql, other_compiled: Sql
) -> Places:
    """Per SQL parameter of a query compiled with `sample` and with `other`: ("arg", index)
    where it follows the samples, ("const", value) where it is the same in both; refuses SQL
    that changes with the arguments, a parameter that is neither, an argument left out."""
    (sql, params), (other_sql, other_params) = compiled, other_compiled
    if other_sql != sql or len(other_params) != len(params):
        raise AssertionError("CompiledQuery: the SQL changes with the arguments")
    places: Places = []
    for param, other_param in zip(params, other_params, strict=True):
        matches = [
            i
            for i, value in enumerate(sample)
            if value == param and _same_kind(value, param) and other[i] == other_param
        ]
        if len(matches) == 1:
            places.append(("arg", matches[0]))
        elif param == other_param and type(param) is type(other_param):
            places.append(("const", param))
        else:
            raise AssertionError(
                f"CompiledQuery: the SQL parameter {param!r} is not one of the arguments"
            )
    if {index for kind, index in places if kind == "arg"} != set(range(len(sample))):
        # e.g. filter(flag=True) compiles to `WHERE "flag"`: the value is in the SQL itself
        raise AssertionError(
            "CompiledQuery: an argument is not a parameter of the SQL (written into it?)"
        )
    return places


def _same_kind(value: Any, param: Any) -> bool:
    """Whether the SQL parameter `param` is the argument `value`, maybe wrapped in a subclass
    of its type by the backend (PostgreSQL's Int4 for an integer field's Value)."""
    return type(value) is type(param) or (
        isinstance(param, type(value)) and not isinstance(param, bool)
    )


def _params(places: Places, args: tuple[Any, ...]) -> list[Any]:
    return [args[x] if kind == "arg" else x for kind, x in places]


class _Sampled:
    """A statement compiled with two sets of sample arguments (see CompiledQuery), kept per
    database connection."""

    def __init__(
        self, build: Callable[..., Any], sample: tuple[Any, ...], other: tuple[Any, ...]
    ) -> None:
        _check_samples(sample, other)
        self.build = build
        self.sample = sample
        self.other = other
        self._compiled: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


class CompiledQuery(_Sampled):
    """`build(*args)` answers a `values_list()` queryset whose SQL parameters are its arguments
    (each used once or more, in any order) and constants. `sample` and `other` are two sets of
    distinct arguments of the right types, different from each other in every place: the query
    is compiled with both, and a parameter is an argument where it follows the samples, a
    constant where it is the same in both; anything else is refused."""

    build: Callable[..., QuerySet[Any, Any]]

    def _compile(self, alias: str, connection: Any) -> tuple[Any, ...]:
        compiler = self.build(*self.sample).query.get_compiler(alias)
        sql, params = compiler.as_sql()
        other_sql, other_params = self.build(*self.other).query.get_compiler(alias).as_sql()
        places = _places(self.sample, self.other, (sql, params), (other_sql, other_params))
        columns = [s[0] for s in compiler.select[: compiler.col_count]]
        converters = list(compiler.get_converters(columns).items())
        return sql, places, converters, _Instances.of(compiler, alias)

    def _compiled_for(self, alias: str, connection: Any) -> tuple[Any, ...]:
        compiled = self._compiled.get(connection)
        if compiled is None:
            compiled = self._compiled[connection] = self._compile(alias, connection)
        return compiled

    def instances(self, *args: Any, using: str | None = None) -> list[Any]:
        """The model instances of a queryset query (not values_list), with what it
        select_related()s, as the ORM's own iteration makes them (typed Any: the caller
        knows its model)."""
        alias = using or self.alias()
        made = self._compiled_for(alias, connections[alias])[3]
        if made is None:
            raise TypeError("CompiledQuery.instances needs a queryset of model instances")
        return [made.make(row) for row in self.rows(*args, using=alias)]

    def rows(self, *args: Any, using: str | None = None) -> list[list[Any]]:
        alias = using or self.alias()
        connection = connections[alias]
        sql, places, converters, _made = self._compiled_for(alias, connection)
        with connection.cursor() as cursor:
            cursor.execute(sql, _params(places, args))
            rows = [list(row) for row in cursor.fetchall()]
        for row in rows:
            for position, (functions, expression) in converters:
                value = row[position]
                for function in functions:
                    value = function(value, expression, connection)
                row[position] = value
        return rows

    def alias(self) -> str:
        """The database the query reads from (the routers' choice, asked once)."""
        alias = getattr(self, "_default_alias", None)
        if alias is None:
            alias = self._default_alias = router.db_for_read(self.build(*self.sample).model)
        return alias


class CompiledByCount:
    """A query over a list of ids (`pk__in=ids`), compiled once per number of ids (up to
    `most`; more run through the ORM): `build(ids)` answers a queryset whose SQL parameters
    are the ids and constants. The ids are given distinct (a repeated id would change the
    number of parameters: the ORM drops it)."""

    def __init__(self, build: Callable[[list[int]], QuerySet[Any, Any]], *, most: int = 32) -> None:
        self.build = build
        self.most = most
        self._by_count: dict[int, CompiledQuery] = {}

    def _query(self, count: int) -> CompiledQuery:
        query = self._by_count.get(count)
        if query is None:
            sample = tuple(range(-1, -count - 1, -1))
            other = tuple(range(-count - 1, -2 * count - 1, -1))
            query = self._by_count[count] = CompiledQuery(
                lambda *ids: self.build(list(ids)), sample, other
            )
        return query

    def rows(self, ids: Sequence[int]) -> list[list[Any]]:
        ids = list(dict.fromkeys(ids))
        if not 0 < len(ids) <= self.most:
            return [list(row) for row in self.build(ids)]
        return self._query(len(ids)).rows(*ids)

    def instances(self, ids: Sequence[int]) -> list[Any]:
        ids = list(dict.fromkeys(ids))
        if not 0 < len(ids) <= self.most:
            return list(self.build(ids))
        return self._query(len(ids)).instances(*ids)


class CompiledUpdate(_Sampled):
    """An UPDATE of fixed shape, compiled once per database connection, as CompiledQuery is
    for reads: `build(*args)` answers (queryset, {field: value or expression}) as given to
    `queryset.update()`; the SQL's parameters must be the arguments and constants. Only an
    UPDATE of one table (no join to pre-select, no parent model's rows)."""

    build: Callable[..., tuple[QuerySet[Any, Any], dict[str, Any]]]
    _alias: str | None = None

    def _sql(self, args: tuple[Any, ...], alias: str) -> Sql:
        queryset, values = self.build(*args)
        query: Any = queryset.query.chain(UpdateQuery)
        query.add_update_values(values)
        query.clear_select_clause()
        if query.related_updates or query.count_active_tables() != 1:
            raise AssertionError("CompiledUpdate: one table only")
        sql: str
        params: Sequence[Any]
        sql, params = query.get_compiler(alias).as_sql()
        return sql, params

    def execute(self, *args: Any) -> int:
        """Runs the UPDATE with `args`; answers the number of rows it changed."""
        alias = self._alias
        if alias is None:
            alias = self._alias = router.db_for_write(self.build(*self.sample)[0].model)
        connection = connections[alias]
        compiled = self._compiled.get(connection)
        if compiled is None:
            first = self._sql(self.sample, alias)
            places = _places(self.sample, self.other, first, self._sql(self.other, alias))
            compiled = self._compiled[connection] = (first[0], places)
        sql, places = compiled
        with connection.cursor() as cursor:
            cursor.execute(sql, _params(places, args))
            changed: int = cursor.rowcount
        return changed


class CaseUpdate:
    """bulk_update()'s UPDATE (`field = CASE pk WHEN ... END` per field), compiled once per
    number of rows: one statement per `most` rows.

    `fields`: the model fields set per row; `increment`: each is added to the column's value
    instead (`field = field + CASE ...`, rows not named add 0); `now`: date-time fields set to
    the database's current time (Now()). Values are plain values (no expressions)."""

    def __init__(
        self,
        model: type[Model],
        fields: Sequence[str],
        *,
        increment: bool = False,
        now: Sequence[str] = (),
        most: int = 32,
    ) -> None:
        self.model = model
        self.fields: list[Any] = [model._meta.get_field(name) for name in fields]
        self.increment = increment
        self.now = tuple(now)
        self.most = most
        self._by_count: dict[int, CompiledUpdate] = {}

    def _values(self, pks: Sequence[Any], columns: Sequence[Sequence[Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {name: Now() for name in self.now}
        casted = connections[router.db_for_write(self.model)].features
        for field, column in zip(self.fields, columns, strict=True):
            case: Any = Case(
                *(
                    When(pk=pk, then=Value(value, output_field=field))
                    for pk, value in zip(pks, column, strict=True)
                ),
                default=Value(0) if self.increment else None,
                output_field=field,
            )
            if casted.requires_casted_case_in_updates:
                case = Cast(case, output_field=field)
            out[field.attname] = F(field.attname) + case if self.increment else case
        return out

    def _compiled(self, count: int) -> CompiledUpdate:
        found = self._by_count.get(count)
        if found is None:
            width = len(self.fields)

            def build(*args: Any) -> tuple[QuerySet[Any, Any], dict[str, Any]]:
                pks = args[:count]
                columns = [args[count * (i + 1) : count * (i + 2)] for i in range(width)]
                queryset = self.model._default_manager.filter(pk__in=pks)
                return queryset, self._values(pks, columns)

            def samples(start: int) -> tuple[Any, ...]:
                pks = tuple(range(-start, -start - count, -1))
                values: list[Any] = []
                for i, field in enumerate(self.fields):
                    base = start * 1000 + (i + 1) * 100_000
                    numbers = range(base, base + count)
                    if field.get_internal_type() in ("CharField", "TextField", "SlugField"):
                        values += [f"~{n}" for n in numbers]
                    else:
                        values += list(numbers)
                return (*pks, *values)

            found = self._by_count[count] = CompiledUpdate(build, samples(1), samples(1 + count))
        return found

    def execute(self, rows: Mapping[Any, Sequence[Any]]) -> int:
        """Sets each row `pk` of `rows` to its values (in the order of `fields`): one UPDATE
        per `most` rows. Answers the number of rows changed."""
        pks = list(rows)
        changed = 0
        for start in range(0, len(pks), self.most):
            chunk = pks[start : start + self.most]
            values = [rows[pk][i] for i in range(len(self.fields)) for pk in chunk]
            changed += self._compiled(len(chunk)).execute(*chunk, *values)
        return changed


_INSERTS: weakref.WeakKeyDictionary[Any, dict[type[Model], tuple[Any, ...]]] = (
    weakref.WeakKeyDictionary()
)
M = TypeVar("M", bound=Model)


def insert(obj: M) -> M:
    """`obj.save()` of a new row, its INSERT compiled once per model and connection: the
    same signals (pre_save, post_save with created=True), the same values prepared by each
    field, the primary key (and the other columns the database returns) set on `obj`.

    Building and compiling an INSERT costs more than PostgreSQL takes to run it (about
    0.25 ms a row). A row whose shape the compiled SQL cannot take goes through save() as
    before: a model with parents, a primary key given, a value that is an expression, a
    backend that cannot return the new key from the INSERT."""
    model = type(obj)
    meta = model._meta
    alias = router.db_for_write(model, instance=obj)
    connection: Any = connections[alias]
    row: Any = obj  # the model's private save() helpers, as save() calls them
    if (
        meta.parents
        or row._is_pk_set()
        or not connection.features.can_return_columns_from_insert
        or any(hasattr(obj.__dict__.get(f.attname), "resolve_expression") for f in meta.fields)
    ):
        obj.save(force_insert=True, using=alias)
        return obj
    row._prepare_related_fields_for_save(operation_name="save")
    prepared = _INSERTS.setdefault(connection, {}).get(model)
    if prepared is None:
        fields = [f for f in meta.local_concrete_fields if f is not meta.auto_field]
        if any(f.generated for f in fields):
            obj.save(force_insert=True, using=alias)
            return obj
        returning = list(meta.db_returning_fields)
        query = InsertQuery(model)
        query.insert_values(fields, [obj])
        compiler: Any = query.get_compiler(alias)
        compiler.returning_fields = returning
        [(sql, _params)] = compiler.as_sql()
        columns = [field.get_col(meta.db_table) for field in returning]
        converters = list(compiler.get_converters(columns).items())
        # Kept: the SQL and what to do with a row, not the compiler (it holds the connection,
        # the key of this cache).
        prepared = (sql, fields, returning, tuple(compiler.returning_params), converters)
        _INSERTS[connection][model] = prepared
    sql, fields, returning, returning_params, converters = prepared
    pre_save.send(sender=model, instance=obj, raw=False, using=alias, update_fields=None)
    params = [field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields]
    with transaction.mark_for_rollback_on_error(using=alias), connection.cursor() as cursor:
        cursor.execute(sql, [*params, *returning_params])
        row = list(connection.ops.fetch_returned_insert_columns(cursor, returning_params))
    for position, (functions, expression) in converters:
        for function in functions:
            row[position] = function(row[position], expression, connection)
    for value, field in zip(row, returning, strict=True):
        setattr(obj, field.attname, value)
    obj._state.adding = False
    obj._state.db = alias
    post_save.send(
        sender=model, instance=obj, created=True, update_fields=None, raw=False, using=alias
    )
    return obj


class _Instances:
    """What django.db.models.query.ModelIterable does with a row, prepared once."""

    def __init__(self, compiler, alias: str) -> None:
        klass_info, select = compiler.klass_info, compiler.select
        self.alias = alias
        self.model = klass_info["model"]
        fields = klass_info["select_fields"]
        self.start, self.end = fields[0], fields[-1] + 1
        self.init_list = [f[0].target.attname for f in select[self.start : self.end]]
        self.populators = get_related_populators(klass_info, select, alias)
        self.annotations = list((compiler.annotation_col_map or {}).items())

    @classmethod
    def of(cls, compiler, alias: str) -> _Instances | None:
        if compiler.klass_info is None or compiler.query.values_select:
            return None  # a values()/values_list() query: rows only
        return cls(compiler, alias)

    def make(self, row: list) -> Model:
        obj = self.model.from_db(self.alias, self.init_list, row[self.start : self.end])
        for populator in self.populators:
            populator.populate(row, obj)
        for name, position in self.annotations:
            setattr(obj, name, row[position])
        return obj


def instance(model: type[Model], names: Sequence[str], values: Sequence, using: str) -> Model:
    """A model instance from a row, as the ORM makes one (`from_db`: not `_state.adding`)."""
    return model.from_db(using, list(names), list(values))


_ROW_CONVERTERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def model_from_row(model: type[Model], row: Sequence, using: str) -> Model:
    """An instance of `model` from a raw row of its concrete columns in their order (e.g. an
    `UPDATE ... RETURNING` of them), the values converted as the ORM converts them."""
    connection = connections[using]
    per_model = _ROW_CONVERTERS.setdefault(connection, {})
    prepared = per_model.get(model)
    if prepared is None:
        fields = model._meta.concrete_fields
        compiler = model._default_manager.all().query.get_compiler(using)
        columns = [field.get_col(model._meta.db_table) for field in fields]
        converters = list(compiler.get_converters(columns).items())
        prepared = per_model[model] = ([field.attname for field in fields], converters)
    names, converters = prepared
    values = list(row)
    for position, (functions, expression) in converters:
        for function in functions:
            values[position] = function(values[position], expression, connection)
    return model.from_db(using, names, values)
