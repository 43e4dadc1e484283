"""Accounting routes (ec_manage_accounting, behind the ERP's licence gate): thin views over
erp.accounting.selectors and services."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from erp.accounting import selectors, services
from erp.accounting.choices import AccountRole
from erp.core.views import ERPView
from store.common.capabilities import manage
from store.common.params import validate_body, validate_query
from store.common.resources import StoreResourceView
from store.common.schema import store_schema

from . import serializers as s

TAG = "Accounting"
ACCESS = {"*": manage("accounting")}
YEAR_ID = OpenApiParameter("year_id", int, OpenApiParameter.PATH)
ENTRY_ID = OpenApiParameter("entry_id", int, OpenApiParameter.PATH)

NOT_DRAFT = "A posted entry never changes (`journal_entry_not_draft`): reverse it."
YEAR_CLOSED = "The fiscal year is closed (`fiscal_year_closed`)."


class AccountingView(ERPView):
    access = ACCESS
    openapi_tag = TAG


class AccountingResourceView(ERPView, StoreResourceView):
    access = ACCESS
    openapi_tag = TAG


# --- Accounts -----------------------------------------------------------------------------------


class AccountListView(AccountingView):
    @store_schema(
        summary="List accounts (the chart of accounts)",
        parameters=[s.AccountListQuerySerializer],
        responses={200: s.AccountPageSerializer},
        description="`{accounts, total, page, per_page, total_pages}` by code. The default "
        "chart (assets 1xxx, liabilities 2xxx, equity 3xxx, income 4xxx, expenses 5xxx, with "
        "the accounts the automatic postings use) is made on first use. Filters: `type` (one "
        "or several), `active`, `role`, `parent_id`, `search` (code or name).",
    )
    def get(self, request):
        query = validate_query(s.AccountListQuerySerializer, request.query_params)
        services.chart_ensure()
        return Response(s.named_page("accounts", selectors.account_page(query), s.account_data))

    @store_schema(
        summary="Create an account",
        request=s.AccountWriteSerializer,
        responses={201: s.AccountSerializer},
        description="`code` (unique), `name`, `type`; `parent_id` an account of the same type; "
        "`role` one of the automatic postings' roles, on one account only and of its type "
        "(400 naming each problem). Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.AccountWriteSerializer, request.data)
        services.chart_ensure()
        account = services.account_create(fields=dict(fields))
        return Response(
            s.account_data(selectors.account_get(account.pk)), status=status.HTTP_201_CREATED
        )


class AccountDetailView(AccountingResourceView):
    resource = "account"
    id_kwarg = "account_id"
    output_serializer = s.AccountSerializer
    write_serializer = s.AccountWriteSerializer
    descriptions = {
        "patch": "Only the fields sent change. The type of an account with lines or "
        "sub-accounts does not change; a role account is not deactivated (400).",
        "put": "Same as PATCH.",
        "delete": "Deletes an account without lines, sub-accounts or role; otherwise 409 "
        "`in_use` (deactivate it instead).",
    }
    errors = {"delete": {409: "The account has lines, sub-accounts or a role (`in_use`)."}}

    def read(self, request, pk):
        return s.account_data(selectors.account_get(pk))

    def update(self, request, pk, fields):
        services.account_update(account_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.account_delete(account_id=pk)


class AccountTreeView(AccountingView):
    @store_schema(
        summary="The chart of accounts as a tree, with balances",
        parameters=[s.AccountTreeQuerySerializer],
        responses={200: s.AccountTreeSerializer},
        description="Root accounts with their sub-accounts (`children`, the same shape), each "
        "with its balance at `as_of` (default today) in its own sense (assets and expenses "
        "debit, the others credit) and its `total` with its sub-accounts.",
    )
    def get(self, request):
        query = validate_query(s.AccountTreeQuerySerializer, request.query_params)
        services.chart_ensure()
        period = selectors.period_of(query, from_year_start=False)
        roots = selectors.account_tree(period.date_to)
        return Response(
            {"as_of": period.date_to.isoformat(), "accounts": [s.tree_node(n) for n in roots]}
        )


# --- Fiscal years -------------------------------------------------------------------------------


class FiscalYearListView(AccountingView):
    @store_schema(
        summary="List fiscal years",
        parameters=[s.FiscalYearListQuerySerializer],
        responses={200: s.FiscalYearPageSerializer},
        description="`{fiscal_years, total, page, per_page, total_pages}`, latest first; "
        "`status` open or closed.",
    )
    def get(self, request):
        query = validate_query(s.FiscalYearListQuerySerializer, request.query_params)
        page = selectors.fiscal_year_page(query)
        return Response(s.named_page("fiscal_years", page, s.year_data))

    @store_schema(
        summary="Create a fiscal year",
        request=s.FiscalYearWriteSerializer,
        responses={201: s.FiscalYearSerializer},
        errors={409: "It overlaps another fiscal year (`fiscal_year_overlap`)."},
        description="`start_date` to `end_date` (at most two years), overlapping no other "
        "year (409 `fiscal_year_overlap`); `name` unique, default the year(s). Send an "
        "Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.FiscalYearWriteSerializer, request.data)
        year = services.fiscal_year_create(fields=dict(fields))
        return Response(s.year_data(year), status=status.HTTP_201_CREATED)


class FiscalYearDetailView(AccountingResourceView):
    resource = "fiscal year"
    id_kwarg = "year_id"
    output_serializer = s.FiscalYearSerializer
    write_serializer = s.FiscalYearWriteSerializer
    descriptions = {
        "patch": "An open year only. Its dates move only while it has no posted entry (409 "
        "`in_use`), never onto another year (409 `fiscal_year_overlap`).",
        "put": "Same as PATCH.",
        "delete": "A year without posted entries; otherwise 409 `in_use`.",
    }
    errors = {
        "patch": {409: f"{YEAR_CLOSED} Or posted entries, or an overlap."},
        "put": {409: f"{YEAR_CLOSED} Or posted entries, or an overlap."},
        "delete": {409: "The year has posted entries (`in_use`)."},
    }

    def read(self, request, pk):
        return s.year_data(selectors.fiscal_year_get(pk))

    def update(self, request, pk, fields):
        services.fiscal_year_update(year_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.fiscal_year_delete(year_id=pk)


class FiscalYearCloseView(AccountingView):
    @store_schema(
        summary="Close a fiscal year",
        parameters=[YEAR_ID],
        request=None,
        responses={200: s.FiscalYearSerializer},
        errors={
            409: f"{YEAR_CLOSED} Or draft entries are dated in it (`fiscal_year_has_drafts`), "
            "or no account has the retained-earnings role (`account_role_missing`)."
        },
        description="Posts the closing entry (dated the year's last day) that moves every "
        "income and expense balance of the year to retained earnings, then closes the year: "
        "it takes no more postings (409 `fiscal_year_closed`). Business events dated in a "
        "closed year are posted on the first day of the next open year.",
    )
    def post(self, request, year_id):
        services.fiscal_year_close(year_id=year_id, user=request.user)
        return Response(s.year_data(selectors.fiscal_year_get(year_id)))


# --- Journal entries ----------------------------------------------------------------------------


def entry_body(entry_id: int) -> dict:
    return s.entry_data(selectors.entry_get(entry_id))


class JournalEntryListView(AccountingView):
    @store_schema(
        summary="List journal entries",
        parameters=[s.JournalEntryListQuerySerializer],
        responses={200: s.JournalEntryPageSerializer},
        description="`{journal_entries, total, page, per_page, total_pages}`, latest date "
        "first, with their lines. Filters: `status`, `kind` (one or several), `date_from`, "
        "`date_to`, `fiscal_year_id`, `account_id`, `source_type`, `reference`, `search`.",
    )
    def get(self, request):
        query = validate_query(s.JournalEntryListQuerySerializer, request.query_params)
        page = selectors.entry_page(query)
        return Response(s.named_page("journal_entries", page, s.entry_data))

    @store_schema(
        summary="Create a journal entry (draft)",
        request=s.JournalEntryCreateSerializer,
        responses={201: s.JournalEntrySerializer},
        description="A draft dated `date` with `lines` `[{account_id, debit | credit, "
        "description?, partner_type?, partner_id?, partner_name?, due_date?}]`: each line a "
        "debit or a credit above zero, never both, on an active account (400 naming the "
        "line). A draft need not balance yet; posting it does. Send an Idempotency-Key to "
        "retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.JournalEntryCreateSerializer, request.data)
        fields = {**fields, "lines": [dict(line) for line in fields.get("lines", [])]}
        entry = services.journal_entry_create(fields=fields, user=request.user)
        return Response(entry_body(entry.pk), status=status.HTTP_201_CREATED)


class JournalEntryDetailView(AccountingResourceView):
    resource = "journal entry"
    id_kwarg = "entry_id"
    output_serializer = s.JournalEntrySerializer
    write_serializer = s.JournalEntryUpdateSerializer
    descriptions = {
        "get": "The entry with its lines, totals, and the entry it reverses or that reverses it.",
        "patch": "A draft only (409 `journal_entry_not_draft`); `lines`, when sent, replace "
        "all its lines.",
        "put": "Same as PATCH.",
        "delete": "A draft only (409 `journal_entry_not_draft`): a posted entry is reversed.",
    }
    errors = {"patch": {409: NOT_DRAFT}, "put": {409: NOT_DRAFT}, "delete": {409: NOT_DRAFT}}

    def read(self, request, pk):
        return entry_body(pk)

    def update(self, request, pk, fields):
        if "lines" in fields:
            fields = {**fields, "lines": [dict(line) for line in fields["lines"]]}
        services.journal_entry_update(entry_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.journal_entry_delete(entry_id=pk)


class JournalEntryPostView(AccountingView):
    @store_schema(
        summary="Post a journal entry",
        parameters=[ENTRY_ID],
        request=None,
        responses={200: s.JournalEntrySerializer},
        errors={
            409: "Posted already (`journal_entry_not_draft`); fewer than two lines "
            "(`journal_entry_too_few_lines`); debits differ from credits "
            "(`journal_entry_unbalanced`); a line's account is inactive (`account_inactive`); "
            "no fiscal year holds its date (`no_fiscal_year`) or it is closed "
            "(`fiscal_year_closed`)."
        },
        description="A balanced draft (at least two lines, debits equal to credits) dated in "
        "an open fiscal year is posted: it gets the year's next number (`<year>/<n>`, without "
        "gaps, in posting order) and never changes again.",
    )
    def post(self, request, entry_id):
        services.journal_entry_post(entry_id=entry_id)
        return Response(entry_body(entry_id))


class JournalEntryReverseView(AccountingView):
    @store_schema(
        summary="Reverse a journal entry",
        parameters=[ENTRY_ID],
        request=s.JournalEntryReverseSerializer,
        responses={201: s.JournalEntrySerializer},
        errors={
            409: "A draft (`journal_entry_not_posted`: delete it); reversed already "
            "(`journal_entry_already_reversed`); the date is in no open fiscal year "
            "(`no_fiscal_year`, `fiscal_year_closed`)."
        },
        description="A new posted entry with every line of the posted one on the other side "
        "(never an edit), dated `date` (default today), `reverses` naming the original. Once "
        "per entry. Answers the reversal. Send an Idempotency-Key to retry safely.",
    )
    def post(self, request, entry_id):
        fields = validate_body(s.JournalEntryReverseSerializer, request.data)
        reversal = services.journal_entry_reverse(
            entry_id=entry_id,
            day=fields.get("date"),
            memo=fields.get("memo", ""),
            user=request.user,
        )
        return Response(entry_body(reversal.pk), status=status.HTTP_201_CREATED)


# --- Reports ------------------------------------------------------------------------------------


class TrialBalanceView(AccountingView):
    @store_schema(
        summary="Trial balance",
        parameters=[s.PeriodQuerySerializer],
        responses={200: s.TrialBalanceSerializer},
        description="Per account with posted lines: the balance before `date_from` "
        "(opening), the period's debits and credits, and the balance at `date_to` (or "
        "`as_of`, default today), as debit and credit columns. Without `date_from` every "
        "line up to `date_to` is in the period. `balanced`: the totals agree.",
    )
    def get(self, request):
        query = validate_query(s.PeriodQuerySerializer, request.query_params)
        period = selectors.period_of(query, from_year_start=False)
        return Response(s.trial_balance_data(selectors.trial_balance(period)))


class ProfitLossView(AccountingView):
    @store_schema(
        summary="Profit and loss",
        parameters=[s.PeriodQuerySerializer],
        responses={200: s.ProfitLossSerializer},
        description="Income and expenses by account from `date_from` (default the start of "
        "the fiscal year holding `date_to`) to `date_to` (or `as_of`, default today), and "
        "the net profit. Closing entries are left out.",
    )
    def get(self, request):
        query = validate_query(s.PeriodQuerySerializer, request.query_params)
        period = selectors.period_of(query, from_year_start=True)
        return Response(s.profit_loss_data(selectors.profit_loss(period)))


class BalanceSheetView(AccountingView):
    @store_schema(
        summary="Balance sheet",
        parameters=[s.AsOfQuerySerializer],
        responses={200: s.BalanceSheetSerializer},
        description="Assets, liabilities and equity at `as_of` (default today), with the "
        "earnings not yet closed to retained earnings: assets = liabilities + equity + "
        "current earnings (`balanced`).",
    )
    def get(self, request):
        query = validate_query(s.AsOfQuerySerializer, request.query_params)
        period = selectors.period_of(query, from_year_start=False)
        return Response(s.balance_sheet_data(selectors.balance_sheet(period.date_to)))


class VatReturnView(AccountingView):
    @store_schema(
        summary="VAT return",
        parameters=[s.PeriodQuerySerializer],
        responses={200: s.VatReturnSerializer},
        description="For the period (`date_from`, default the start of the fiscal year "
        "holding `date_to`; `date_to` or `as_of`, default today): output VAT (the "
        "VAT-payable account), input VAT (the VAT-receivable account), the net due, and "
        "net sales and purchases.",
    )
    def get(self, request):
        query = validate_query(s.PeriodQuerySerializer, request.query_params)
        period = selectors.period_of(query, from_year_start=True)
        return Response(s.vat_return_data(selectors.vat_return(period)))


AGED = (
    "Open items of the {what} account at `as_of` (default today), per partner and "
    "reference ({refs}): the balance left and its due date, aged by days past due into "
    "`not_due`, `0_30`, `31_60`, `61_90` and `over_90`, with totals."
)


class AccountsReceivableView(AccountingView):
    @store_schema(
        summary="Aged accounts receivable",
        parameters=[s.AsOfQuerySerializer],
        responses={200: s.AgedReportSerializer},
        description=AGED.format(
            what="receivable",
            refs="`order:<id>` for an order's invoice, credit notes and payments, due on the "
            "invoice's date",
        ),
    )
    def get(self, request):
        query = validate_query(s.AsOfQuerySerializer, request.query_params)
        period = selectors.period_of(query, from_year_start=False)
        return Response(s.aged_data(selectors.aged(AccountRole.RECEIVABLE, period.date_to)))


class AccountsPayableView(AccountingView):
    @store_schema(
        summary="Aged accounts payable",
        parameters=[s.AsOfQuerySerializer],
        responses={200: s.AgedReportSerializer},
        description=AGED.format(
            what="payable",
            refs="`grn:<id>` for goods received, due after the supplier's payment terms; a "
            "payment entered with the same reference settles it",
        ),
    )
    def get(self, request):
        query = validate_query(s.AsOfQuerySerializer, request.query_params)
        period = selectors.period_of(query, from_year_start=False)
        return Response(s.aged_data(selectors.aged(AccountRole.PAYABLE, period.date_to)))
