"""/time-entries and /time-entries/{id}: hours per day bounded, no overlaps."""

from __future__ import annotations

from datetime import date, time, timedelta

import pytest

from erp.hr import services
from erp.hr.models import TimeEntry
from tests.erp.hr.conftest import BASE, make_employee
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db

DAY = date(2025, 6, 2)


def entry(client, employee, start, end, day=DAY, **extra):
    return client.post(
        f"{BASE}/time-entries",
        {
            "employee_id": employee.pk,
            "date": day.isoformat(),
            "start_time": start,
            "end_time": end,
            **extra,
        },
        format="json",
    )


def test_record_read_update_list_and_delete(hr):
    employee = make_employee()
    response = entry(hr, employee, "09:00", "13:30", note="Stocktake")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["hours"], body["start_time"], body["end_time"], body["note"]) == (
        "4.50",
        "09:00",
        "13:30",
        "Stocktake",
    )
    pk = body["id"]
    response = hr.patch(f"{BASE}/time-entries/{pk}", {"end_time": "17:00"}, format="json")
    assert response.status_code == 200
    assert response.json()["hours"] == "8.00"
    entry(hr, employee, "09:00", "10:00", day=DAY + timedelta(days=1))
    listed = hr.get(
        f"{BASE}/time-entries", {"employee_id": employee.pk, "date_to": DAY.isoformat()}
    )
    assert [row["id"] for row in listed.json()["time_entries"]] == [pk]
    assert hr.delete(f"{BASE}/time-entries/{pk}").status_code == 204
    error(hr.get(f"{BASE}/time-entries/{pk}"), 404, "time_entry_not_found")


def test_refusals(hr, settings):
    settings.HR_MAX_HOURS_PER_DAY = 10
    employee = make_employee()
    assert entry(hr, employee, "08:00", "14:00").status_code == 201
    error(entry(hr, employee, "13:00", "15:00"), 409, "time_entry_overlap")
    error(entry(hr, employee, "15:00", "20:00"), 409, "daily_hours_exceeded")  # 6 + 5 > 10
    error(entry(hr, employee, "15:00", "14:00"), 400, "invalid_param")
    error(entry(hr, employee, "15:00", "16:00", day=date(2999, 1, 1)), 400)
    error(entry(hr, employee, "09:00", "10:00", day=date(2019, 12, 31)), 409, "not_employed")
    error(entry(hr, employee, "25:00", "26:00"), 400)
    assert entry(hr, employee, "14:00", "18:00").status_code == 201  # exactly 10: fine
    assert TimeEntry.objects.count() == 2
    first = TimeEntry.objects.order_by("id").first()
    error(hr.patch(f"{BASE}/time-entries/{first.pk}", {"end_time": "15:00"}, format="json"), 409)
    first.refresh_from_db()
    assert first.hours == 6


def test_the_list_query_count_does_not_grow(hr, django_assert_max_num_queries):
    for _n in range(15):
        services.time_entry_create(
            employee_id=make_employee().pk,
            fields={"date": DAY, "start_time": time(9), "end_time": time(10)},
        )
    with django_assert_max_num_queries(10):
        body = hr.get(f"{BASE}/time-entries", {"per_page": 100}).json()
    assert body["total"] == 15
