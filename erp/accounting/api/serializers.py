"""Bodies and answers of the accounting routes. Money is a decimal string; dates ISO 8601."""

from __future__ import annotations

from decimal import Decimal

from rest_framework import serializers

from common.api.fields import IdField, IntegerField, RowListSerializer
from erp.accounting.choices import (
    AccountRole,
    AccountType,
    EntryKind,
    EntryStatus,
    FiscalYearStatus,
    PartnerType,
    SourceType,
)
from erp.accounting.selectors import BUCKETS
from erp.core.api.base import ListQuery, iso_date, optional_text, page_serializer
from store.common.formats import iso
from store.common.money import MoneyField, money_str
from store.common.pagination import named_page as named_page  # the views' s.named_page
from store.common.params import (
    ChoiceListField,
    PerPageField,
    StrictBooleanField,
    StrictCharField,
)

# --- Accounts -----------------------------------------------------------------------------------


class AccountWriteSerializer(serializers.Serializer):
    code = StrictCharField(max_length=20, help_text="Unique, e.g. 1200.")
    name = StrictCharField(max_length=200)
    type = serializers.ChoiceField(choices=AccountType.choices)
    parent_id = IdField(
        required=False, allow_null=True, help_text="An account of the same type; null: a root."
    )
    role = serializers.ChoiceField(
        choices=AccountRole.choices,
        required=False,
        allow_blank=True,
        help_text="The account the automatic postings use for this role (one account each).",
    )
    description = optional_text(500)
    active = StrictBooleanField(required=False, help_text="Inactive accounts take no lines.")

    def validate(self, attrs):
        if "active" in attrs:
            attrs["is_active"] = attrs.pop("active")
        return attrs


class AccountListQuerySerializer(ListQuery):
    per_page = PerPageField(cap=500, default=100, help_text="Default 100, at most 500.")
    type = ChoiceListField(choices=AccountType.values)
    active = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="true or false; absent: all."
    )
    role = serializers.ChoiceField(choices=AccountRole.choices, required=False)
    parent_id = IdField(required=False)
    search = serializers.CharField(required=False, max_length=200, help_text="In code or name.")


class AccountParentSerializer(serializers.Serializer):
    id = IntegerField()
    code = serializers.CharField()
    name = serializers.CharField()


class AccountSerializer(serializers.Serializer):
    id = IntegerField()
    code = serializers.CharField()
    name = serializers.CharField()
    type = serializers.ChoiceField(choices=AccountType.choices)
    parent = AccountParentSerializer(allow_null=True)
    role = serializers.CharField(help_text="Empty, or the role of the automatic postings.")
    description = serializers.CharField()
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def account_ref(account) -> dict | None:
    if account is None:
        return None
    return {"id": account.pk, "code": account.code, "name": account.name}


def account_data(account) -> dict:
    return {
        "id": account.pk,
        "code": account.code,
        "name": account.name,
        "type": account.type,
        "parent": account_ref(account.parent),
        "role": account.role,
        "description": account.description,
        "active": account.is_active,
        "created_at": iso(account.created_at),
        "updated_at": iso(account.updated_at),
    }


AccountPageSerializer = page_serializer("AccountPageSerializer", "accounts", AccountSerializer)


class AccountTreeQuerySerializer(serializers.Serializer):
    as_of = serializers.DateField(required=False, help_text="Balances at this day; default today.")


class AccountTreeNodeSerializer(serializers.Serializer):
    id = IntegerField()
    code = serializers.CharField()
    name = serializers.CharField()
    type = serializers.ChoiceField(choices=AccountType.choices)
    role = serializers.CharField()
    active = serializers.BooleanField()
    balance = serializers.CharField(help_text="Its own lines, in the account's sense.")
    total = serializers.CharField(help_text="With its sub-accounts'.")
    children = serializers.ListField(
        child=serializers.DictField(), help_text="Nodes of the same shape."
    )


class AccountTreeSerializer(serializers.Serializer):
    as_of = serializers.DateField()
    accounts = AccountTreeNodeSerializer(many=True)


def tree_node(node) -> dict:
    account = node["account"]
    return {
        "id": account.pk,
        "code": account.code,
        "name": account.name,
        "type": account.type,
        "role": account.role,
        "active": account.is_active,
        "balance": money_str(node["own"]),
        "total": money_str(node["total"]),
        "children": [tree_node(child) for child in node["children"]],
    }


# --- Fiscal years -------------------------------------------------------------------------------


class FiscalYearWriteSerializer(serializers.Serializer):
    name = optional_text(40, help_text="Unique; default: the year(s) of its dates, e.g. 2026.")
    start_date = serializers.DateField()
    end_date = serializers.DateField()


class FiscalYearListQuerySerializer(ListQuery):
    status = serializers.ChoiceField(choices=FiscalYearStatus.choices, required=False)


class FiscalYearSerializer(serializers.Serializer):
    id = IntegerField()
    name = serializers.CharField()
    start_date = serializers.DateField()
    end_date = serializers.DateField()
    status = serializers.ChoiceField(choices=FiscalYearStatus.choices)
    next_number = IntegerField(help_text="The number the next posted entry gets.")
    closed_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def year_data(year) -> dict:
    return {
        "id": year.pk,
        "name": year.name,
        "start_date": iso_date(year.start_date),
        "end_date": iso_date(year.end_date),
        "status": year.status,
        "next_number": year.next_number,
        "closed_at": iso(year.closed_at),
        "created_at": iso(year.created_at),
        "updated_at": iso(year.updated_at),
    }


FiscalYearPageSerializer = page_serializer(
    "FiscalYearPageSerializer", "fiscal_years", FiscalYearSerializer
)


# --- Journal entries ----------------------------------------------------------------------------


class JournalLineInSerializer(serializers.Serializer):
    account_id = IdField(help_text="An active account.")
    debit = MoneyField(required=False, default=Decimal("0.00"), help_text="A debit, or 0.")
    credit = MoneyField(required=False, default=Decimal("0.00"), help_text="A credit, or 0.")
    description = optional_text(255)
    partner_type = serializers.ChoiceField(
        choices=PartnerType.choices, required=False, allow_blank=True
    )
    partner_id = IdField(
        required=False, allow_null=True, help_text="A customer's or supplier's id."
    )
    partner_name = optional_text(200)
    due_date = serializers.DateField(
        required=False, allow_null=True, help_text="For ageing; empty: the entry's date."
    )

    class Meta:
        list_serializer_class = RowListSerializer


class JournalEntryUpdateSerializer(serializers.Serializer):
    date = serializers.DateField(required=False)
    reference = optional_text(100)
    memo = optional_text(500)
    lines = JournalLineInSerializer(
        many=True,
        required=False,
        max_length=500,
        help_text="At most 500; each a debit or a credit; on PATCH they replace all lines.",
    )


class JournalEntryCreateSerializer(JournalEntryUpdateSerializer):
    date = serializers.DateField()


class JournalEntryListQuerySerializer(ListQuery):
    status = ChoiceListField(choices=EntryStatus.values)
    kind = ChoiceListField(choices=EntryKind.values)
    date_from = serializers.DateField(required=False)
    date_to = serializers.DateField(required=False)
    fiscal_year_id = IdField(required=False)
    account_id = IdField(required=False, help_text="Entries with a line on this account.")
    source_type = serializers.ChoiceField(choices=SourceType.choices, required=False)
    reference = serializers.CharField(required=False, max_length=100, help_text="Exactly.")
    search = serializers.CharField(
        required=False, max_length=200, help_text="In the number, reference or memo."
    )


class JournalEntryReverseSerializer(serializers.Serializer):
    date = serializers.DateField(
        required=False, help_text="The reversal's date (an open year); default today."
    )
    memo = optional_text(500)


class JournalLineSerializer(serializers.Serializer):
    id = IntegerField()
    account = AccountParentSerializer()
    debit = serializers.CharField()
    credit = serializers.CharField()
    description = serializers.CharField()
    partner_type = serializers.CharField()
    partner_id = IntegerField(allow_null=True)
    partner_name = serializers.CharField()
    due_date = serializers.DateField(allow_null=True)


class EntryRefSerializer(serializers.Serializer):
    id = IntegerField()
    number = serializers.CharField()


class JournalEntrySerializer(serializers.Serializer):
    id = IntegerField()
    number = serializers.CharField(help_text="`<year>/<n>`; empty for a draft.")
    fiscal_year_id = IntegerField(allow_null=True)
    date = serializers.DateField()
    status = serializers.ChoiceField(choices=EntryStatus.choices)
    kind = serializers.ChoiceField(choices=EntryKind.choices)
    reference = serializers.CharField()
    memo = serializers.CharField()
    source_type = serializers.CharField()
    source_id = serializers.CharField()
    total_debit = serializers.CharField()
    total_credit = serializers.CharField()
    balanced = serializers.BooleanField()
    reverses = EntryRefSerializer(allow_null=True)
    reversed_by = EntryRefSerializer(allow_null=True)
    lines = JournalLineSerializer(many=True)
    posted_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def _entry_ref(entry) -> dict | None:
    return {"id": entry.pk, "number": entry.full_number} if entry is not None else None


def entry_data(entry) -> dict:
    lines = list(entry.lines.all())
    debit = sum((line.debit for line in lines), 0)
    credit = sum((line.credit for line in lines), 0)
    try:
        reversed_by = entry.reversed_by
    except entry.__class__.reversed_by.RelatedObjectDoesNotExist:
        reversed_by = None
    return {
        "id": entry.pk,
        "number": entry.full_number,
        "fiscal_year_id": entry.fiscal_year_id,
        "date": iso_date(entry.date),
        "status": entry.status,
        "kind": entry.kind,
        "reference": entry.reference,
        "memo": entry.memo,
        "source_type": entry.source_type,
        "source_id": entry.source_id,
        "total_debit": money_str(debit),
        "total_credit": money_str(credit),
        "balanced": debit == credit and debit > 0,
        "reverses": _entry_ref(entry.reverses),
        "reversed_by": _entry_ref(reversed_by),
        "lines": [
            {
                "id": line.pk,
                "account": account_ref(line.account),
                "debit": money_str(line.debit),
                "credit": money_str(line.credit),
                "description": line.description,
                "partner_type": line.partner_type,
                "partner_id": line.partner_id,
                "partner_name": line.partner_name,
                "due_date": iso_date(line.due_date),
            }
            for line in lines
        ],
        "posted_at": iso(entry.posted_at),
        "created_at": iso(entry.created_at),
        "updated_at": iso(entry.updated_at),
    }


JournalEntryPageSerializer = page_serializer(
    "JournalEntryPageSerializer", "journal_entries", JournalEntrySerializer
)


# --- Reports ------------------------------------------------------------------------------------


class PeriodQuerySerializer(serializers.Serializer):
    date_from = serializers.DateField(required=False, help_text="First day of the period.")
    date_to = serializers.DateField(required=False, help_text="Last day; default today.")
    as_of = serializers.DateField(required=False, help_text="Same as date_to.")


class AsOfQuerySerializer(serializers.Serializer):
    as_of = serializers.DateField(required=False, help_text="Default today.")
    date_to = serializers.DateField(required=False, help_text="Same as as_of.")


class ReportAccountSerializer(serializers.Serializer):
    id = IntegerField()
    code = serializers.CharField()
    name = serializers.CharField()
    type = serializers.ChoiceField(choices=AccountType.choices)


TB_COLUMNS = (
    "opening_debit",
    "opening_credit",
    "debit",
    "credit",
    "closing_debit",
    "closing_credit",
)


class TrialBalanceRowSerializer(ReportAccountSerializer):
    opening_debit = serializers.CharField()
    opening_credit = serializers.CharField()
    debit = serializers.CharField()
    credit = serializers.CharField()
    closing_debit = serializers.CharField()
    closing_credit = serializers.CharField()


class TrialBalanceTotalsSerializer(serializers.Serializer):
    opening_debit = serializers.CharField()
    opening_credit = serializers.CharField()
    debit = serializers.CharField()
    credit = serializers.CharField()
    closing_debit = serializers.CharField()
    closing_credit = serializers.CharField()


class TrialBalanceSerializer(serializers.Serializer):
    date_from = serializers.DateField(allow_null=True)
    date_to = serializers.DateField()
    accounts = TrialBalanceRowSerializer(many=True)
    totals = TrialBalanceTotalsSerializer()
    balanced = serializers.BooleanField()


def _row_money(row: dict, names) -> dict:
    return {**row, **{name: money_str(row[name]) for name in names}}


def trial_balance_data(report: dict) -> dict:
    return {
        "date_from": iso_date(report["date_from"]),
        "date_to": iso_date(report["date_to"]),
        "accounts": [_row_money(row, TB_COLUMNS) for row in report["accounts"]],
        "totals": _row_money(report["totals"], TB_COLUMNS),
        "balanced": report["balanced"],
    }


class AmountRowSerializer(ReportAccountSerializer):
    amount = serializers.CharField()


class ProfitLossSerializer(serializers.Serializer):
    date_from = serializers.DateField(allow_null=True)
    date_to = serializers.DateField()
    income = AmountRowSerializer(many=True)
    expenses = AmountRowSerializer(many=True)
    total_income = serializers.CharField()
    total_expenses = serializers.CharField()
    net_profit = serializers.CharField()


def profit_loss_data(report: dict) -> dict:
    return {
        "date_from": iso_date(report["date_from"]),
        "date_to": iso_date(report["date_to"]),
        "income": [_row_money(row, ("amount",)) for row in report["income"]],
        "expenses": [_row_money(row, ("amount",)) for row in report["expenses"]],
        **{n: money_str(report[n]) for n in ("total_income", "total_expenses", "net_profit")},
    }


class BalanceSheetSerializer(serializers.Serializer):
    as_of = serializers.DateField()
    assets = AmountRowSerializer(many=True)
    liabilities = AmountRowSerializer(many=True)
    equity = AmountRowSerializer(many=True)
    total_assets = serializers.CharField()
    total_liabilities = serializers.CharField()
    total_equity = serializers.CharField()
    current_earnings = serializers.CharField(help_text="Income less expenses not yet closed.")
    total_liabilities_and_equity = serializers.CharField()
    balanced = serializers.BooleanField()


BS_TOTALS = (
    "total_assets",
    "total_liabilities",
    "total_equity",
    "current_earnings",
    "total_liabilities_and_equity",
)


def balance_sheet_data(report: dict) -> dict:
    return {
        "as_of": iso_date(report["as_of"]),
        **{
            name: [_row_money(row, ("amount",)) for row in report[name]]
            for name in ("assets", "liabilities", "equity")
        },
        **{name: money_str(report[name]) for name in BS_TOTALS},
        "balanced": report["balanced"],
    }


VAT_FIELDS = ("output_vat", "input_vat", "net_vat_due", "net_sales", "net_purchases")


class VatReturnSerializer(serializers.Serializer):
    date_from = serializers.DateField(allow_null=True)
    date_to = serializers.DateField()
    output_vat = serializers.CharField(help_text="VAT charged on sales.")
    input_vat = serializers.CharField(help_text="VAT paid on purchases.")
    net_vat_due = serializers.CharField(help_text="Output less input (negative: a refund).")
    net_sales = serializers.CharField()
    net_purchases = serializers.CharField()


def vat_return_data(report: dict) -> dict:
    return {
        "date_from": iso_date(report["date_from"]),
        "date_to": iso_date(report["date_to"]),
        **{name: money_str(report[name]) for name in VAT_FIELDS},
    }


AGED_COLUMNS = (*BUCKETS, "total")


class AgedItemSerializer(serializers.Serializer):
    reference = serializers.CharField(help_text="order:<id>, invoice:<id>, grn:<id> or yours.")
    due_date = serializers.DateField()
    days_overdue = IntegerField()
    bucket = serializers.ChoiceField(choices=BUCKETS)
    amount = serializers.CharField()


def _aged_serializer(name: str, extra: dict):
    fields = {column: serializers.CharField() for column in AGED_COLUMNS}
    return type(name, (serializers.Serializer,), {**extra, **fields})


AgedPartnerSerializer = _aged_serializer(
    "AgedPartnerSerializer",
    {
        "partner_type": serializers.CharField(),
        "partner_id": IntegerField(allow_null=True),
        "partner_name": serializers.CharField(),
        "items": AgedItemSerializer(many=True),
    },
)
AgedTotalsSerializer = _aged_serializer("AgedTotalsSerializer", {})


class AgedReportSerializer(serializers.Serializer):
    as_of = serializers.DateField()
    partners = AgedPartnerSerializer(many=True)
    totals = AgedTotalsSerializer()


def aged_data(report: dict) -> dict:
    return {
        "as_of": iso_date(report["as_of"]),
        "partners": [
            {
                **_row_money(partner, AGED_COLUMNS),
                "items": [
                    {**_row_money(item, ("amount",)), "due_date": iso_date(item["due_date"])}
                    for item in partner["items"]
                ],
            }
            for partner in report["partners"]
        ],
        "totals": _row_money(report["totals"], AGED_COLUMNS),
    }
