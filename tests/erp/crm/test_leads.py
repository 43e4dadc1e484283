"""/leads, /leads/{id}, /leads/pipeline, /leads/{id}/move-stage, /leads/{id}/convert."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from erp.crm import services
from erp.crm.models import Activity, Contact, Lead, LeadStageChange
from store.customers.models import Customer
from tests.accounts.factories import UserFactory
from tests.erp.crm.conftest import BASE, make_activity, make_contact, make_customer, make_lead
from tests.fixtures.store import error, grant

pytestmark = pytest.mark.django_db

DEAL = {
    "title": "50 lamps for the hotel",
    "contact_name": "Grace Hopper",
    "email": "grace@navy.example",
    "phone": "+1 555 010 9999",
    "company": "Navy Hotels",
    "value": "12500.50",
    "currency": "usd",
    "expected_close_date": "2026-12-31",
    "source": "referral",
}


def move(client, lead, stage, **body):
    return client.post(
        f"{BASE}/leads/{lead.pk}/move-stage", {"stage": stage, **body}, format="json"
    )


def test_create_read_update_and_delete_a_lead(seller_client, seller):
    response = seller_client.post(f"{BASE}/leads", DEAL, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert {k: body[k] for k in ("value", "currency", "stage", "probability", "source")} == {
        "value": "12500.50",
        "currency": "USD",
        "stage": "new",
        "probability": 10,
        "source": "referral",
    }
    assert body["owner"]["id"] == seller.pk
    assert [(h["from_stage"], h["to_stage"]) for h in body["history"]] == [("", "new")]
    url = f"{BASE}/leads/{body['id']}"
    assert seller_client.get(url).json() == body
    contact = make_contact()
    patched = seller_client.patch(
        url, {"value": 99.9, "probability": 45, "contact_id": contact.pk}, format="json"
    ).json()
    assert (patched["value"], patched["probability"], patched["contact"]["id"]) == (
        "99.90",
        45,
        contact.pk,
    )
    assert Lead.objects.get().value == Decimal("99.90")
    assert seller_client.put(url, {"notes": "Hot"}, format="json").json()["notes"] == "Hot"
    make_activity(lead_id=body["id"])
    assert seller_client.delete(url).status_code == 204
    assert not Lead.objects.exists()
    assert not Activity.objects.exists()
    assert not LeadStageChange.objects.exists()
    error(seller_client.get(url), 404, "lead_not_found")


def test_currency_defaults_to_the_store_and_a_lead_may_start_in_an_open_stage(seller_client):
    body = seller_client.post(
        f"{BASE}/leads", {"title": "T", "stage": "proposition"}, format="json"
    ).json()
    assert (body["currency"], body["stage"], body["probability"], body["value"]) == (
        "EUR",
        "proposition",
        60,
        "0.00",
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", ""),
        ("value", "-1"),
        ("value", "1.001"),
        ("value", "1e20"),
        ("value", True),
        ("probability", 101),
        ("currency", "ZZZ"),
        ("stage", "won"),
        ("stage", "lost"),
        ("stage", "nope"),
        ("email", "x@"),
        ("phone", "abc"),
        ("contact_id", 99999),
        ("owner_id", 99999),
        ("source", "tv"),
        ("expected_close_date", "31/12/2026"),
    ],
)
def test_invalid_leads_are_refused_and_nothing_is_written(seller_client, field, value):
    body = error(
        seller_client.post(f"{BASE}/leads", {**DEAL, field: value}, format="json"),
        400,
        "invalid_param",
    )
    assert field in body["data"]["params"]
    assert not Lead.objects.exists()


def test_filters_search_ordering_and_query_count(seller_client, django_assert_max_num_queries):
    owner = UserFactory()
    ada = make_contact(name="Ada")
    make_lead(title="Alpha", value=Decimal("10"), contact_id=ada.pk, owner_id=owner.pk)
    make_lead(title="Beta", value=Decimal("30"), stage="qualified", source="website")
    won = make_lead(title="Gamma", value=Decimal("20"), expected_close_date=dt.date(2026, 3, 1))
    services.lead_move_stage(lead_id=won.pk, stage="won")
    for index in range(20):
        make_lead(
            title=f"Bulk {index}", value=Decimal(0), contact_id=make_contact(name=f"P{index}").pk
        )

    def titles(**params):
        body = seller_client.get(f"{BASE}/leads", params).json()
        return [lead["title"] for lead in body["leads"]]

    assert titles(stage="qualified,won") == ["Gamma", "Beta"]
    assert titles(open="false") == ["Gamma"]
    assert titles(owner_id=owner.pk) == ["Alpha"]
    assert titles(contact_id=ada.pk) == ["Alpha"]
    assert titles(source="website") == ["Beta"]
    assert titles(search="ada") == ["Alpha"]
    assert titles(close_from="2026-02-01", close_to="2026-03-31") == ["Gamma"]
    assert titles(ordering="-value", per_page=3) == ["Beta", "Gamma", "Alpha"]
    assert titles(currency="usd") == []
    with django_assert_max_num_queries(10):
        body = seller_client.get(f"{BASE}/leads", {"per_page": 100}).json()
    assert body["total"] == 23
    error(seller_client.get(f"{BASE}/leads", {"stage": "won,bogus"}), 400, "invalid_param")


def test_the_pipeline_counts_and_sums_each_stage_in_one_query(
    seller_client, django_assert_max_num_queries
):
    make_lead(value=Decimal("100.00"))
    make_lead(value=Decimal("50.50"))
    make_lead(value=Decimal("200.00"), stage="negotiation")
    make_lead(value=Decimal("70.00"), stage="negotiation", currency="USD")
    owner = UserFactory()
    make_lead(value=Decimal("1.00"), stage="qualified", owner_id=owner.pk)
    with django_assert_max_num_queries(8):
        body = seller_client.get(f"{BASE}/leads/pipeline").json()
    stages = {row["stage"]: row for row in body["stages"]}
    assert [row["stage"] for row in body["stages"]] == [
        "new",
        "qualified",
        "proposition",
        "negotiation",
        "won",
        "lost",
    ]
    assert stages["new"]["count"] == 2
    assert stages["new"]["totals"] == [
        {"currency": "EUR", "value": "150.50", "weighted_value": "15.05"}
    ]
    assert stages["negotiation"]["count"] == 2
    assert stages["negotiation"]["totals"] == [
        {"currency": "EUR", "value": "200.00", "weighted_value": "160.00"},
        {"currency": "USD", "value": "70.00", "weighted_value": "56.00"},
    ]
    assert (stages["won"]["count"], stages["won"]["totals"], stages["won"]["closed"]) == (
        0,
        [],
        True,
    )
    mine = seller_client.get(f"{BASE}/leads/pipeline", {"owner_id": owner.pk}).json()
    assert [row["count"] for row in mine["stages"]] == [0, 1, 0, 0, 0, 0]


def test_moving_through_the_stages_keeps_the_history(seller_client, seller):
    lead = make_lead()
    body = move(seller_client, lead, "proposition", note="Sent the offer").json()
    assert (body["stage"], body["probability"]) == ("proposition", 60)
    body = move(seller_client, lead, "qualified", probability=35).json()
    assert (body["stage"], body["probability"]) == ("qualified", 35)
    body = move(seller_client, lead, "won").json()
    assert (body["stage"], body["probability"]) == ("won", 100)
    assert body["closed_at"] is not None
    assert [(h["from_stage"], h["to_stage"]) for h in body["history"]] == [
        ("", "new"),
        ("new", "proposition"),
        ("proposition", "qualified"),
        ("qualified", "won"),
    ]
    assert body["history"][1]["note"] == "Sent the offer"
    assert body["history"][1]["changed_by"]["id"] == seller.pk


def test_won_and_lost_are_terminal(seller_client):
    lead = make_lead()
    error(move(seller_client, lead, "lost"), 400, "invalid_param")
    error(move(seller_client, lead, "won", lost_reason="x"), 400, "invalid_param")
    error(move(seller_client, lead, "won", probability=50), 400, "invalid_param")
    error(move(seller_client, lead, "new"), 409, "lead_stage_unchanged")
    error(move(seller_client, lead, "bogus"), 400, "invalid_param")
    assert Lead.objects.get().stage == "new"
    body = move(seller_client, lead, "lost", lost_reason="Too expensive").json()
    assert (body["stage"], body["probability"], body["lost_reason"]) == ("lost", 0, "Too expensive")
    for stage in ("new", "won", "negotiation"):
        error(move(seller_client, lead, stage), 409, "lead_closed")
    error(
        seller_client.patch(f"{BASE}/leads/{lead.pk}", {"title": "X"}, format="json"),
        409,
        "lead_closed",
    )
    lead.refresh_from_db()
    assert (lead.stage, lead.title, lead.stage_changes.count()) == ("lost", "Big deal", 2)
    error(move(seller_client, Lead(pk=99999), "won"), 404, "lead_not_found")


def test_converting_makes_a_contact_and_a_customer_once(seller_client):
    lead = make_lead(**{k: DEAL[k] for k in ("contact_name", "email", "phone", "company")})
    url = f"{BASE}/leads/{lead.pk}/convert"
    first = seller_client.post(url, {"create_customer": True}, format="json")
    assert first.status_code == 200, first.content
    body = first.json()
    assert (body["contact_created"], body["customer_created"]) == (True, True)
    assert (body["contact"]["name"], body["contact"]["email"], body["contact"]["company"]) == (
        "Grace Hopper",
        "grace@navy.example",
        "Navy Hotels",
    )
    assert body["lead"]["contact"]["id"] == body["contact"]["id"]
    assert body["lead"]["converted_at"] is not None
    customer = Customer.objects.get()
    assert (customer.email, customer.first_name, customer.last_name) == (
        "grace@navy.example",
        "Grace",
        "Hopper",
    )
    assert body["contact"]["customer"] == {"id": customer.pk, "email": customer.email}
    again = seller_client.post(url, {"create_customer": True}, format="json").json()
    assert (again["contact_created"], again["customer_created"]) == (False, False)
    assert again["contact"]["id"] == body["contact"]["id"]
    assert (Contact.objects.count(), Customer.objects.count()) == (1, 1)


def test_converting_finds_the_contact_of_the_email_and_an_existing_customer(seller_client):
    existing = make_contact(name="Grace H.", email="grace@navy.example")
    customer = make_customer("grace@navy.example")
    lead = make_lead(email="grace@navy.example")
    body = seller_client.post(
        f"{BASE}/leads/{lead.pk}/convert", {"create_customer": True}, format="json"
    ).json()
    assert (body["contact"]["id"], body["contact_created"], body["customer_created"]) == (
        existing.pk,
        False,
        False,
    )
    assert body["contact"]["customer"]["id"] == customer.pk
    no_customer = make_lead(contact_name="Solo")
    plain = seller_client.post(f"{BASE}/leads/{no_customer.pk}/convert").json()
    assert (plain["contact"]["name"], plain["contact"]["customer"]) == ("Solo", None)


def test_converting_is_refused_for_lost_leads_and_customers_without_email(seller_client):
    lead = make_lead(contact_name="Nobody")
    url = f"{BASE}/leads/{lead.pk}/convert"
    error(
        seller_client.post(url, {"create_customer": True}, format="json"),
        409,
        "contact_has_no_email",
    )
    assert not Contact.objects.exists()
    error(seller_client.post(url, {"create_customer": "yes"}, format="json"), 400, "invalid_param")
    services.lead_move_stage(lead_id=lead.pk, stage="lost", lost_reason="Gone")
    error(seller_client.post(url), 409, "lead_lost")
    assert not Contact.objects.exists()
    assert not Customer.objects.exists()


def test_a_customer_of_another_contact_is_refused(seller_client):
    customer = make_customer("grace@navy.example")
    make_contact(name="First", email="other@x.io", customer_id=customer.pk)
    contact = make_contact(name="Second", email="grace@navy.example")
    lead = make_lead(contact_id=contact.pk)
    error(
        seller_client.post(
            f"{BASE}/leads/{lead.pk}/convert", {"create_customer": True}, format="json"
        ),
        409,
        "customer_has_contact",
    )
    lead.refresh_from_db()
    assert lead.converted_at is None


def test_leads_need_the_crm_capability(store_client, erp_on):
    lead = make_lead()
    other = store_client(grant(UserFactory(), "ec_manage_hr"))
    for method, path in (
        ("get", "/leads"),
        ("post", "/leads"),
        ("get", "/leads/pipeline"),
        ("get", f"/leads/{lead.pk}"),
        ("patch", f"/leads/{lead.pk}"),
        ("delete", f"/leads/{lead.pk}"),
        ("post", f"/leads/{lead.pk}/move-stage"),
        ("post", f"/leads/{lead.pk}/convert"),
    ):
        error(
            getattr(other, method)(f"{BASE}{path}", {"stage": "won"}, format="json"),
            403,
            "insufficient_capability",
        )
    lead.refresh_from_db()
    assert (lead.stage, Lead.objects.count()) == ("new", 1)


def test_unknown_leads_answer_404(seller_client):
    for method, path in (
        ("get", "/leads/99999"),
        ("patch", "/leads/99999"),
        ("delete", "/leads/99999"),
        ("post", "/leads/99999/convert"),
        ("post", "/leads/99999/move-stage"),
    ):
        body = {"stage": "won"} if path.endswith("move-stage") else {}
        error(
            getattr(seller_client, method)(f"{BASE}{path}", body, format="json"),
            404,
            "lead_not_found",
        )
