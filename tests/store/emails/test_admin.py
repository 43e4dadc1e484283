"""The admin: a template row per type, edited through the API's checks, with a preview; the
sent-mail log, read-only."""

from __future__ import annotations

import pytest
from django.urls import reverse

from store.emails.models import EmailTemplate, SentEmail
from tests.store.emails.helpers import ALL_TYPES, an_order

pytestmark = pytest.mark.django_db


def change_url(slug: str) -> str:
    row = EmailTemplate.objects.get(type=slug)
    return reverse("admin:store_emails_emailtemplate_change", args=[row.pk])


def form(**values) -> dict:
    return {"subject": "", "body_html": "", "body_text": "", **values}


def test_every_type_has_a_row_and_the_list_shows_them(admin_client, django_assert_max_num_queries):
    assert sorted(EmailTemplate.objects.values_list("type", flat=True)) == sorted(ALL_TYPES)
    with django_assert_max_num_queries(12):
        page = admin_client.get(reverse("admin:store_emails_emailtemplate_changelist"))
    assert page.status_code == 200
    html = page.content.decode()
    assert all(slug in html for slug in ALL_TYPES)
    assert admin_client.get(reverse("admin:store_emails_emailtemplate_add")).status_code == 403


def test_the_change_page_shows_the_variables_and_a_preview(admin_client):
    page = admin_client.get(change_url("order_confirmation"))
    assert page.status_code == 200
    html = page.content.decode()
    assert "order.number" in html
    assert "<iframe sandbox" in html
    assert "We have received your Emporion Store order EC-123456" in html


def test_a_change_goes_through_the_checks(admin_client, admin_user):
    url = change_url("order_completed")
    refused = admin_client.post(url, form(body_text="{{ order.__class__ }}"))
    assert refused.status_code == 200
    assert "Not allowed in a template" in refused.content.decode()
    assert EmailTemplate.objects.get(type="order_completed").body_text == ""
    saved = admin_client.post(url, form(subject="Done: {{ order.number }}"))
    assert saved.status_code == 302, saved.content.decode()[:2000]
    row = EmailTemplate.objects.get(type="order_completed")
    assert (row.subject, row.updated_by) == ("Done: {{ order.number }}", admin_user)
    assert "Done: EC-123456" in admin_client.get(url).content.decode()


def test_the_reset_action(admin_client):
    EmailTemplate.objects.filter(type="new_order").update(subject="Custom")
    row = EmailTemplate.objects.get(type="new_order")
    response = admin_client.post(
        reverse("admin:store_emails_emailtemplate_changelist"),
        {"action": "reset", "_selected_action": [row.pk]},
    )
    assert response.status_code == 302
    row.refresh_from_db()
    assert row.subject == ""


def test_the_sent_mail_log_is_read_only(admin_client, django_assert_max_num_queries):
    order = an_order()
    for n in range(5):
        SentEmail.objects.create(
            type="order_completed", recipient=f"r{n}@example.com", subject="S", order=order
        )
    with django_assert_max_num_queries(12):
        page = admin_client.get(reverse("admin:store_emails_sentemail_changelist"))
    assert page.status_code == 200
    assert "r4@example.com" in page.content.decode()
    row = SentEmail.objects.first()
    detail = admin_client.get(reverse("admin:store_emails_sentemail_change", args=[row.pk]))
    assert detail.status_code == 200
    assert (
        admin_client.post(
            reverse("admin:store_emails_sentemail_change", args=[row.pk]), {"subject": "x"}
        ).status_code
        == 403
    )
    assert admin_client.get(reverse("admin:store_emails_sentemail_add")).status_code == 403
    assert SentEmail.objects.get(pk=row.pk).subject == "S"
