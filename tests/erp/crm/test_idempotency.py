"""Idempotency-Key on the CRM's creating POSTs: a repeat answers the first answer and
creates nothing; another body under the key is 422 `idempotency_key_reused`."""

from __future__ import annotations

import pytest
from django.utils import timezone

from erp.crm.models import Activity, Contact, Lead, Segment
from tests.erp.crm.conftest import BASE, make_contact
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db

KEY = "Idempotency-Key"


@pytest.mark.parametrize(
    ("path", "body", "model"),
    [
        ("/contacts", {"name": "Ada"}, Contact),
        ("/leads", {"title": "Deal"}, Lead),
        (
            "/crm/segments",
            {
                "name": "S",
                "target": "contacts",
                "rules": {"conditions": [{"field": "name", "op": "eq", "value": "Ada"}]},
            },
            Segment,
        ),
        ("/activities", {"kind": "task", "subject": "Do"}, Activity),
    ],
)
def test_a_repeated_key_creates_once(seller_client, path, body, model):
    if model is Activity:
        body = {**body, "due_at": timezone.now().isoformat(), "contact_id": make_contact().pk}
    before = model.objects.count()
    first = seller_client.post(f"{BASE}{path}", body, format="json", headers={KEY: "k-1"})
    assert first.status_code == 201, first.content
    again = seller_client.post(f"{BASE}{path}", body, format="json", headers={KEY: "k-1"})
    assert (again.status_code, again.json()) == (201, first.json())
    assert again.headers["Idempotent-Replayed"] == "true"
    assert model.objects.count() == before + 1
    other = {**body, "name": "Other", "title": "Other", "subject": "Other"}
    error(
        seller_client.post(f"{BASE}{path}", other, format="json", headers={KEY: "k-1"}),
        422,
        "idempotency_key_reused",
    )
    assert model.objects.count() == before + 1
