"""The audit trail's pieces: values, differences, and who is acting."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from common import audit
from common.models import AuditEntry
from tests.accounts.factories import UserFactory
from tests.licensing.factories import LicenseFactory


def test_values_are_stored_as_json():
    moment = datetime(2027, 1, 31, 12, 30, tzinfo=UTC)
    assert audit.jsonable(Decimal("5.10")) == "5.10"
    assert audit.jsonable(moment) == "2027-01-31T12:30:00Z"
    assert audit.jsonable({"a": [Decimal("1.00"), None]}) == {"a": ["1.00", None]}


def test_differences_name_each_changed_field_and_address_key():
    before = {"status": "pending", "total": "5.00", "address": {"city": "Athens", "zip": "1"}}
    after = {"status": "paid", "total": "5.00", "address": {"city": "Patras", "zip": "1"}}
    assert audit.diff(before, after) == {
        "status": ["pending", "paid"],
        "address.city": ["Athens", "Patras"],
    }
    assert audit.diff({"address": {"company": ""}}, {"address": {"city": "Athens"}}) == {
        "address.city": [None, "Athens"]
    }
    assert audit.describe({"status": ["pending", "paid"], "note": [None, "x"]}) == [
        "status: pending -> paid",
        "note: — -> x",
    ]


def test_outside_a_request_or_task_the_actor_is_the_system():
    actor = audit.current_actor()
    assert (actor.user, actor.label, actor.via) == (None, "system", "system")


@pytest.mark.django_db
def test_acting_as_names_the_actor_and_a_plain_change_without_changes_writes_nothing():
    staff = UserFactory(email="ops@example.com")
    license = LicenseFactory()
    with audit.acting_as(staff, via=AuditEntry.Via.ADMIN):
        assert audit.record(license, action="changed", changes={}) is None
        entry = audit.record(license, action="changed", changes={"tier": ["starter", "business"]})
    assert (entry.actor, entry.actor_label, entry.via) == (staff, "ops@example.com", "admin")
    assert audit.current_actor().label == "system"
    tracker = audit.track(license, ["tier", "owner"])
    license.tier = "business"
    assert tracker.changes() == {"tier": ["starter", "business"]}
