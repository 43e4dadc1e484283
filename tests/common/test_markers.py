"""Done markers: one statement each, and a second mark of the same key is answered, not
raised (so a transaction around it goes on)."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from common import markers
from common.models import DoneMarker

pytestmark = pytest.mark.django_db


def test_a_key_is_marked_once_and_the_transaction_goes_on():
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        assert markers.mark_done("job:1") is True
        assert markers.mark_done("job:1") is False
        assert markers.mark_done("job:2") is True
        assert DoneMarker.objects.count() == 2  # the transaction is still usable
    marks = [q for q in queries.captured_queries if "donemarker" in q["sql"].lower()]
    assert len(marks) == 4  # three marks and the count: no savepoint around a mark
    assert not [q for q in queries.captured_queries if "SAVEPOINT" in q["sql"].upper()]


def test_an_unmarked_key_can_be_marked_again():
    assert markers.mark_done("job:3")
    markers.unmark("job:3")
    assert markers.mark_done("job:3")
    assert DoneMarker.objects.get(key="job:3").created_at is not None
