"""Bodies and answers of the CRM routes. Money is a decimal string; times UTC ISO 8601."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from erp.core.api.base import ListQuery, currency_field, optional_text, page_serializer
from erp.crm.choices import (
    STAGE_ORDER,
    ActivityKind,
    LeadSource,
    LeadStage,
    RfmLabel,
    SegmentTarget,
)
from erp.crm.selectors import (
    ACTIVITY_ORDERINGS,
    CONTACT_ORDERINGS,
    LEAD_ORDERINGS,
    RFM_ORDERINGS,
)
from store.common.addresses import CountryField
from store.common.formats import iso
from store.common.money import MoneyField, money_str
from store.common.pagination import named_page as named_page  # the views' s.named_page
from store.common.params import (
    ChoiceListField,
    StrictBooleanField,
    StrictCharField,
)


def _user_id(help_text: str):
    return IdField(required=False, allow_null=True, help_text=help_text)


class CrmUserRefSerializer(serializers.Serializer):
    id = IntegerField()
    email = serializers.CharField()
    name = serializers.CharField()


def user_ref(user) -> dict | None:
    if user is None:
        return None
    return {"id": user.pk, "email": user.email, "name": getattr(user, "name", "") or ""}


# --- Contacts -----------------------------------------------------------------------------------


class ContactWriteSerializer(serializers.Serializer):
    name = StrictCharField(max_length=200, help_text="A person's or company's name.")
    email = serializers.EmailField(max_length=254, required=False, allow_blank=True)
    phone = optional_text(
        40, help_text="6 to 15 digits, an optional leading +, spaces/dots/dashes/brackets."
    )
    company = optional_text(200)
    job_title = optional_text(100)
    website = serializers.URLField(max_length=255, required=False, allow_blank=True)
    city = optional_text(100)
    country = CountryField(required=False, allow_blank=True)
    notes = optional_text(5000)
    owner_id = _user_id("The salesperson in charge (an account); default: the creator.")
    customer_id = IdField(
        required=False, allow_null=True, help_text="The store customer this contact is."
    )


class ContactListQuerySerializer(ListQuery):
    search = serializers.CharField(
        required=False,
        max_length=200,
        help_text="Words, each in the name, e-mail, company or phone.",
    )
    country = CountryField(required=False)
    owner_id = IdField(required=False)
    company = serializers.CharField(required=False, max_length=200, help_text="Exactly (any case).")
    is_customer = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="Linked to a store customer."
    )
    ordering = serializers.ChoiceField(
        choices=CONTACT_ORDERINGS, required=False, help_text="Default: name."
    )


class CrmCustomerRefSerializer(serializers.Serializer):
    id = IntegerField()
    email = serializers.CharField()


class ContactSerializer(serializers.Serializer):
    id = IntegerField()
    name = serializers.CharField()
    email = serializers.CharField()
    phone = serializers.CharField()
    company = serializers.CharField()
    job_title = serializers.CharField()
    website = serializers.CharField()
    city = serializers.CharField()
    country = serializers.CharField()
    notes = serializers.CharField()
    owner = CrmUserRefSerializer(allow_null=True)
    customer = CrmCustomerRefSerializer(allow_null=True)
    lead_count = IntegerField()
    open_activity_count = IntegerField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


CONTACT_TEXT = ("name", "email", "phone", "company", "job_title", "website", "city", "country")


def customer_ref(customer) -> dict | None:
    return None if customer is None else {"id": customer.pk, "email": customer.email}


def contact_data(contact) -> dict:
    return {
        "id": contact.pk,
        **{name: getattr(contact, name) for name in CONTACT_TEXT},
        "notes": contact.notes,
        "owner": user_ref(contact.owner),
        "customer": customer_ref(contact.customer),
        "lead_count": getattr(contact, "lead_count", 0),
        "open_activity_count": getattr(contact, "open_activity_count", 0),
        "created_at": iso(contact.created_at),
        "updated_at": iso(contact.updated_at),
    }


ContactPageSerializer = page_serializer("ContactPageSerializer", "contacts", ContactSerializer)


class ContactImportSerializer(serializers.Serializer):
    created = IntegerField()
    updated = IntegerField()
    skipped = IntegerField()


# --- Leads --------------------------------------------------------------------------------------


class LeadUpdateSerializer(serializers.Serializer):
    title = StrictCharField(max_length=200, required=False)
    contact_id = IdField(required=False, allow_null=True, help_text="A contact.")
    contact_name = optional_text(200, help_text="The person, before a contact exists.")
    email = serializers.EmailField(max_length=254, required=False, allow_blank=True)
    phone = optional_text(40)
    company = optional_text(200)
    value = MoneyField(required=False, help_text="Expected revenue (two places).")
    currency = currency_field(help_text="ISO 4217; default: the store's currency.")
    probability = IntegerField(min_value=0, max_value=100, required=False, help_text="0-100 %")
    expected_close_date = serializers.DateField(required=False, allow_null=True)
    owner_id = _user_id("The salesperson (an account); default: the creator.")
    source = serializers.ChoiceField(choices=LeadSource.choices, required=False, allow_blank=True)
    notes = optional_text(5000)


class LeadCreateSerializer(LeadUpdateSerializer):
    title = StrictCharField(max_length=200)
    stage = serializers.ChoiceField(
        choices=LeadStage.choices, required=False, help_text="An open stage; default: new."
    )


class LeadMoveSerializer(serializers.Serializer):
    stage = serializers.ChoiceField(choices=LeadStage.choices)
    lost_reason = optional_text(500, help_text="Required when the stage is lost; only then.")
    probability = IntegerField(
        min_value=0, max_value=100, required=False, help_text="Open stages: default the stage's."
    )
    note = optional_text(500, help_text="Kept in the lead's history.")


class LeadConvertSerializer(serializers.Serializer):
    create_customer = StrictBooleanField(
        required=False,
        default=False,
        help_text="Also find or make the store customer of the contact's e-mail address.",
    )


class LeadListQuerySerializer(ListQuery):
    stage = ChoiceListField(choices=STAGE_ORDER)
    open = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="true: open; false: won or lost."
    )
    owner_id = IdField(required=False)
    contact_id = IdField(required=False)
    source = serializers.ChoiceField(choices=LeadSource.choices, required=False)
    currency = currency_field()
    close_from = serializers.DateField(required=False, help_text="Expected close on or after.")
    close_to = serializers.DateField(required=False, help_text="Expected close on or before.")
    search = serializers.CharField(
        required=False, max_length=200, help_text="In the title, person, company, e-mail."
    )
    ordering = serializers.ChoiceField(
        choices=LEAD_ORDERINGS, required=False, help_text="Default: -created_at."
    )


class CrmContactRefSerializer(serializers.Serializer):
    id = IntegerField()
    name = serializers.CharField()
    email = serializers.CharField()


def contact_ref(contact) -> dict | None:
    return (
        None
        if contact is None
        else {"id": contact.pk, "name": contact.name, "email": contact.email}
    )


class LeadStageChangeSerializer(serializers.Serializer):
    from_stage = serializers.CharField(help_text="Empty on the creation row.")
    to_stage = serializers.CharField()
    note = serializers.CharField()
    changed_by = CrmUserRefSerializer(allow_null=True)
    changed_at = serializers.DateTimeField()


class LeadSerializer(serializers.Serializer):
    id = IntegerField()
    title = serializers.CharField()
    contact = CrmContactRefSerializer(allow_null=True)
    contact_name = serializers.CharField()
    email = serializers.CharField()
    phone = serializers.CharField()
    company = serializers.CharField()
    value = serializers.CharField()
    currency = serializers.CharField()
    stage = serializers.ChoiceField(choices=LeadStage.choices)
    probability = IntegerField()
    expected_close_date = serializers.DateField(allow_null=True)
    owner = CrmUserRefSerializer(allow_null=True)
    source = serializers.CharField()
    lost_reason = serializers.CharField()
    notes = serializers.CharField()
    closed_at = serializers.DateTimeField(allow_null=True)
    converted_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    history = LeadStageChangeSerializer(
        many=True, required=False, help_text="Its stage moves (one lead only, not in lists)."
    )


LEAD_TEXT = ("title", "contact_name", "email", "phone", "company", "currency", "stage")


def lead_data(lead, *, history: bool = False) -> dict:
    out = {
        "id": lead.pk,
        "contact": contact_ref(lead.contact),
        **{name: getattr(lead, name) for name in LEAD_TEXT},
        "value": money_str(lead.value),
        "probability": lead.probability,
        "expected_close_date": lead.expected_close_date.isoformat()
        if lead.expected_close_date
        else None,
        "owner": user_ref(lead.owner),
        "source": lead.source,
        "lost_reason": lead.lost_reason,
        "notes": lead.notes,
        "closed_at": iso(lead.closed_at),
        "converted_at": iso(lead.converted_at),
        "created_at": iso(lead.created_at),
        "updated_at": iso(lead.updated_at),
    }
    if history:
        out["history"] = [
            {
                "from_stage": change.from_stage,
                "to_stage": change.to_stage,
                "note": change.note,
                "changed_by": user_ref(change.changed_by),
                "changed_at": iso(change.changed_at),
            }
            for change in lead.stage_changes.all()
        ]
    return out


LeadPageSerializer = page_serializer("LeadPageSerializer", "leads", LeadSerializer)


class LeadConvertResultSerializer(serializers.Serializer):
    lead = LeadSerializer()
    contact = ContactSerializer()
    contact_created = serializers.BooleanField()
    customer_created = serializers.BooleanField()


class CrmPipelineQuerySerializer(serializers.Serializer):
    owner_id = IdField(required=False, help_text="One salesperson's leads only.")


class CrmPipelineTotalSerializer(serializers.Serializer):
    currency = serializers.CharField()
    value = serializers.CharField()
    weighted_value = serializers.CharField(help_text="Sum of value x probability / 100.")


class CrmPipelineStageSerializer(serializers.Serializer):
    stage = serializers.ChoiceField(choices=LeadStage.choices)
    label = serializers.CharField()
    closed = serializers.BooleanField()
    count = IntegerField()
    totals = CrmPipelineTotalSerializer(many=True, help_text="Per currency.")


class CrmPipelineSerializer(serializers.Serializer):
    stages = CrmPipelineStageSerializer(many=True)


def pipeline_data(stages: list[dict]) -> dict:
    return {
        "stages": [
            {
                **stage,
                "totals": [
                    {
                        "currency": total["currency"],
                        "value": money_str(total["value"]),
                        "weighted_value": money_str(total["weighted_value"]),
                    }
                    for total in stage["totals"]
                ],
            }
            for stage in stages
        ]
    }


# --- Activities ---------------------------------------------------------------------------------


class ActivityUpdateSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=ActivityKind.choices, required=False)
    subject = StrictCharField(max_length=200, required=False)
    note = optional_text(5000)
    due_at = serializers.DateTimeField(required=False, help_text="ISO 8601 (UTC if no offset).")
    done = StrictBooleanField(required=False, help_text="true marks it done now; false reopens.")
    contact_id = IdField(required=False, allow_null=True)
    lead_id = IdField(required=False, allow_null=True)
    assigned_to_id = _user_id("An account; default: the creator.")


class ActivityCreateSerializer(ActivityUpdateSerializer):
    kind = serializers.ChoiceField(choices=ActivityKind.choices)
    subject = StrictCharField(max_length=200)
    due_at = serializers.DateTimeField(help_text="ISO 8601 (UTC if no offset).")


class ActivityListQuerySerializer(ListQuery):
    kind = ChoiceListField(choices=ActivityKind.values)
    done = serializers.BooleanField(required=False, allow_null=True, default=None)
    contact_id = IdField(required=False)
    lead_id = IdField(required=False)
    assigned_to_id = IdField(required=False)
    due_from = serializers.DateField(required=False, help_text="Due on or after (UTC day).")
    due_to = serializers.DateField(required=False, help_text="Due on or before (UTC day).")
    ordering = serializers.ChoiceField(
        choices=ACTIVITY_ORDERINGS, required=False, help_text="Default: due_at."
    )


class ActivityUpcomingQuerySerializer(ActivityListQuerySerializer):
    days = IntegerField(
        min_value=1, max_value=365, required=False, default=7, help_text="Ahead (default 7)."
    )


class CrmLeadRefSerializer(serializers.Serializer):
    id = IntegerField()
    title = serializers.CharField()
    stage = serializers.CharField()


class ActivitySerializer(serializers.Serializer):
    id = IntegerField()
    kind = serializers.ChoiceField(choices=ActivityKind.choices)
    subject = serializers.CharField()
    note = serializers.CharField()
    due_at = serializers.DateTimeField()
    done = serializers.BooleanField()
    done_at = serializers.DateTimeField(allow_null=True)
    overdue = serializers.BooleanField(help_text="Not done and due before now.")
    contact = CrmContactRefSerializer(allow_null=True)
    lead = CrmLeadRefSerializer(allow_null=True)
    assigned_to = CrmUserRefSerializer(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def activity_data(activity, now) -> dict:
    lead = activity.lead
    return {
        "id": activity.pk,
        "kind": activity.kind,
        "subject": activity.subject,
        "note": activity.note,
        "due_at": iso(activity.due_at),
        "done": activity.done,
        "done_at": iso(activity.done_at),
        "overdue": not activity.done and activity.due_at < now,
        "contact": contact_ref(activity.contact),
        "lead": None if lead is None else {"id": lead.pk, "title": lead.title, "stage": lead.stage},
        "assigned_to": user_ref(activity.assigned_to),
        "created_at": iso(activity.created_at),
        "updated_at": iso(activity.updated_at),
    }


ActivityPageSerializer = page_serializer("ActivityPageSerializer", "activities", ActivitySerializer)


# --- Dashboard ----------------------------------------------------------------------------------


class CrmDashboardQuerySerializer(serializers.Serializer):
    date_from = serializers.DateField(required=False, help_text="Default: the month's first day.")
    date_to = serializers.DateField(required=False, help_text="Default: today (UTC).")

    def validate(self, attrs):
        if (
            attrs.get("date_from")
            and attrs.get("date_to")
            and attrs["date_from"] > attrs["date_to"]
        ):
            raise serializers.ValidationError({"date_to": "On or after date_from."})
        return attrs


class CrmDashboardPeriodSerializer(serializers.Serializer):
    date_from = serializers.DateField()
    date_to = serializers.DateField()


class CrmDashboardContactsSerializer(serializers.Serializer):
    total = IntegerField()
    customers = IntegerField(help_text="Linked to a store customer.")


class CrmDashboardLeadsSerializer(serializers.Serializer):
    open = IntegerField()
    won = IntegerField(help_text="Won in the period.")
    lost = IntegerField(help_text="Lost in the period.")
    created = IntegerField(help_text="Created in the period.")


class CrmDashboardPipelineSerializer(serializers.Serializer):
    currency = serializers.CharField()
    open_value = serializers.CharField()
    weighted_value = serializers.CharField()
    won_value = serializers.CharField(help_text="Won in the period.")
    lost_value = serializers.CharField(help_text="Lost in the period.")


class CrmDashboardActivitiesSerializer(serializers.Serializer):
    overdue = IntegerField()
    due_today = IntegerField(help_text="From now to the end of the UTC day.")
    upcoming = IntegerField(help_text="From now to 7 days ahead.")
    done_in_period = IntegerField()


class CrmDashboardSerializer(serializers.Serializer):
    period = CrmDashboardPeriodSerializer()
    contacts = CrmDashboardContactsSerializer()
    leads = CrmDashboardLeadsSerializer()
    pipeline = CrmDashboardPipelineSerializer(many=True, help_text="Per currency.")
    activities = CrmDashboardActivitiesSerializer()


def dashboard_data(data: dict) -> dict:
    money_keys = ("open_value", "weighted_value", "won_value", "lost_value")
    return {
        **data,
        "period": {key: value.isoformat() for key, value in data["period"].items()},
        "pipeline": [
            {**row, **{key: money_str(row[key]) for key in money_keys}} for row in data["pipeline"]
        ],
    }


# --- Segments -----------------------------------------------------------------------------------


class SegmentConditionSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="A field of the target (see the description).")
    op = serializers.CharField(help_text="An operator of the field's type.")
    value = serializers.JSONField(help_text="A text, number, date, boolean or list of texts.")


class SegmentRulesSerializer(serializers.Serializer):
    match = serializers.ChoiceField(choices=["all", "any"], required=False, default="all")
    conditions = SegmentConditionSerializer(many=True)


class SegmentUpdateSerializer(serializers.Serializer):
    name = StrictCharField(max_length=200, required=False)
    description = optional_text(500)
    target = serializers.ChoiceField(choices=SegmentTarget.choices, required=False)
    rules = serializers.JSONField(
        required=False,
        help_text='{"match": "all"|"any", "conditions": [{"field", "op", "value"}]} (at most '
        "20 conditions), checked against the target's fields and operators.",
    )


class SegmentCreateSerializer(SegmentUpdateSerializer):
    name = StrictCharField(max_length=200)
    target = serializers.ChoiceField(choices=SegmentTarget.choices)
    rules = serializers.JSONField(help_text=SegmentUpdateSerializer().fields["rules"].help_text)


class SegmentListQuerySerializer(ListQuery):
    target = serializers.ChoiceField(choices=SegmentTarget.choices, required=False)


class SegmentSerializer(serializers.Serializer):
    id = IntegerField()
    name = serializers.CharField()
    description = serializers.CharField()
    target = serializers.ChoiceField(choices=SegmentTarget.choices)
    rules = SegmentRulesSerializer()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def segment_data(segment) -> dict:
    return {
        "id": segment.pk,
        "name": segment.name,
        "description": segment.description,
        "target": segment.target,
        "rules": segment.rules,
        "created_at": iso(segment.created_at),
        "updated_at": iso(segment.updated_at),
    }


SegmentPageSerializer = page_serializer("SegmentPageSerializer", "segments", SegmentSerializer)


class SegmentMemberSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["contact", "customer"])
    id = IntegerField()
    name = serializers.CharField()
    email = serializers.CharField()
    company = serializers.CharField()
    phone = serializers.CharField()
    customer_id = IntegerField(allow_null=True, help_text="The store customer (if any).")
    order_count = IntegerField(allow_null=True, help_text="Customers: paid orders.")
    total_spent = serializers.CharField(allow_null=True, help_text="Customers: paid orders' sum.")
    last_order_at = serializers.DateTimeField(allow_null=True, help_text="Customers.")


SegmentMemberPageSerializer = page_serializer(
    "SegmentMemberPageSerializer", "members", SegmentMemberSerializer
)


def member_data(row) -> dict:
    if hasattr(row, "paid_order_count"):
        return {
            "type": "customer",
            "id": row.pk,
            "name": row.full_name,
            "email": row.email,
            "company": row.company,
            "phone": row.phone,
            "customer_id": row.pk,
            "order_count": row.paid_order_count,
            "total_spent": money_str(row.paid_total),
            "last_order_at": iso(row.last_order_at),
        }
    return {
        "type": "contact",
        "id": row.pk,
        "name": row.name,
        "email": row.email,
        "company": row.company,
        "phone": row.phone,
        "customer_id": row.customer_id,
        "order_count": None,
        "total_spent": None,
        "last_order_at": None,
    }


# --- RFM ----------------------------------------------------------------------------------------


class RfmQuerySerializer(ListQuery):
    currency = currency_field(help_text="Orders in this currency (default: the store's).")
    segment = serializers.ChoiceField(
        choices=RfmLabel.choices, required=False, help_text="Only the customers of this label."
    )
    ordering = serializers.ChoiceField(
        choices=RFM_ORDERINGS,
        required=False,
        help_text="Default: -monetary. recency: the most recent first.",
    )


class RfmScoresSerializer(serializers.Serializer):
    recency = IntegerField(help_text="1-5: 5 the most recent.")
    frequency = IntegerField(help_text="1-5: 5 the most orders.")
    monetary = IntegerField(help_text="1-5: 5 the most spent.")


class RfmRowSerializer(serializers.Serializer):
    customer = CrmCustomerRefSerializer(allow_null=True)
    name = serializers.CharField()
    last_order_at = serializers.DateTimeField()
    days_since_last_order = IntegerField()
    frequency = IntegerField(help_text="Paid orders.")
    monetary = serializers.CharField(help_text="Their totals' sum.")
    currency = serializers.CharField()
    scores = RfmScoresSerializer()
    score = serializers.CharField(help_text='The three scores as one code, e.g. "545".')
    segment = serializers.ChoiceField(choices=RfmLabel.choices)


RfmPageSerializer = page_serializer("RfmPageSerializer", "customers", RfmRowSerializer)


def rfm_data(row: dict) -> dict:
    customer = row["customer"]
    scores = row["scores"]
    return {
        "customer": customer_ref(customer),
        "name": customer.full_name if customer else "",
        "last_order_at": iso(row["last_order_at"]),
        "days_since_last_order": row["days_since_last_order"],
        "frequency": row["frequency"],
        "monetary": money_str(row["monetary"]),
        "currency": row["currency"],
        "scores": scores,
        "score": f"{scores['recency']}{scores['frequency']}{scores['monetary']}",
        "segment": row["segment"],
    }
