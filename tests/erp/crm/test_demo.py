"""The CRM's demo data: imported customers, prospects, leads across the pipeline with their
activities, segments; a second run adds nothing."""

from __future__ import annotations

import pytest

from erp.crm import demo
from erp.crm.models import Activity, Contact, Lead, LeadStageChange, Segment
from tests.erp.crm.conftest import make_customer

pytestmark = pytest.mark.django_db


def test_the_demo_seeds_once():
    make_customer("shopper@example.com", first_name="Sam")
    lines = demo.seed()
    assert lines == [
        "ERP CRM: 3 contacts (1 imported from store customers now), 5 leads (5 new), 2 segments"
    ]
    assert sorted(Lead.objects.values_list("stage", flat=True)) == [
        "lost",
        "negotiation",
        "new",
        "proposition",
        "won",
    ]
    assert Lead.objects.get(stage="lost").lost_reason == "Chose a local supplier"
    assert Activity.objects.count() == 6
    counts = (Contact, Lead, Activity, Segment, LeadStageChange)
    before = [model.objects.count() for model in counts]
    assert demo.seed() == [
        "ERP CRM: 3 contacts (0 imported from store customers now), 5 leads (0 new), 2 segments"
    ]
    assert [model.objects.count() for model in counts] == before
