"""Demo data of the ERP's CRM for `manage.py seed_demo`, through the services: the store's
customers imported as contacts, two prospects, leads across the pipeline (one won, one lost),
their activities and two segments. Idempotent: contacts by e-mail, leads by title, segments
by name; activities only with a new lead."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.utils import timezone

from erp.crm import services
from erp.crm.models import Contact, Lead, Segment

PROSPECTS = (
    {
        "name": "Eleni Papadopoulou",
        "email": "eleni@olive-hotels.example",
        "phone": "+30 210 555 0101",
        "company": "Olive Hotels",
        "job_title": "Purchasing manager",
        "city": "Athens",
        "country": "GR",
    },
    {
        "name": "Marco Rossi",
        "email": "marco@trattoria.example",
        "phone": "+39 06 555 0199",
        "company": "Trattoria Roma",
        "city": "Rome",
        "country": "IT",
    },
)
# (title, prospect's e-mail, value, stage, lost reason)
LEADS = (
    ("Linen for 40 hotel rooms", "eleni@olive-hotels.example", "8400.00", "proposition", ""),
    ("Table linen, yearly contract", "marco@trattoria.example", "2600.00", "negotiation", ""),
    ("Spa towels", "eleni@olive-hotels.example", "1200.00", "won", ""),
    ("Uniforms", "marco@trattoria.example", "3100.00", "lost", "Chose a local supplier"),
    ("Website enquiry: bulk cushions", "", "450.00", "new", ""),
)
SEGMENTS = (
    {
        "name": "Greek contacts",
        "target": "contacts",
        "rules": {"conditions": [{"field": "country", "op": "eq", "value": "GR"}]},
    },
    {
        "name": "Customers to win back",
        "description": "Bought before, nothing in the last 90 days.",
        "target": "customers",
        "rules": {
            "conditions": [
                {"field": "order_count", "op": "gte", "value": 1},
                {"field": "last_order_at", "op": "not_within_days", "value": 90},
            ]
        },
    },
)


def _lead(title: str, email: str, value: str, stage: str, lost_reason: str) -> bool:
    if Lead.objects.filter(title=title).exists():
        return False
    contact = Contact.objects.filter(email=email).order_by("pk").first() if email else None
    fields = {"title": title, "value": Decimal(value), "source": "website"}
    if contact is not None:
        fields["contact_id"] = contact.pk
    else:
        fields |= {"contact_name": "Nikos K.", "email": "nikos@example.com"}
    lead = services.lead_create(fields=fields)
    if stage != "new":
        services.lead_move_stage(lead_id=lead.pk, stage=stage, lost_reason=lost_reason)
    now = timezone.now()
    link = {"lead_id": lead.pk, **({"contact_id": contact.pk} if contact else {})}
    if stage not in ("won", "lost"):
        services.activity_create(
            fields={"kind": "call", "subject": f"Follow up: {title}", "due_at": now, **link}
        )
        services.activity_create(
            fields={
                "kind": "meeting",
                "subject": f"Present the offer: {title}",
                "due_at": now + dt.timedelta(days=3),
                **link,
            }
        )
    return True


def seed() -> list[str]:
    imported = services.contacts_import_customers()
    for prospect in PROSPECTS:
        if not Contact.objects.filter(email=prospect["email"]).exists():
            services.contact_create(fields=dict(prospect))
    made = sum(_lead(*row) for row in LEADS)
    for segment in SEGMENTS:
        if not Segment.objects.filter(name=segment["name"]).exists():
            services.segment_create(fields=dict(segment))
    return [
        f"ERP CRM: {Contact.objects.count()} contacts ({imported['created']} imported from "
        f"store customers now), {Lead.objects.count()} leads ({made} new), "
        f"{Segment.objects.count()} segments"
    ]
