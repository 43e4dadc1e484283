"""Every body of the /emails routes refuses a key it does not take (a misspelt one), naming it,
and changes or sends nothing."""

from __future__ import annotations

import pytest
from django.core import mail

from store.emails.models import EmailTemplate, SentEmail
from store.settings.models import SettingsSection
from tests.fixtures.store import error
from tests.store.emails.helpers import EMAILS, SETTINGS, TEMPLATES, TEST, an_order

pytestmark = pytest.mark.django_db


def nothing_changed() -> None:
    assert not EmailTemplate.objects.exclude(subject="", body_html="", body_text="").exists()
    assert not SettingsSection.objects.filter(name="emails").exists()
    assert not SentEmail.objects.exists()
    assert mail.outbox == []


@pytest.mark.parametrize("method", ["patch", "put"])
def test_a_misspelt_template_key_is_refused(staff, method):
    url = f"{TEMPLATES}/order_confirmation"
    body = {"subjct": "Hello {{ order.number }}", "enabled": False}
    refused = error(getattr(staff, method)(url, body, format="json"), 400, "invalid_param")
    assert list(refused["data"]["params"]) == ["subjct"]
    nothing_changed()
    assert staff.get(url).json()["enabled"] is True


@pytest.mark.parametrize(
    ("method", "path", "body", "names"),
    [
        ("post", f"{TEMPLATES}/order_confirmation/preview", {"body_htm": "<b>x</b>"}, ["body_htm"]),
        ("post", TEST, {"type": "order_completed", "to": "me@example.com", "ordr": 1}, ["ordr"]),
        ("patch", SETTINGS, {"sender_nam": "Shop", "sender_address": "a@b.test"}, ["sender_nam"]),
        ("put", SETTINGS, {"enabled": [], "disabled": []}, ["disabled", "enabled"]),
    ],
)
def test_every_other_body_refuses_unknown_keys(staff, method, path, body, names):
    refused = error(getattr(staff, method)(path, body, format="json"), 400, "invalid_param")
    assert sorted(refused["data"]["params"]) == names
    nothing_changed()


def test_a_resend_with_a_misspelt_key_sends_nothing(staff):
    order = an_order("processing")
    url = f"{EMAILS}/resend/{order.pk}"
    refused = error(staff.post(url, {"typ": "order_refunded"}, format="json"), 400)
    assert list(refused["data"]["params"]) == ["typ"]
    nothing_changed()
