"""The invoicing routes (capability ec_manage_invoicing), every one behind the ERP's
Business-tier licence gate: thin views over erp.invoicing.selectors and services."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from erp.core.views import ERPView
from erp.invoicing import selectors, services
from erp.invoicing.choices import reference_data
from store.common.capabilities import manage
from store.common.params import validate_body, validate_query
from store.common.resources import StoreResourceView
from store.common.schema import store_schema

from . import serializers as s

TAG = "Invoicing"
ACCESS = {"*": manage("invoicing")}
INVOICE_ID = OpenApiParameter("invoice_id", int, OpenApiParameter.PATH)
ORDER_ID = OpenApiParameter("order_id", int, OpenApiParameter.PATH)

NOT_DRAFT_409 = "The invoice is issued: it never changes (`invoice_not_draft`)."
AUTHORITY_RULES = (
    "a rule of the tax authority, checked before a number is taken (the code names the first "
    "broken, `data.params` every field): `issuer_vat_number_required`, "
    "`counterpart_vat_number_required` (B2B types), `counterpart_vat_number_invalid` "
    "(python-stdnum), `counterpart_country_not_allowed` (1.2 to another EU member state, 1.3 "
    "outside the EU), `vat_category_not_allowed` (see the reference data's `vat_categories`), "
    "`vat_exemption_required` (a 0% line), `vat_exemption_not_allowed`, `negative_amount`, "
    "`totals_inconsistent`"
)
ISSUE_409 = (
    "Issued already (`invoice_not_draft`), or it cannot be issued: no lines, an inactive "
    f"series (`invoice_incomplete`), or {AUTHORITY_RULES}. Nothing changes then."
)
CANCEL_409 = (
    "A draft (`invoice_is_draft`: delete it instead), cancelled already (`invoice_cancelled`), "
    f"a credit note (`invoice_not_cancellable`), or the credit note would break {AUTHORITY_RULES} "
    "(the original's and its own type's). Nothing changes then."
)
TRANSMIT_409 = (
    "A draft (`invoice_is_draft`), or pending or sent already (`transmission_in_progress`)."
)
CANCEL_TRANSMISSION_409 = (
    "The document was not sent (`transmission_not_sent`), or the authority has no "
    "credentials (`authority_not_configured`)."
)
AUTHORITY_502 = (
    "The authority could not be reached (`authority_unavailable`) or refused "
    "(`authority_refused`, with its reasons)."
)
SERIES_409 = (
    "The series has issued documents: its code, type and next number are frozen, and it "
    "cannot be deleted (`invoice_series_in_use`)."
)


class InvoicingView(ERPView):
    access = ACCESS
    openapi_tag = TAG


def invoice_body(invoice_id: int) -> dict:
    return s.InvoiceSerializer(selectors.invoice_get(invoice_id)).data


class InvoiceListView(InvoicingView):
    @store_schema(
        summary="List invoices",
        parameters=[s.InvoiceListQuerySerializer],
        responses={200: s.InvoicePageSerializer},
        description="`{invoices, total, page, per_page, total_pages}`, newest first. Filters "
        "combine: `status` (one or several), `series_id`, `document_type`, `customer_id`, "
        "`order_id`, `transmission` (pending, sent, rejected, failed, cancelled, none), "
        "`date_from`/`date_to` (issue date), `search` (each word in the number, the "
        "counterpart's name or VAT number). The entries leave out the lines.",
    )
    def get(self, request):
        query = validate_query(s.InvoiceListQuerySerializer, request.query_params)
        return Response(s.invoice_page(selectors.invoice_page(query)))

    @store_schema(
        summary="Create a draft invoice",
        request=s.InvoiceWriteSerializer,
        responses={201: s.InvoiceSerializer},
        description="A draft in `series_id` (default: the settings' default series; its "
        "document type is the invoice's), with its counterpart, billing address, currency, "
        "payment method (myDATA's codes) and lines, each with its VAT category; the line "
        "amounts and totals are computed (net = quantity x unit price - discount, VAT at the "
        "category's rate, half up). A draft has no number until it is issued.",
    )
    def post(self, request):
        fields = validate_body(s.InvoiceWriteSerializer, request.data)
        invoice = services.invoice_create(fields=dict(fields), user=request.user)
        return Response(invoice_body(invoice.pk), status=status.HTTP_201_CREATED)


class InvoiceDetailView(InvoicingView, StoreResourceView):
    resource = "invoice"
    id_kwarg = "invoice_id"
    output_serializer = s.InvoiceSerializer
    write_serializer = s.InvoiceWriteSerializer
    descriptions = {
        "get": "The invoice with its lines, VAT breakdown, credit notes and transmission.",
        "patch": "Only a draft changes (409 once issued). `lines`, when sent, replace them all.",
        "put": "Same as PATCH.",
        "delete": "Only a draft is deleted; an issued document is cancelled by a credit note "
        "(POST /invoices/{id}/cancel).",
    }
    errors = {
        "patch": {409: NOT_DRAFT_409},
        "put": {409: NOT_DRAFT_409},
        "delete": {409: NOT_DRAFT_409},
    }

    def read(self, request, pk):
        return invoice_body(pk)

    def update(self, request, pk, fields):
        services.invoice_update(invoice_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.invoice_delete(invoice_id=pk)


class InvoiceIssueView(InvoicingView):
    @store_schema(
        summary="Issue an invoice",
        request=None,
        parameters=[INVOICE_ID],
        responses={200: s.InvoiceSerializer},
        errors={409: ISSUE_409},
        description="Gives the draft the next number of its series (gapless and unique: the "
        "series is locked while it is taken) and the issue date (today unless set); it never "
        "changes afterwards. Before the number is taken the document is checked against the "
        "tax authority's rules (409, nothing changes). With `auto_transmit` set, it is also "
        "sent to the authority. An order's invoice issued after refunds on the order gets "
        "their credit notes at once (`credit_note_ids`).",
    )
    def post(self, request, invoice_id):
        services.invoice_issue(invoice_id=invoice_id)
        return Response(invoice_body(invoice_id))


class InvoiceCancelView(InvoicingView):
    @store_schema(
        summary="Cancel an invoice by a credit note",
        request=s.InvoiceCancelSerializer,
        parameters=[INVOICE_ID],
        responses={201: s.InvoiceSerializer},
        errors={409: CANCEL_409},
        description="Issues a credit note (type 5.1; 11.4 for a retail receipt) in the first "
        "active series of that type (made, coded CN or CNR, when there is none) with the "
        "original's lines, referencing it (`corrects_id`); the original is marked cancelled. "
        "When refunds were credited already (credit notes with `refund_payment_id`), it "
        "credits only what is left, one line per VAT category. Nothing is deleted. Answers the "
        "credit note. When the original was sent to the authority, the credit note is sent "
        "too (with the original's mark).",
    )
    def post(self, request, invoice_id):
        fields = validate_body(s.InvoiceCancelSerializer, request.data)
        credit = services.invoice_cancel(
            invoice_id=invoice_id, reason=fields.get("reason", ""), user=request.user
        )
        return Response(invoice_body(credit.pk), status=status.HTTP_201_CREATED)


class InvoiceTransmitView(InvoicingView):
    @store_schema(
        summary="Send an invoice to the tax authority",
        request=None,
        parameters=[INVOICE_ID],
        responses={202: s.InvoiceTransmissionSerializer},
        errors={409: TRANSMIT_409},
        description="Queues the document for the authority of the settings (the sandbox, or "
        "myDATA); a worker sends it, retrying while the authority cannot be reached. Answers "
        "202 with the transmission (`pending`); GET /invoices/{id} shows its mark, uid and QR "
        "URL once `sent`, or the authority's reasons once `rejected`. A rejected, failed or "
        "cancelled transmission may be sent again.",
    )
    def post(self, request, invoice_id):
        services.transmission_request(invoice_id=invoice_id)
        transmission = selectors.transmission_of(selectors.invoice_get(invoice_id))
        return Response(s.InvoiceTransmissionSerializer(transmission).data, status=202)


class InvoiceCancelTransmissionView(InvoicingView):
    @store_schema(
        summary="Cancel an invoice at the tax authority",
        request=None,
        parameters=[INVOICE_ID],
        responses={200: s.InvoiceTransmissionSerializer},
        errors={409: CANCEL_TRANSMISSION_409, 502: AUTHORITY_502},
        description="The authority's own cancellation of a sent document (myDATA: "
        "CancelInvoice by its mark), now; the transmission becomes `cancelled` with the "
        "cancellation mark. The invoice itself is unchanged (cancel it by a credit note).",
    )
    def post(self, request, invoice_id):
        transmission = services.transmission_cancel(invoice_id=invoice_id)
        return Response(s.InvoiceTransmissionSerializer(transmission).data)


class InvoicePdfView(InvoicingView):
    @store_schema(
        summary="An invoice as PDF",
        parameters=[INVOICE_ID],
        responses={(200, "application/pdf"): OpenApiTypes.BINARY},
        description="A4: the issuer, the document's type and number, the counterpart, the "
        "lines, the VAT breakdown and totals, and once sent the authority's mark, uid and QR "
        "code. A draft prints as DRAFT.",
    )
    def get(self, request, invoice_id):
        invoice = selectors.invoice_get(invoice_id)
        # the PDF drawing (reportlab) loads with the first invoice drawn, not with every process
        from erp.invoicing.pdf import invoice_pdf

        content = invoice_pdf(invoice, selectors.settings_row())
        response = HttpResponse(content, content_type="application/pdf")
        name = invoice.full_number or f"draft-{invoice.pk}"
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name)
        response["Content-Disposition"] = f'inline; filename="invoice-{safe}.pdf"'
        response["Cache-Control"] = "no-store"
        return response


class InvoiceFromOrderView(InvoicingView):
    @store_schema(
        summary="The invoice of an order",
        request=None,
        parameters=[ORDER_ID],
        responses={201: s.InvoiceSerializer, 200: s.InvoiceSerializer},
        errors={
            404: "No such order (`order_not_found`).",
            409: "No series for invoices of orders (`invoice_series_required`).",
        },
        description="One invoice per order: the first call makes a draft (201) in the "
        "settings' order series (else the default series) from the order's lines (its "
        "discount shared over them), shipping, billing address, VAT number, currency and "
        "payment method; each line's VAT category is the one nearest the order's tax. Every "
        "later call answers the same invoice (200). The draft is checked when it is issued.",
    )
    def post(self, request, order_id):
        invoice, made = services.invoice_from_order(order_id=order_id, user=request.user)
        return Response(invoice_body(invoice.pk), status=201 if made else 200)


class InvoiceSettingsView(InvoicingView):
    @store_schema(
        summary="Invoicing settings",
        responses={200: s.InvoicingSettingsSerializer},
        description="The issuer, the default and order series, the authority and its "
        "credentials (masked), the auto-invoice and auto-transmit flags.",
    )
    def get(self, request):
        return Response(s.InvoicingSettingsSerializer(selectors.settings_row()).data)

    @store_schema(
        summary="Update the invoicing settings",
        request=s.InvoicingSettingsWriteSerializer,
        responses={200: s.InvoicingSettingsSerializer},
        description="Only the fields sent change. The issuer's VAT number is checked with "
        "python-stdnum (400 `invalid_vat_number`). `mydata_user_id` and "
        "`mydata_subscription_key` are stored encrypted and answered masked; an empty value "
        "removes one. `auto_invoice`: an order moving to completed gets its invoice, issued "
        "(one a rule of the authority refuses stays a draft, its `auto_issue_error` saying "
        "why).",
    )
    def patch(self, request):
        fields = validate_body(s.InvoicingSettingsWriteSerializer, request.data, partial=True)
        row = services.settings_update(fields=dict(fields))
        return Response(s.InvoicingSettingsSerializer(row).data)


class ReferenceDataView(InvoicingView):
    @store_schema(
        summary="Invoicing reference data",
        responses={200: s.InvoicingReferenceDataSerializer},
        description="myDATA's codes: document types (1.1 sales invoice, 11.1 retail "
        "receipt, 5.1 credit note...), VAT categories with their rates (1 = 24%, 2 = 13%, "
        "3 = 6%, 7 = 0%...), VAT exemption categories, payment methods; and the authorities.",
    )
    def get(self, request):
        return Response(reference_data())


class TransmissionTestView(InvoicingView):
    @store_schema(
        summary="Check the authority's credentials",
        request=None,
        responses={200: s.InvoicingTransmissionTestSerializer},
        errors={502: "The authority could not be reached (`authority_unavailable`)."},
        description="A real call to the configured authority with the stored credentials "
        "(myDATA: RequestTransmittedDocs); `ok` false with the reason when it refuses them. "
        "The sandbox needs none.",
    )
    def post(self, request):
        return Response(services.transmission_test())


# --- Series ---------------------------------------------------------------------------------


class SeriesListView(InvoicingView):
    @store_schema(
        summary="List invoice series",
        responses={200: s.InvoiceSeriesListSerializer},
        description="Every series, by code, with `in_use` (it has issued documents).",
    )
    def get(self, request):
        return Response(
            {"series": s.InvoiceSeriesSerializer(selectors.series_list(), many=True).data}
        )

    @store_schema(
        summary="Create an invoice series",
        request=s.InvoiceSeriesWriteSerializer,
        responses={201: s.InvoiceSeriesSerializer},
        description="`code` (unique, any case; stored upper-case) is the series the authority "
        "is sent; `prefix` is printed before the number; `next_number` (default 1) is the "
        "number the next issued document takes.",
    )
    def post(self, request):
        fields = validate_body(s.InvoiceSeriesWriteSerializer, request.data)
        series = services.series_create(fields=dict(fields))
        return Response(
            s.InvoiceSeriesSerializer(selectors.series_get(series.pk)).data,
            status=status.HTTP_201_CREATED,
        )


class SeriesDetailView(InvoicingView, StoreResourceView):
    resource = "invoice series"
    id_kwarg = "series_id"
    output_serializer = s.InvoiceSeriesSerializer
    write_serializer = s.InvoiceSeriesWriteSerializer
    descriptions = {
        "patch": "Only the fields sent change. Once the series has issued documents its "
        "code, document type and next number are frozen (409).",
        "put": "Same as PATCH.",
        "delete": "Only a series without documents (409 otherwise: deactivate it).",
    }
    errors = {"patch": {409: SERIES_409}, "put": {409: SERIES_409}, "delete": {409: SERIES_409}}

    def read(self, request, pk):
        return s.InvoiceSeriesSerializer(selectors.series_get(pk)).data

    def update(self, request, pk, fields):
        services.series_update(series_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.series_delete(series_id=pk)
