"""The CRM admin: pages render; contacts, leads, activities and segments are written through
the services (their refusals shown on the forms); stage moves and conversion are actions."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from erp.crm import services
from erp.crm.models import Activity, Contact, Lead, Segment
from tests.erp.crm.conftest import make_activity, make_contact, make_customer, make_lead

pytestmark = pytest.mark.django_db


def test_every_page_renders(admin_client):
    contact = make_contact()
    lead = make_lead(contact_id=contact.pk)
    activity = make_activity(contact_id=contact.pk)
    segment = services.segment_create(
        fields={
            "name": "All Ada",
            "target": "contacts",
            "rules": {"conditions": [{"field": "name", "op": "contains", "value": "ada"}]},
        }
    )
    for name, obj in (
        ("contact", contact),
        ("lead", lead),
        ("activity", activity),
        ("segment", segment),
    ):
        assert admin_client.get(reverse(f"admin:erp_crm_{name}_changelist")).status_code == 200
        assert (
            admin_client.get(reverse(f"admin:erp_crm_{name}_change", args=[obj.pk])).status_code
            == 200
        )
        assert admin_client.get(reverse(f"admin:erp_crm_{name}_add")).status_code == 200


def test_contacts_go_through_the_services(admin_client):
    add = reverse("admin:erp_crm_contact_add")
    form = {"name": "Ada", "email": "ada@example.com", "phone": "not a phone"}
    response = admin_client.post(add, form)
    assert response.status_code == 200
    assert "phone" in response.context["adminform"].form.errors
    assert not Contact.objects.exists()
    form["phone"] = "+44  20 7946 0958"
    assert admin_client.post(add, form).status_code == 302
    contact = Contact.objects.get()
    assert contact.phone == "+44 20 7946 0958"
    make_lead(contact_id=contact.pk)
    delete = reverse("admin:erp_crm_contact_delete", args=[contact.pk])
    admin_client.post(delete, {"post": "yes"})
    assert Contact.objects.filter(pk=contact.pk).exists()


def test_the_import_action_imports_store_customers(admin_client):
    make_customer("a@example.com", first_name="A")
    contact = make_contact()
    changelist = reverse("admin:erp_crm_contact_changelist")
    admin_client.post(changelist, {"action": "import_customers", "_selected_action": [contact.pk]})
    assert Contact.objects.filter(customer__email="a@example.com").count() == 1


def test_leads_refuse_closed_edits_and_move_by_actions(admin_client):
    lead = make_lead()
    changelist = reverse("admin:erp_crm_lead_changelist")
    admin_client.post(changelist, {"action": "win", "_selected_action": [lead.pk]})
    lead.refresh_from_db()
    assert lead.stage == "won"
    assert lead.stage_changes.count() == 2
    change = reverse("admin:erp_crm_lead_change", args=[lead.pk])
    response = admin_client.post(
        change,
        {
            "title": "Changed",
            "value": "1.00",
            "currency": "EUR",
            "probability": 100,
            "stage_changes-TOTAL_FORMS": 0,
            "stage_changes-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 200
    assert Lead.objects.get().title == "Big deal"
    open_lead = make_lead(email="x@example.com", contact_name="X Person")
    admin_client.post(changelist, {"action": "convert", "_selected_action": [open_lead.pk]})
    open_lead.refresh_from_db()
    assert open_lead.contact.name == "X Person"


def test_activities_and_segments_go_through_the_services(admin_client):
    contact = make_contact()
    add = reverse("admin:erp_crm_activity_add")
    now = timezone.now()
    form = {"kind": "call", "subject": "Ring", "due_at_0": now.date(), "due_at_1": "10:00"}
    response = admin_client.post(add, form)
    assert response.status_code == 200
    assert not Activity.objects.exists()
    assert admin_client.post(add, {**form, "contact": contact.pk}).status_code == 302
    activity = Activity.objects.get()
    changelist = reverse("admin:erp_crm_activity_changelist")
    admin_client.post(changelist, {"action": "mark_done", "_selected_action": [activity.pk]})
    activity.refresh_from_db()
    assert activity.done is True
    assert activity.done_at is not None
    segment_add = reverse("admin:erp_crm_segment_add")
    bad = {"name": "S", "target": "contacts", "rules": '{"conditions": [{"field": "x"}]}'}
    assert admin_client.post(segment_add, bad).status_code == 200
    assert not Segment.objects.exists()
    good = {**bad, "rules": '{"conditions": [{"field": "city", "op": "eq", "value": "Rome"}]}'}
    assert admin_client.post(segment_add, good).status_code == 302
    assert Segment.objects.get().rules["match"] == "all"


def test_the_forms_check_countries_and_currencies_as_the_api(admin_client):
    response = admin_client.post(
        reverse("admin:erp_crm_contact_add"), {"name": "Ada", "country": "zz"}
    )
    assert "country" in response.context["adminform"].form.errors
    response = admin_client.post(
        reverse("admin:erp_crm_lead_add"),
        {
            "title": "T",
            "value": "1.00",
            "currency": "ZZZ",
            "probability": 10,
            "stage_changes-TOTAL_FORMS": 0,
            "stage_changes-INITIAL_FORMS": 0,
        },
    )
    assert "currency" in response.context["adminform"].form.errors
    assert not Contact.objects.exists()
    assert not Lead.objects.exists()


def test_the_lead_form_refuses_a_negative_value(admin_client):
    response = admin_client.post(
        reverse("admin:erp_crm_lead_add"),
        {
            "title": "T",
            "value": "-1.00",
            "currency": "EUR",
            "probability": 10,
            "stage_changes-TOTAL_FORMS": 0,
            "stage_changes-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 200
    assert "value" in response.context["adminform"].form.errors
    assert not Lead.objects.exists()
