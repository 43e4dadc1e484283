"""CRM writes: contacts (and their import from store customers), leads and their moves
through the pipeline, conversion into a contact and a store customer, activities and
segments.

Each public function is one transaction that validates first and changes nothing when it
refuses (400 naming each bad field, 409 for a state that forbids the write). A lead is locked
(select_for_update) before its stage is checked, so two moves cannot both pass the check.
Store customers are made through store.customers.services only.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone

from erp.crm import segments
from erp.crm.choices import (
    CLOSED_STAGES,
    OPEN_STAGES,
    STAGE_PROBABILITY,
    ActivityKind,
    LeadStage,
    SegmentTarget,
)
from erp.crm.models import Activity, Contact, Lead, LeadStageChange, Segment
from store.common.errors import invalid_params, locked_or_404, not_found, rule_broken
from store.customers import services as customer_services
from store.customers.models import Customer
from store.settings import selectors as store_settings
from store.settings.sections import CURRENCY_CODES

PHONE_SHAPE = re.compile(r"^\+?[0-9][0-9 ()./-]*$")
IMPORT_BATCH = 500
MAX_VALUE = Decimal(10) ** 10


def store_currency() -> str:
    return str(store_settings.get_value("currency", "currency")).upper()


def phone_clean(value: str) -> str:
    """A phone number as typed, spaces collapsed: digits with an optional leading +, and
    spaces, dots, dashes, slashes or brackets between them; 6 to 15 digits (E.164's most).
    ValueError otherwise."""
    text = " ".join((value or "").split())
    if not text:
        return ""
    digits = sum(ch.isdigit() for ch in text)
    if not PHONE_SHAPE.match(text) or not 6 <= digits <= 15:
        raise ValueError(
            "Not a phone number: 6 to 15 digits, an optional leading +, and spaces, dots, "
            "dashes or brackets between them (e.g. +30 210 123 4567)."
        )
    return text


def _email_clean(value: str, name: str, problems: dict) -> str:
    text = (value or "").strip().lower()
    if text:
        try:
            validate_email(text)
        except DjangoValidationError:
            problems[name] = ["Not a valid e-mail address."]
    return text


@contextmanager
def _unique(error):
    """Raise `error` when the block breaks a unique constraint (a concurrent write took the
    value after the check), in a savepoint so the transaction goes on."""
    try:
        with transaction.atomic():
            yield
    except IntegrityError:
        raise error from None


TAKEN_CUSTOMER = {"customer_id": ["Another contact is linked to this customer."]}


def _user(user_id, name: str, problems: dict):
    """The active account of `user_id` (None stays None); a problem named `name` otherwise."""
    if user_id is None:
        return None
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        problems[name] = [f"No active account with id {user_id}."]
    return user


# --- Contacts -----------------------------------------------------------------------------------

CONTACT_FIELDS = (
    "name",
    "email",
    "phone",
    "company",
    "job_title",
    "website",
    "city",
    "country",
    "notes",
)


def _contact_values(fields: dict, contact: Contact | None) -> dict:
    """The contact fields cleaned (`owner_id` and `customer_id` as rows); 400 naming each
    problem."""
    problems: dict[str, list[str]] = {}
    values = {name: fields[name] for name in CONTACT_FIELDS if name in fields}
    if "name" in values or contact is None:
        values["name"] = (values.get("name") or "").strip()
        if not values["name"]:
            problems["name"] = ["A contact needs a name."]
    if "email" in values:
        values["email"] = _email_clean(values["email"], "email", problems)
    if "phone" in values:
        try:
            values["phone"] = phone_clean(values["phone"])
        except ValueError as exc:
            problems["phone"] = [str(exc)]
    if values.get("country"):
        values["country"] = values["country"].strip().upper()
        if values["country"] not in segments.COUNTRY_CODES:
            problems["country"] = ["An ISO 3166-1 alpha-2 country code, e.g. GR."]
    if "owner_id" in fields:
        values["owner"] = _user(fields["owner_id"], "owner_id", problems)
    if "customer_id" in fields:
        customer = None
        if fields["customer_id"] is not None:
            customer = Customer.objects.filter(pk=fields["customer_id"]).first()
            if customer is None:
                problems["customer_id"] = [f"No customer with id {fields['customer_id']}."]
            else:
                taken = Contact.objects.filter(customer=customer)
                if contact is not None:
                    taken = taken.exclude(pk=contact.pk)
                if taken.exists():
                    problems["customer_id"] = ["Another contact is linked to this customer."]
        values["customer"] = customer
    if problems:
        raise invalid_params(problems)
    return values


def contact_check(*, fields: dict, contact_id: int | None = None) -> None:
    """What contact_create/contact_update would refuse (the admin's form check)."""
    contact = Contact.objects.filter(pk=contact_id).first() if contact_id else None
    _contact_values(fields, contact)


@transaction.atomic
def contact_create(*, fields: dict, user=None) -> Contact:
    values = _contact_values(fields, None)
    if "owner" not in values and user is not None and user.is_authenticated:
        values["owner"] = user
    with _unique(invalid_params(TAKEN_CUSTOMER)):
        return Contact.objects.create(**values)


def _contact_for_update(contact_id: int) -> Contact:
    return locked_or_404(Contact, contact_id, "contact")


@transaction.atomic
def contact_update(*, contact_id: int, fields: dict) -> Contact:
    contact = _contact_for_update(contact_id)
    for name, value in _contact_values(fields, contact).items():
        setattr(contact, name, value)
    with _unique(invalid_params(TAKEN_CUSTOMER)):
        contact.save()
    return contact


@transaction.atomic
def contact_delete(*, contact_id: int) -> None:
    """Delete a contact and its activities; one that leads refer to is refused (409
    `in_use`): reassign or delete its leads first."""
    contact = _contact_for_update(contact_id)
    leads = Lead.objects.filter(contact=contact).count()
    if leads:
        raise rule_broken(
            f"Contact {contact.name!r} has {leads} lead(s); reassign or delete them first.",
            code="in_use",
            status=409,
        )
    contact.delete()


def _customer_name(customer: Customer) -> str:
    return customer.full_name or customer.company or customer.email


CUSTOMER_KEYS = ("name", "email", "phone", "company")


def _from_customer(customer: Customer) -> dict:
    """The contact fields a store customer gives (the customer is their source)."""
    return {
        "name": _customer_name(customer)[:200],
        "email": customer.email,
        "phone": customer.phone,
        "company": customer.company,
    }


def contacts_import_customers() -> dict:
    """See _import_customers; an import that meets a concurrent one (both linking the same
    customer) is refused whole (409 `import_conflict`): run it again."""
    try:
        return _import_customers()
    except IntegrityError:
        raise rule_broken(
            "Another import or link of the same customers ran at the same time; run it again.",
            code="import_conflict",
            status=409,
        ) from None


@transaction.atomic
def _import_customers() -> dict:
    """A contact for every store customer (anonymised ones left out), linked by the
    customer's id: a customer with a contact updates its name, e-mail, phone and company when
    they differ (else it is skipped); an unlinked contact with the customer's e-mail address
    is linked to it (updated); the others are created. Running it again creates nothing.
    A fixed number of queries per batch of customers; one transaction."""
    counts = {"created": 0, "updated": 0, "skipped": 0}
    customers = Customer.objects.filter(anonymised_at__isnull=True).order_by("pk")
    last_pk = 0
    while True:
        batch = list(customers.filter(pk__gt=last_pk)[:IMPORT_BATCH])
        if not batch:
            return counts
        last_pk = batch[-1].pk
        linked = {
            c.customer_id: c for c in Contact.objects.select_for_update().filter(customer__in=batch)
        }
        emails = {c.email for c in batch if c.pk not in linked}
        by_email: dict[str, Contact] = {}
        for contact in (
            Contact.objects.select_for_update()
            .filter(customer__isnull=True, email__in=emails)
            .order_by("pk")
        ):
            by_email.setdefault(contact.email, contact)
        new, changed = [], []
        for customer in batch:
            wanted = _from_customer(customer)
            contact = linked.get(customer.pk) or by_email.pop(customer.email, None)
            if contact is None:
                new.append(Contact(customer=customer, **wanted))
                continue
            differs = contact.customer_id != customer.pk or any(
                getattr(contact, k) != v for k, v in wanted.items()
            )
            if not differs:
                counts["skipped"] += 1
                continue
            contact.customer = customer
            for name, value in wanted.items():
                setattr(contact, name, value)
            contact.updated_at = timezone.now()
            changed.append(contact)
        Contact.objects.bulk_create(new)
        Contact.objects.bulk_update(changed, ["customer", *CUSTOMER_KEYS, "updated_at"])
        counts["created"] += len(new)
        counts["updated"] += len(changed)


ERASED_NAME = "Erased customer"
ERASED_CONTACT_FIELDS = ("email", "phone", "company", "job_title", "website", "city", "country")
ERASED_LEAD_FIELDS = ("contact_name", "email", "phone", "company")


def customer_erasure_requested(*, customer_id: int) -> None:
    """The store is erasing customer `customer_id` (deleting or anonymising it): after the
    commit, erase the personal data of its contacts (found now, while the link exists)."""
    contact_ids = list(Contact.objects.filter(customer_id=customer_id).values_list("pk", flat=True))
    if contact_ids:
        transaction.on_commit(lambda: contacts_erase(contact_ids=contact_ids))


@transaction.atomic
def contacts_erase(*, contact_ids: list[int]) -> int:
    """Erase the personal data of these contacts and of their leads' copies: the name becomes
    "Erased customer", the e-mail, phone, company, job title, website, city, country and notes
    empty, the customer link gone; the leads' person, e-mail, phone and company empty. Their
    leads and activities stay (the business history). Idempotent; answers the contacts
    changed."""
    blank = dict.fromkeys(ERASED_CONTACT_FIELDS, "")
    changed = Contact.objects.filter(pk__in=contact_ids).update(
        name=ERASED_NAME, notes="", customer=None, updated_at=timezone.now(), **blank
    )
    Lead.objects.filter(contact_id__in=contact_ids).update(
        updated_at=timezone.now(), **dict.fromkeys(ERASED_LEAD_FIELDS, "")
    )
    return changed


# --- Leads --------------------------------------------------------------------------------------

LEAD_FIELDS = (
    "title",
    "contact_name",
    "email",
    "phone",
    "company",
    "value",
    "currency",
    "probability",
    "expected_close_date",
    "source",
    "notes",
)


def _lead_values(fields: dict, lead: Lead | None) -> dict:
    problems: dict[str, list[str]] = {}
    values = {name: fields[name] for name in LEAD_FIELDS if name in fields}
    if "title" in values or lead is None:
        values["title"] = (values.get("title") or "").strip()
        if not values["title"]:
            problems["title"] = ["A lead needs a title."]
    if "email" in values:
        values["email"] = _email_clean(values["email"], "email", problems)
    if "phone" in values:
        try:
            values["phone"] = phone_clean(values["phone"])
        except ValueError as exc:
            problems["phone"] = [str(exc)]
    if "value" in values and not (values["value"] is not None and 0 <= values["value"] < MAX_VALUE):
        problems["value"] = ["An amount from 0 below 10^10, two places."]
    if "probability" in values and not (
        isinstance(values["probability"], int) and 0 <= values["probability"] <= 100
    ):
        problems["probability"] = ["A whole percentage from 0 to 100."]
    if values.get("currency"):
        values["currency"] = values["currency"].strip().upper()
        if values["currency"] not in CURRENCY_CODES:
            problems["currency"] = ["An ISO 4217 currency code, e.g. EUR."]
    elif "currency" in values or lead is None:
        values["currency"] = lead.currency if lead else store_currency()
    if "contact_id" in fields:
        contact = None
        if fields["contact_id"] is not None:
            contact = Contact.objects.filter(pk=fields["contact_id"]).first()
            if contact is None:
                problems["contact_id"] = [f"No contact with id {fields['contact_id']}."]
        values["contact"] = contact
    if "owner_id" in fields:
        values["owner"] = _user(fields["owner_id"], "owner_id", problems)
    if problems:
        raise invalid_params(problems)
    return values


def lead_check(*, fields: dict, lead_id: int | None = None) -> None:
    """What lead_create/lead_update would refuse (the admin's form check)."""
    lead = Lead.objects.filter(pk=lead_id).first() if lead_id else None
    if lead is not None:
        _lead_open(lead)
    _lead_values(fields, lead)


def _record_stage(lead: Lead, from_stage: str, *, user=None, note: str = "") -> None:
    LeadStageChange.objects.create(
        lead=lead,
        from_stage=from_stage,
        to_stage=lead.stage,
        note=note,
        changed_by=user if user is not None and user.is_authenticated else None,
    )


@transaction.atomic
def lead_create(*, fields: dict, user=None) -> Lead:
    """A new lead (stage `new`, or `stage` when given: an open one). Its probability is the
    stage's unless given; its owner the creator unless given."""
    values = _lead_values(fields, None)
    stage = fields.get("stage") or LeadStage.NEW
    if stage not in LeadStage.values:
        raise invalid_params({"stage": [f"One of {', '.join(OPEN_STAGES)}."]})
    if stage in CLOSED_STAGES:
        raise invalid_params(
            {"stage": ["A lead starts in an open stage; win or lose it with move-stage."]}
        )
    values.setdefault("probability", STAGE_PROBABILITY[stage])
    if "owner" not in values and user is not None and user.is_authenticated:
        values["owner"] = user
    lead = Lead.objects.create(stage=stage, **values)
    _record_stage(lead, "", user=user, note="Created.")
    return lead


def _lead_for_update(lead_id: int) -> Lead:
    return locked_or_404(Lead, lead_id, "lead")


def _lead_open(lead: Lead) -> None:
    if lead.stage in CLOSED_STAGES:
        raise rule_broken(
            f"The lead is {lead.stage}: a closed lead does not change.",
            code="lead_closed",
            status=409,
        )


@transaction.atomic
def lead_update(*, lead_id: int, fields: dict) -> Lead:
    """Only the fields given change; a won or lost lead is refused (409 `lead_closed`); the
    stage moves through lead_move_stage only."""
    lead = _lead_for_update(lead_id)
    _lead_open(lead)
    for name, value in _lead_values(fields, lead).items():
        setattr(lead, name, value)
    lead.save()
    return lead


@transaction.atomic
def lead_delete(*, lead_id: int) -> None:
    """Delete a lead with its activities and stage history."""
    lead = _lead_for_update(lead_id)
    lead.delete()


@transaction.atomic
def lead_move_stage(
    *,
    lead_id: int,
    stage: str,
    lost_reason: str = "",
    probability: int | None = None,
    note: str = "",
    user=None,
) -> Lead:
    """Move an open lead to `stage` (forwards or back), recording the move. Won and lost are
    terminal (409 `lead_closed`); moving to the stage it is in is refused (409
    `lead_stage_unchanged`); lost needs a `lost_reason` (400). Won sets the probability to
    100 and lost to 0; an open stage takes `probability`, else the stage's."""
    if stage not in LeadStage.values:
        raise invalid_params({"stage": [f"One of {', '.join(LeadStage.values)}."]})
    lead = _lead_for_update(lead_id)
    _lead_open(lead)
    if stage == lead.stage:
        raise rule_broken(f"The lead is already {stage}.", code="lead_stage_unchanged", status=409)
    lost_reason = (lost_reason or "").strip()
    if stage == LeadStage.LOST and not lost_reason:
        raise invalid_params({"lost_reason": ["Say why the lead was lost."]})
    if stage != LeadStage.LOST and lost_reason:
        raise invalid_params({"lost_reason": ["Only a lost lead has a lost reason."]})
    if stage in CLOSED_STAGES and probability is not None:
        raise invalid_params({"probability": ["A won lead is 100, a lost one 0."]})
    from_stage = lead.stage
    lead.stage = stage
    lead.probability = probability if probability is not None else STAGE_PROBABILITY[stage]
    if stage in CLOSED_STAGES:
        lead.closed_at = timezone.now()
        lead.lost_reason = lost_reason
    lead.save()
    _record_stage(lead, from_stage, user=user, note=note)
    return lead


@transaction.atomic
def lead_convert(*, lead_id: int, create_customer: bool = False, user=None) -> dict:
    """Give the lead a contact (when it has none: the oldest contact with the lead's e-mail
    address, else a new one from the lead's person, company, e-mail and phone) and,
    with `create_customer`, the store customer of the contact's e-mail address (found or made
    through store.customers, and linked to the contact). Idempotent: converting again finds
    what the first made. A lost lead is refused (409 `lead_lost`); a customer needs an e-mail
    address (409 `contact_has_no_email`)."""
    lead = _lead_for_update(lead_id)
    if lead.stage == LeadStage.LOST:
        raise rule_broken("A lost lead is not converted.", code="lead_lost", status=409)
    contact_created = customer_created = False
    contact = Contact.objects.select_for_update().filter(pk=lead.contact_id).first()
    if contact is None and lead.email:
        contact = (
            Contact.objects.select_for_update().filter(email=lead.email).order_by("pk").first()
        )
    if create_customer and not (contact.email if contact else lead.email):
        raise rule_broken(
            "A store customer needs an e-mail address: give the lead or its contact one.",
            code="contact_has_no_email",
            status=409,
        )
    if contact is None:
        name = lead.contact_name or lead.company or lead.email or lead.title
        contact = Contact.objects.create(
            name=name[:200],
            email=lead.email,
            phone=lead.phone,
            company=lead.company,
            owner=lead.owner,
        )
        contact_created = True
    if create_customer and contact.customer_id is None:
        existed = Customer.objects.filter(email=contact.email).exists()
        first, _, last = contact.name.partition(" ")
        customer = customer_services.customer_for_email(
            email=contact.email,
            defaults={
                "first_name": first[:100],
                "last_name": last.strip()[:100],
                "company": contact.company,
                "phone": contact.phone,
            },
        )
        if Contact.objects.filter(customer=customer).exclude(pk=contact.pk).exists():
            raise rule_broken(
                f"Store customer {customer.email} belongs to another contact already.",
                code="customer_has_contact",
                status=409,
            )
        customer_created = not existed
        contact.customer = customer
        taken = rule_broken(
            f"Store customer {customer.email} belongs to another contact already.",
            code="customer_has_contact",
            status=409,
        )
        with _unique(taken):
            contact.save(update_fields=["customer", "updated_at"])
    changed = []
    if lead.contact_id != contact.pk:
        lead.contact = contact
        changed.append("contact")
    if lead.converted_at is None:
        lead.converted_at = timezone.now()
        changed.append("converted_at")
    if changed:
        lead.save(update_fields=[*changed, "updated_at"])
    return {
        "lead": lead,
        "contact": contact,
        "contact_created": contact_created,
        "customer_created": customer_created,
    }


# --- Activities ---------------------------------------------------------------------------------

ACTIVITY_FIELDS = ("kind", "subject", "note", "due_at")


def _activity_values(fields: dict, activity: Activity | None) -> dict:
    problems: dict[str, list[str]] = {}
    values = {name: fields[name] for name in ACTIVITY_FIELDS if name in fields}
    if "subject" in values or activity is None:
        values["subject"] = (values.get("subject") or "").strip()
        if not values["subject"]:
            problems["subject"] = ["An activity needs a subject."]
    if activity is None:
        for name in ("kind", "due_at"):
            if not values.get(name):
                problems[name] = ["This field is required."]
    if values.get("kind") and values["kind"] not in ActivityKind.values:
        problems["kind"] = [f"One of {', '.join(ActivityKind.values)}."]
    if "contact_id" in fields:
        contact = None
        if fields["contact_id"] is not None:
            contact = Contact.objects.filter(pk=fields["contact_id"]).first()
            if contact is None:
                problems["contact_id"] = [f"No contact with id {fields['contact_id']}."]
        values["contact"] = contact
    if "lead_id" in fields:
        lead = None
        if fields["lead_id"] is not None:
            lead = Lead.objects.filter(pk=fields["lead_id"]).first()
            if lead is None:
                problems["lead_id"] = [f"No lead with id {fields['lead_id']}."]
        values["lead"] = lead
    if "assigned_to_id" in fields:
        values["assigned_to"] = _user(fields["assigned_to_id"], "assigned_to_id", problems)
    if "done" in fields:
        values["done"] = fields["done"]
        if activity is None or activity.done != fields["done"]:
            values["done_at"] = timezone.now() if fields["done"] else None
    if not problems:
        contact = values["contact"] if "contact" in values else getattr(activity, "contact", None)
        lead = values["lead"] if "lead" in values else getattr(activity, "lead", None)
        if contact is None and lead is None:
            problems["contact_id"] = ["Link the activity to a contact, a lead or both."]
        elif (
            contact is not None
            and lead is not None
            and lead.contact_id
            not in (
                None,
                contact.pk,
            )
        ):
            problems["lead_id"] = ["The lead belongs to another contact."]
    if problems:
        raise invalid_params(problems)
    return values


def activity_check(*, fields: dict, activity_id: int | None = None) -> None:
    activity = Activity.objects.filter(pk=activity_id).first() if activity_id else None
    _activity_values(fields, activity)


@transaction.atomic
def activity_create(*, fields: dict, user=None) -> Activity:
    """An activity linked to a contact and/or a lead (of that contact); assigned to its
    creator unless `assigned_to_id` says otherwise."""
    values = _activity_values(fields, None)
    authenticated = user is not None and user.is_authenticated
    if "assigned_to" not in values and authenticated:
        values["assigned_to"] = user
    return Activity.objects.create(created_by=user if authenticated else None, **values)


def _activity_for_update(activity_id: int) -> Activity:
    activity = (
        Activity.objects.select_for_update(of=("self",))
        .select_related("contact", "lead")
        .filter(pk=activity_id)
        .first()
    )
    if activity is None:
        raise not_found("activity", activity_id)
    return activity


@transaction.atomic
def activity_update(*, activity_id: int, fields: dict) -> Activity:
    """Only the fields given change; `done: true` marks it done (now), false reopens it."""
    activity = _activity_for_update(activity_id)
    for name, value in _activity_values(fields, activity).items():
        setattr(activity, name, value)
    activity.save()
    return activity


@transaction.atomic
def activity_delete(*, activity_id: int) -> None:
    _activity_for_update(activity_id).delete()


# --- Segments -----------------------------------------------------------------------------------


def _segment_values(fields: dict, segment: Segment | None) -> dict:
    problems: dict[str, list[str]] = {}
    values = {name: fields[name] for name in ("name", "description", "target") if name in fields}
    if "name" in values or segment is None:
        values["name"] = (values.get("name") or "").strip()
        if not values["name"]:
            problems["name"] = ["A segment needs a name."]
        else:
            taken = Segment.objects.filter(name=values["name"])
            if segment is not None:
                taken = taken.exclude(pk=segment.pk)
            if taken.exists():
                problems["name"] = [f"A segment named {values['name']!r} exists."]
    target = values.get("target") or (segment.target if segment else "")
    if not target:
        problems["target"] = ["This field is required."]
    elif target not in SegmentTarget.values:
        problems["target"] = [f"One of {', '.join(SegmentTarget.values)}."]
        target = ""
    if "rules" in fields or segment is None or "target" in values:
        rules = fields.get("rules", segment.rules if segment else None)
        if rules is None:
            problems["rules"] = ["This field is required."]
        elif target:
            values["rules"], rule_problems = segments.rules_clean(target, rules)
            problems |= rule_problems
    if problems:
        raise invalid_params(problems)
    return values


def segment_check(*, fields: dict, segment_id: int | None = None) -> None:
    segment = Segment.objects.filter(pk=segment_id).first() if segment_id else None
    _segment_values(fields, segment)


def _name_taken() -> Exception:
    return invalid_params({"name": ["A segment with this name exists."]})


@transaction.atomic
def segment_create(*, fields: dict) -> Segment:
    values = _segment_values(fields, None)
    with _unique(_name_taken()):
        return Segment.objects.create(**values)


def _segment_for_update(segment_id: int) -> Segment:
    return locked_or_404(Segment, segment_id, "segment")


@transaction.atomic
def segment_update(*, segment_id: int, fields: dict) -> Segment:
    """Only the fields given change; a changed `target` needs rules valid for it."""
    segment = _segment_for_update(segment_id)
    for name, value in _segment_values(fields, segment).items():
        setattr(segment, name, value)
    with _unique(_name_taken()):
        segment.save()
    return segment


@transaction.atomic
def segment_delete(*, segment_id: int) -> None:
    _segment_for_update(segment_id).delete()
