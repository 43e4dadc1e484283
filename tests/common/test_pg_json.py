"""common.pg_json: the JSON PostgreSQL writes for list entries is spelled as Python writes it."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.db import connection
from django.db.models import DateTimeField, Value

from common.pg_json import IsoUtc
from store.common.formats import iso

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.postgresql_only,  # PostgreSQL writes the JSON
]

MOMENTS = [
    datetime(2026, 11, 24, 16, 0, 0, tzinfo=UTC),  # a whole second: no fraction
    datetime(2026, 11, 24, 16, 0, 0, 500000, tzinfo=UTC),  # trailing zeros kept: .500000
    datetime(2026, 11, 24, 16, 0, 0, 1, tzinfo=UTC),
    datetime(2026, 1, 2, 3, 4, 5, 60, tzinfo=timezone(timedelta(hours=2))),  # shown in UTC
    datetime(999, 12, 31, 23, 59, 59, tzinfo=UTC),  # a four-digit year
    None,
]


@pytest.mark.parametrize("moment", MOMENTS, ids=str)
def test_iso_utc_is_spelled_as_python_spells_it(moment):
    from store.orders.models import Order

    compiler = Order.objects.all().query.get_compiler(connection=connection)
    sql, params = IsoUtc(Value(moment, output_field=DateTimeField())).as_sql(compiler, connection)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {sql}", params)
        assert cursor.fetchone()[0] == iso(moment)
