"""/activities, /activities/{id}, /activities/upcoming, /activities/overdue, /crm/dashboard."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from erp.crm import services
from erp.crm.models import Activity
from store.customers import services as customer_services
from tests.accounts.factories import UserFactory
from tests.erp.crm.conftest import BASE, make_activity, make_contact, make_lead
from tests.fixtures.store import error, grant

pytestmark = pytest.mark.django_db


def _at(**delta) -> str:
    return (timezone.now() + dt.timedelta(**delta)).isoformat()


def test_create_read_update_done_and_delete_an_activity(seller_client, seller):
    contact = make_contact()
    lead = make_lead(contact_id=contact.pk)
    body = {
        "kind": "meeting",
        "subject": "Demo",
        "due_at": _at(days=2),
        "contact_id": contact.pk,
        "lead_id": lead.pk,
    }
    response = seller_client.post(f"{BASE}/activities", body, format="json")
    assert response.status_code == 201, response.content
    created = response.json()
    assert (created["kind"], created["done"], created["overdue"]) == ("meeting", False, False)
    assert (created["contact"]["id"], created["lead"]["id"]) == (contact.pk, lead.pk)
    assert created["assigned_to"]["id"] == seller.pk
    url = f"{BASE}/activities/{created['id']}"
    assert seller_client.get(url).json() == created
    done = seller_client.patch(url, {"done": True}, format="json").json()
    assert done["done"] is True
    assert done["done_at"] is not None
    reopened = seller_client.put(url, {"done": False, "subject": "Demo 2"}, format="json").json()
    assert (reopened["done"], reopened["done_at"], reopened["subject"]) == (False, None, "Demo 2")
    assert seller_client.delete(url).status_code == 204
    assert not Activity.objects.exists()
    error(seller_client.get(url), 404, "activity_not_found")


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"kind": "fax"}, "kind"),
        ({"subject": ""}, "subject"),
        ({"due_at": "tomorrow"}, "due_at"),
        ({"contact_id": None}, "contact_id"),
        ({"contact_id": 99999}, "contact_id"),
        ({"lead_id": 99999}, "lead_id"),
        ({"assigned_to_id": 99999}, "assigned_to_id"),
        ({"done": "yes"}, "done"),
    ],
)
def test_invalid_activities_are_refused(seller_client, body, param):
    contact = make_contact()
    base = {"kind": "call", "subject": "Call", "due_at": _at(hours=1), "contact_id": contact.pk}
    answer = error(
        seller_client.post(f"{BASE}/activities", {**base, **body}, format="json"),
        400,
        "invalid_param",
    )
    assert param in answer["data"]["params"]
    assert not Activity.objects.exists()


def test_the_lead_must_be_the_contacts(seller_client):
    lead = make_lead(contact_id=make_contact(name="A").pk)
    other = make_contact(name="B")
    answer = error(
        seller_client.post(
            f"{BASE}/activities",
            {
                "kind": "task",
                "subject": "S",
                "due_at": _at(hours=1),
                "contact_id": other.pk,
                "lead_id": lead.pk,
            },
            format="json",
        ),
        400,
        "invalid_param",
    )
    assert "lead_id" in answer["data"]["params"]
    activity = make_activity(lead_id=lead.pk)
    url = f"{BASE}/activities/{activity.pk}"
    error(seller_client.patch(url, {"lead_id": None}, format="json"), 400, "invalid_param")
    assert Activity.objects.get().lead_id == lead.pk


def test_lists_upcoming_and_overdue(seller_client, django_assert_max_num_queries):
    contact = make_contact()
    other_user = UserFactory()
    past = make_activity(
        contact_id=contact.pk, subject="Late", due_at=timezone.now() - dt.timedelta(days=1)
    )
    make_activity(
        contact_id=contact.pk,
        subject="Soon",
        kind="email",
        due_at=timezone.now() + dt.timedelta(hours=3),
    )
    make_activity(
        contact_id=contact.pk, subject="Later", due_at=timezone.now() + dt.timedelta(days=20)
    )
    finished = make_activity(
        contact_id=contact.pk, subject="Done", due_at=timezone.now() - dt.timedelta(days=2)
    )
    services.activity_update(activity_id=finished.pk, fields={"done": True})
    make_activity(
        contact_id=contact.pk,
        subject="Theirs",
        assigned_to_id=other_user.pk,
        due_at=timezone.now() + dt.timedelta(days=1),
    )

    def subjects(path="", **params):
        body = seller_client.get(f"{BASE}/activities{path}", params).json()
        return [a["subject"] for a in body["activities"]]

    assert subjects() == ["Done", "Late", "Soon", "Theirs", "Later"]
    assert subjects("/overdue") == ["Late"]
    assert subjects("/upcoming") == ["Soon", "Theirs"]
    assert subjects("/upcoming", days=30) == ["Soon", "Theirs", "Later"]
    assert subjects("/upcoming", kind="email") == ["Soon"]
    assert subjects(assigned_to_id=other_user.pk) == ["Theirs"]
    assert subjects(done="true") == ["Done"]
    assert subjects(ordering="-due_at", per_page=1) == ["Later"]
    today = timezone.now().date()
    assert subjects(due_from=today + dt.timedelta(days=10)) == ["Later"]
    overdue = seller_client.get(f"{BASE}/activities/overdue").json()["activities"][0]
    assert (overdue["id"], overdue["overdue"]) == (past.pk, True)
    for index in range(25):
        make_activity(lead_id=make_lead(contact_id=contact.pk).pk, subject=f"Bulk {index}")
    for path in ("", "/upcoming", "/overdue"):
        with django_assert_max_num_queries(10):
            response = seller_client.get(f"{BASE}/activities{path}", {"per_page": 100})
        assert response.status_code == 200
    error(seller_client.get(f"{BASE}/activities/upcoming", {"days": 0}), 400, "invalid_param")
    error(seller_client.get(f"{BASE}/activities", {"kind": "fax"}), 400, "invalid_param")


def test_the_dashboard_in_a_bounded_number_of_queries(seller_client, django_assert_max_num_queries):
    customer_contact = make_contact(name="Linked")
    make_contact(name="Plain")
    customer = customer_services.customer_create(fields={"email": "d@example.com"})
    services.contact_update(contact_id=customer_contact.pk, fields={"customer_id": customer.pk})
    make_lead(value=Decimal("100.00"))
    make_lead(value=Decimal("300.00"), stage="negotiation")
    won = make_lead(value=Decimal("500.00"))
    services.lead_move_stage(lead_id=won.pk, stage="won")
    lost = make_lead(value=Decimal("40.00"), currency="USD")
    services.lead_move_stage(lead_id=lost.pk, stage="lost", lost_reason="Budget")
    make_activity(contact_id=customer_contact.pk, due_at=timezone.now() - dt.timedelta(hours=1))
    make_activity(contact_id=customer_contact.pk, due_at=timezone.now() + dt.timedelta(days=3))
    with django_assert_max_num_queries(8):
        body = seller_client.get(f"{BASE}/crm/dashboard").json()
    assert body["contacts"] == {"total": 2, "customers": 1}
    assert body["leads"] == {"open": 2, "won": 1, "lost": 1, "created": 4}
    assert body["pipeline"] == [
        {
            "currency": "EUR",
            "open_value": "400.00",
            "weighted_value": "250.00",
            "won_value": "500.00",
            "lost_value": "0.00",
        },
        {
            "currency": "USD",
            "open_value": "0.00",
            "weighted_value": "0.00",
            "won_value": "0.00",
            "lost_value": "40.00",
        },
    ]
    assert body["activities"]["overdue"] == 1
    assert body["activities"]["upcoming"] == 1
    assert body["period"]["date_from"] == timezone.now().date().replace(day=1).isoformat()
    old = seller_client.get(
        f"{BASE}/crm/dashboard", {"date_from": "2020-01-01", "date_to": "2020-01-31"}
    ).json()
    assert old["leads"] == {"open": 2, "won": 0, "lost": 0, "created": 0}
    error(
        seller_client.get(
            f"{BASE}/crm/dashboard", {"date_from": "2020-02-01", "date_to": "2020-01-01"}
        ),
        400,
        "invalid_param",
    )


def test_activities_and_dashboard_need_the_crm_capability(store_client, erp_on):
    activity = make_activity(contact_id=make_contact().pk)
    other = store_client(grant(UserFactory(), "ec_manage_accounting"))
    for method, path in (
        ("get", "/activities"),
        ("post", "/activities"),
        ("get", "/activities/upcoming"),
        ("get", "/activities/overdue"),
        ("get", f"/activities/{activity.pk}"),
        ("patch", f"/activities/{activity.pk}"),
        ("delete", f"/activities/{activity.pk}"),
        ("get", "/crm/dashboard"),
    ):
        error(
            getattr(other, method)(f"{BASE}{path}", {"done": True}, format="json"),
            403,
            "insufficient_capability",
        )
    activity.refresh_from_db()
    assert activity.done is False
