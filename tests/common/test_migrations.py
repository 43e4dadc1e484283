"""The migrations build the schema the models describe, on the embedded default (SQLite).

The suite's SQLite database is built from the models (tests/fixtures/db.py): no worker waits the
20 s of migrating from scratch before its first test. `make run` migrates. Here every migration
is applied to a fresh SQLite file, as `make run` does on a new machine (on one worker while the
others go on), and what they built is compared with the test database: the same tables with the
same column, key and constraint definitions, the same indexes, and the same rows seeded (the
data migrations and the post_migrate handlers). CI's PostgreSQL pass migrates its own test
database, so both engines run every migration.
"""

import re
import shutil
import sqlite3
from contextlib import closing

import pytest
from django.db import connection

from tests.common.test_settings_env import run_manage
from tests.fixtures.db import _fingerprint, _locked, _template_dir

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.sqlite_only,
]

# Django's bookkeeping of applied migrations (the models' build has no rows in it), and the
# SQLite sequence table (it exists once an AUTOINCREMENT table has had a row).
NOT_COMPARED = {"django_migrations", "sqlite_sequence"}


def _definitions(create_table: str) -> list[str]:
    """A CREATE TABLE's column and constraint definitions, sorted: migrating appends an added
    column at the end where the models' build puts it in the model's order."""
    body = create_table[create_table.index("(") + 1 : create_table.rindex(")")]
    parts, depth, start = [], 0, 0
    for position, char in enumerate(body):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(body[start:position])
            start = position + 1
    parts.append(body[start:])
    return sorted(re.sub(r"\s+", " ", part).strip() for part in parts)


def _schema_and_rows(cursor) -> dict:
    cursor.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL")
    tables, indexes = {}, set()
    for kind, name, table, sql in cursor.fetchall():
        if table in NOT_COMPARED:
            continue
        if kind == "table":
            tables[name] = _definitions(sql)
        elif kind == "index":
            indexes.add(re.sub(r"\s+", " ", sql))
    rows = {}
    for table in tables:
        cursor.execute(f'SELECT COUNT(*) FROM "{table}"')  # noqa: S608 - names from sqlite_master
        rows[table] = cursor.fetchone()[0]
    return {"tables": tables, "indexes": indexes, "rows": rows}


@pytest.fixture
def migrated(tmp_path) -> dict:
    """The schema and row counts of a fresh SQLite database after `manage.py migrate`.

    The migrated file is kept beside the test database's template, under the same fingerprint
    of the code (tests/fixtures/db.py): a later run of the same code compares with it again
    without migrating; any change to the code migrates afresh."""
    kept = _template_dir() / f"migrated-{_fingerprint(connection)}.sqlite3"
    with _locked("migrated.lock"):
        if not kept.exists():
            # the system checks are not the schema's (other tests run them): skipped here
            result = run_manage(
                "migrate",
                "--noinput",
                "--skip-checks",
                env_overrides={"DATABASE_URL": None},
                tmp_path=tmp_path,
            )
            assert result.returncode == 0, result.stderr
            built = tmp_path / "db.sqlite3"
            with closing(sqlite3.connect(built)) as database:  # one file, without its WAL
                database.execute("PRAGMA journal_mode=DELETE")
            for stale in _template_dir().glob("migrated-*.sqlite3"):
                stale.unlink()
            shutil.move(built, kept)
    with closing(sqlite3.connect(f"file:{kept}?immutable=1", uri=True)) as database:
        return _schema_and_rows(database.cursor())


@pytest.mark.slow(reason="every migration from scratch, once for each state of the code")
def test_the_migrations_build_the_schema_and_rows_of_the_models(migrated):
    with connection.cursor() as cursor:
        built = _schema_and_rows(cursor)
    assert sorted(migrated["tables"]) == sorted(built["tables"])
    for table, definitions in migrated["tables"].items():
        assert definitions == built["tables"][table], table
    assert migrated["indexes"] == built["indexes"]
    assert migrated["rows"] == built["rows"]


def test_the_comparison_sees_a_difference():
    """The table comparison is not blind to column order alone nor to a changed definition."""
    a = _definitions('CREATE TABLE "t" ("id" integer NOT NULL, "n" varchar(5), CHECK (n > 1))')
    b = _definitions('CREATE TABLE "t" ("n" varchar(5), "id" integer NOT NULL, CHECK (n > 1))')
    c = _definitions('CREATE TABLE "t" ("n" varchar(6), "id" integer NOT NULL, CHECK (n > 1))')
    assert a == b
    assert a != c
    assert len(a) == 3
