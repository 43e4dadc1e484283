"""CRM routes (ec_manage_crm, behind the ERP's licence gate): thin views over
erp.crm.selectors and services."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from erp.core.views import ERPView
from erp.crm import segments, selectors, services
from store.common.capabilities import manage
from store.common.params import validate_body, validate_query
from store.common.resources import StoreResourceView
from store.common.schema import store_schema

from . import serializers as s

TAG = "CRM"
ACCESS = {"*": manage("crm")}
LEAD_ID = OpenApiParameter("lead_id", int, OpenApiParameter.PATH)
SEGMENT_ID = OpenApiParameter("segment_id", int, OpenApiParameter.PATH)
LEAD_CLOSED = "The lead is won or lost (`lead_closed`)."


class CrmView(ERPView):
    access = ACCESS
    openapi_tag = TAG


class CrmResourceView(ERPView, StoreResourceView):
    access = ACCESS
    openapi_tag = TAG


def _segment_fields() -> str:
    parts = []
    for target, fields in segments.FIELDS.items():
        listed = ", ".join(f"`{name}` ({kind})" for name, (kind, _column) in fields.items())
        parts.append(f"{target}: {listed}")
    ops = "; ".join(f"{kind}: {', '.join(ops)}" for kind, ops in segments.OPERATORS.items())
    return f"Fields by target: {'. '.join(parts)}. Operators by type: {ops}."


# --- Contacts -----------------------------------------------------------------------------------


class ContactListView(CrmView):
    @store_schema(
        summary="List contacts",
        parameters=[s.ContactListQuerySerializer],
        responses={200: s.ContactPageSerializer},
        description="`{contacts, total, page, per_page, total_pages}`, by name unless "
        "`ordering` says otherwise. `search`: each word in the name, e-mail, company or "
        "phone (a number also in the phone's digits: 2079460958 finds +44 20 7946 0958); "
        "filters `country`, `owner_id`, `company`, `is_customer`.",
    )
    def get(self, request):
        query = validate_query(s.ContactListQuerySerializer, request.query_params)
        return Response(s.named_page("contacts", selectors.contact_page(query), s.contact_data))

    @store_schema(
        summary="Create a contact",
        request=s.ContactWriteSerializer,
        responses={201: s.ContactSerializer},
        description="`name` is required; `email` and `phone` are checked (400 naming them); "
        "`country` ISO 3166-1; `owner_id` defaults to the caller; `customer_id` links a store "
        "customer (one contact each). Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.ContactWriteSerializer, request.data)
        contact = services.contact_create(fields=dict(fields), user=request.user)
        return Response(
            s.contact_data(selectors.contact_get(contact.pk)), status=status.HTTP_201_CREATED
        )


class ContactDetailView(CrmResourceView):
    resource = "contact"
    id_kwarg = "contact_id"
    output_serializer = s.ContactSerializer
    write_serializer = s.ContactWriteSerializer
    descriptions = {
        "patch": "Only the fields sent change.",
        "put": "Same as PATCH.",
        "delete": "Deletes the contact with its activities. A contact that leads refer to: "
        "409 `in_use` (reassign or delete the leads first).",
    }
    errors = {"delete": {409: "Leads refer to the contact (`in_use`)."}}

    def read(self, request, pk):
        return s.contact_data(selectors.contact_get(pk))

    def update(self, request, pk, fields):
        services.contact_update(contact_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.contact_delete(contact_id=pk)


class ContactImportCustomersView(CrmView):
    @store_schema(
        summary="Import store customers as contacts",
        request=None,
        responses={200: s.ContactImportSerializer},
        errors={409: "A concurrent import linked the same customers (`import_conflict`)."},
        description="A contact for every store customer (anonymised ones left out), linked "
        "by the customer's id. A linked contact takes the customer's name, e-mail, phone and "
        "company when they differ (`updated`), else it is `skipped`; an unlinked contact with "
        "the customer's e-mail address is linked (`updated`); the rest are `created`. Running "
        "it again creates nothing. One transaction.",
    )
    def post(self, request):
        return Response(services.contacts_import_customers())


# --- Leads --------------------------------------------------------------------------------------


def lead_body(lead_id: int) -> dict:
    return s.lead_data(selectors.lead_get(lead_id), history=True)


class LeadListView(CrmView):
    @store_schema(
        summary="List leads",
        parameters=[s.LeadListQuerySerializer],
        responses={200: s.LeadPageSerializer},
        description="`{leads, total, page, per_page, total_pages}`, newest first unless "
        "`ordering` says otherwise. Filters: `stage` (one or several, comma-separated), "
        "`open`, `owner_id`, `contact_id`, `source`, `currency`, `close_from`/`close_to`, "
        "`search`.",
    )
    def get(self, request):
        query = validate_query(s.LeadListQuerySerializer, request.query_params)
        return Response(s.named_page("leads", selectors.lead_page(query), s.lead_data))

    @store_schema(
        summary="Create a lead",
        request=s.LeadCreateSerializer,
        responses={201: s.LeadSerializer},
        description="`title` is required. Stages, in order: new, qualified, proposition, "
        "negotiation, then won or lost (terminal). A lead starts in an open stage (default "
        "new) with the stage's probability (10, 30, 60, 80 %) unless `probability` is sent. "
        "`value` in `currency` (default the store's); `owner_id` defaults to the caller. "
        "Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.LeadCreateSerializer, request.data)
        lead = services.lead_create(fields=dict(fields), user=request.user)
        return Response(lead_body(lead.pk), status=status.HTTP_201_CREATED)


class LeadDetailView(CrmResourceView):
    resource = "lead"
    id_kwarg = "lead_id"
    output_serializer = s.LeadSerializer
    write_serializer = s.LeadUpdateSerializer
    descriptions = {
        "get": "The lead with its stage history.",
        "patch": "Only the fields sent change; the stage moves by move-stage. A won or lost "
        "lead does not change (409 `lead_closed`).",
        "put": "Same as PATCH.",
        "delete": "Deletes the lead with its activities and history.",
    }
    errors = {"patch": {409: LEAD_CLOSED}, "put": {409: LEAD_CLOSED}}

    def read(self, request, pk):
        return lead_body(pk)

    def update(self, request, pk, fields):
        services.lead_update(lead_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.lead_delete(lead_id=pk)


class LeadPipelineView(CrmView):
    @store_schema(
        summary="The sales pipeline",
        parameters=[s.CrmPipelineQuerySerializer],
        responses={200: s.CrmPipelineSerializer},
        description="Every stage in order (new, qualified, proposition, negotiation, won, "
        "lost) with its lead count and, per currency, the summed value and the value "
        "weighted by probability. `owner_id`: one salesperson's.",
    )
    def get(self, request):
        query = validate_query(s.CrmPipelineQuerySerializer, request.query_params)
        return Response(s.pipeline_data(selectors.pipeline(query)))


class LeadMoveStageView(CrmView):
    @store_schema(
        summary="Move a lead to another stage",
        parameters=[LEAD_ID],
        request=s.LeadMoveSerializer,
        responses={200: s.LeadSerializer},
        errors={
            409: "The lead is won or lost (`lead_closed`: terminal) or already in the stage "
            "(`lead_stage_unchanged`)."
        },
        description="An open lead moves to any stage, forwards or back, recorded in its "
        "history. `lost` needs `lost_reason` (400); won sets the probability to 100, lost to "
        "0, an open stage takes `probability` or the stage's.",
    )
    def post(self, request, lead_id):
        fields = validate_body(s.LeadMoveSerializer, request.data)
        services.lead_move_stage(lead_id=lead_id, user=request.user, **fields)
        return Response(lead_body(lead_id))


class LeadConvertView(CrmView):
    @store_schema(
        summary="Convert a lead into a contact (and a store customer)",
        parameters=[LEAD_ID],
        request=s.LeadConvertSerializer,
        responses={200: s.LeadConvertResultSerializer},
        errors={
            409: "The lead is lost (`lead_lost`); a customer is asked for without an e-mail "
            "address (`contact_has_no_email`), or that customer belongs to another contact "
            "(`customer_has_contact`)."
        },
        description="Gives the lead a contact: its own, else the oldest contact with the "
        "lead's e-mail address, else a new one made from the lead's person, company, e-mail "
        "and phone. `create_customer: true` also finds or makes the store customer of the "
        "contact's e-mail address and links it. Converting again finds what the first made "
        "(`contact_created`/`customer_created` false). The stage does not change.",
    )
    def post(self, request, lead_id):
        fields = validate_body(s.LeadConvertSerializer, request.data)
        result = services.lead_convert(
            lead_id=lead_id, create_customer=fields.get("create_customer", False), user=request.user
        )
        return Response(
            {
                "lead": lead_body(lead_id),
                "contact": s.contact_data(selectors.contact_get(result["contact"].pk)),
                "contact_created": result["contact_created"],
                "customer_created": result["customer_created"],
            }
        )


# --- Activities ---------------------------------------------------------------------------------


def _activity_page(request, serializer, when: str = ""):
    query = validate_query(serializer, request.query_params)
    now = timezone.now()
    return Response(
        s.named_page(
            "activities",
            selectors.activity_page(query, when=when),
            lambda activity: s.activity_data(activity, now),
        )
    )


class ActivityListView(CrmView):
    @store_schema(
        summary="List activities",
        parameters=[s.ActivityListQuerySerializer],
        responses={200: s.ActivityPageSerializer},
        description="`{activities, total, page, per_page, total_pages}`, by due time. "
        "Filters: `kind` (call, meeting, task, email; several comma-separated), `done`, "
        "`contact_id`, `lead_id`, `assigned_to_id`, `due_from`/`due_to`.",
    )
    def get(self, request):
        return _activity_page(request, s.ActivityListQuerySerializer)

    @store_schema(
        summary="Create an activity",
        request=s.ActivityCreateSerializer,
        responses={201: s.ActivitySerializer},
        description="A call, meeting, task or e-mail due at `due_at`, linked to a contact, a "
        "lead (of that contact) or both (400 otherwise); `assigned_to_id` defaults to the "
        "caller. Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.ActivityCreateSerializer, request.data)
        activity = services.activity_create(fields=dict(fields), user=request.user)
        return Response(
            s.activity_data(selectors.activity_get(activity.pk), timezone.now()),
            status=status.HTTP_201_CREATED,
        )


class ActivityUpcomingView(CrmView):
    @store_schema(
        summary="Upcoming activities",
        parameters=[s.ActivityUpcomingQuerySerializer],
        responses={200: s.ActivityPageSerializer},
        description="Not done, due from now to `days` ahead (default 7), soonest first; the "
        "list's filters apply.",
    )
    def get(self, request):
        return _activity_page(request, s.ActivityUpcomingQuerySerializer, "upcoming")


class ActivityOverdueView(CrmView):
    @store_schema(
        summary="Overdue activities",
        parameters=[s.ActivityListQuerySerializer],
        responses={200: s.ActivityPageSerializer},
        description="Not done and due before now, the oldest first; the list's filters apply.",
    )
    def get(self, request):
        return _activity_page(request, s.ActivityListQuerySerializer, "overdue")


class ActivityDetailView(CrmResourceView):
    resource = "activity"
    id_kwarg = "activity_id"
    output_serializer = s.ActivitySerializer
    write_serializer = s.ActivityUpdateSerializer
    descriptions = {
        "patch": "Only the fields sent change; `done: true` marks it done (now), false reopens it.",
        "put": "Same as PATCH.",
    }

    def read(self, request, pk):
        return s.activity_data(selectors.activity_get(pk), timezone.now())

    def update(self, request, pk, fields):
        services.activity_update(activity_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.activity_delete(activity_id=pk)


# --- Dashboard, segments, RFM -------------------------------------------------------------------


class CrmDashboardView(CrmView):
    @store_schema(
        summary="The CRM dashboard",
        parameters=[s.CrmDashboardQuerySerializer],
        responses={200: s.CrmDashboardSerializer},
        description="Contacts (and how many are store customers); leads open, and won, lost "
        "and created in the period (`date_from`/`date_to`, UTC days; default this month); "
        "open pipeline value (also weighted by probability) and won/lost value per currency; "
        "activities overdue, due today, in the next 7 days and done in the period.",
    )
    def get(self, request):
        query = validate_query(s.CrmDashboardQuerySerializer, request.query_params)
        today = timezone.now().date()
        date_from = query.get("date_from") or today.replace(day=1)
        date_to = query.get("date_to") or max(today, date_from)
        return Response(s.dashboard_data(selectors.dashboard(date_from=date_from, date_to=date_to)))


class SegmentListView(CrmView):
    @store_schema(
        summary="List segments",
        parameters=[s.SegmentListQuerySerializer],
        responses={200: s.SegmentPageSerializer},
        description="`{segments, total, page, per_page, total_pages}` by name; `target`.",
    )
    def get(self, request):
        query = validate_query(s.SegmentListQuerySerializer, request.query_params)
        return Response(s.named_page("segments", selectors.segment_page(query), s.segment_data))

    @store_schema(
        summary="Create a segment",
        request=s.SegmentCreateSerializer,
        responses={201: s.SegmentSerializer},
        description="A saved filter over `contacts` or store `customers` (their paid-order "
        "figures included): `rules` `{match: all|any, conditions: [{field, op, value}]}` "
        "of known fields and operators only (400 naming each bad condition). "
        + _segment_fields()
        + " Dates: before/after a YYYY-MM-DD day, within_days/not_within_days N. Send an "
        "Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.SegmentCreateSerializer, request.data)
        segment = services.segment_create(fields=dict(fields))
        return Response(s.segment_data(segment), status=status.HTTP_201_CREATED)


class SegmentDetailView(CrmResourceView):
    resource = "segment"
    id_kwarg = "segment_id"
    output_serializer = s.SegmentSerializer
    write_serializer = s.SegmentUpdateSerializer
    descriptions = {
        "patch": "Only the fields sent change; a new `target` needs rules valid for it.",
        "put": "Same as PATCH.",
    }

    def read(self, request, pk):
        return s.segment_data(selectors.segment_get(pk))

    def update(self, request, pk, fields):
        services.segment_update(segment_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.segment_delete(segment_id=pk)


class SegmentMembersView(CrmView):
    @store_schema(
        summary="A segment's members",
        parameters=[SEGMENT_ID, s.ListQuery],
        responses={200: s.SegmentMemberPageSerializer},
        description="`{members, total, page, per_page, total_pages}`: the contacts (by name) "
        "or customers (by e-mail, with their paid orders' count, sum and last date) the "
        "rules select now.",
    )
    def get(self, request, segment_id):
        query = validate_query(s.ListQuery, request.query_params)
        segment = selectors.segment_get(segment_id)
        page = selectors.segment_members(segment, query)
        return Response(s.named_page("members", page, s.member_data))


class CrmRfmView(CrmView):
    @store_schema(
        summary="RFM scores of customers",
        parameters=[s.RfmQuerySerializer],
        responses={200: s.RfmPageSerializer},
        description="`{customers, total, page, per_page, total_pages}`: each customer with "
        "paid orders (paid or partly refunded, or completed; never cancelled, refunded or "
        "failed) in `currency` (default the store's): the last order, the order count and "
        "their sum (SQL aggregates), scored 1-5 by quintile of their percent rank among "
        "those customers (ties share the lower score), with a segment: champions, loyal, "
        "potential_loyalists, new, promising, need_attention, at_risk, cant_lose, "
        "hibernating, lost (`segment` keeps one label, filtered in SQL).",
    )
    def get(self, request):
        query = validate_query(s.RfmQuerySerializer, request.query_params)
        currency = query.get("currency") or services.store_currency()
        page = selectors.rfm_page(query, currency=currency)
        return Response(s.named_page("customers", page, s.rfm_data))
