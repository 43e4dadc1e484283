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
from collections.abc import Callable, Sequence
from typing import Any

from django.db import connections, router
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators


class CompiledQuery:
    """`build(*args)` answers a `values_list()` queryset whose SQL parameters are its arguments
    (each used once or more, in any order) and constants. `sample` and `other` are two sets of
    distinct arguments of the right types, different from each other in every place: the query
    is compiled with both, and a parameter is an argument where it follows the samples, a
    constant where it is the same in both; anything else is refused."""

    def __init__(self, build: Callable[..., QuerySet], sample: tuple, other: tuple) -> None:
        for values in (sample, other):
            if len(set(values)) != len(values):
                raise ValueError("CompiledQuery: the sample arguments must be distinct")
        if len(sample) != len(other) or any(a == b for a, b in zip(sample, other, strict=True)):
            raise ValueError("CompiledQuery: the two samples must differ in every argument")
        self.build = build
        self.sample = sample
        self.other = other
        self._compiled: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def _compile(self, alias: str, connection):
        compiler = self.build(*self.sample).query.get_compiler(alias)
        sql, params = compiler.as_sql()
        other_sql, other_params = self.build(*self.other).query.get_compiler(alias).as_sql()
        if other_sql != sql or len(other_params) != len(params):
            raise AssertionError("CompiledQuery: the SQL changes with the arguments")
        places = []  # per parameter: ("arg", index) or ("const", value)
        for param, other_param in zip(params, other_params, strict=True):
            matches = [
                i
                for i, value in enumerate(self.sample)
                if value == param and type(value) is type(param) and self.other[i] == other_param
            ]
            if len(matches) == 1:
                places.append(("arg", matches[0]))
            elif param == other_param and type(param) is type(other_param):
                places.append(("const", param))
            else:
                raise AssertionError(
                    f"CompiledQuery: the SQL parameter {param!r} is not one of the arguments"
                )
        if {index for kind, index in places if kind == "arg"} != set(range(len(self.sample))):
            # e.g. filter(flag=True) compiles to `WHERE "flag"`: the value is in the SQL itself
            raise AssertionError(
                "CompiledQuery: an argument is not a parameter of the SQL (written into it?)"
            )
        columns = [s[0] for s in compiler.select[: compiler.col_count]]
        converters = list(compiler.get_converters(columns).items())
        return sql, places, converters, _Instances.of(compiler, alias)

    def _compiled_for(self, alias: str, connection):
        compiled = self._compiled.get(connection)
        if compiled is None:
            compiled = self._compiled[connection] = self._compile(alias, connection)
        return compiled

    def instances(self, *args, using: str | None = None) -> list[Any]:
        """The model instances of a queryset query (not values_list), with what it
        select_related()s, as the ORM's own iteration makes them (typed Any: the caller
        knows its model)."""
        alias = using or self.alias()
        made = self._compiled_for(alias, connections[alias])[3]
        if made is None:
            raise TypeError("CompiledQuery.instances needs a queryset of model instances")
        return [made.make(row) for row in self.rows(*args, using=alias)]

    def rows(self, *args, using: str | None = None) -> list[list]:
        alias = using or self.alias()
        connection = connections[alias]
        sql, places, converters, _made = self._compiled_for(alias, connection)
        with connection.cursor() as cursor:
            cursor.execute(sql, [args[x] if kind == "arg" else x for kind, x in places])
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
