"""The reference values of accounting: account types, roles, statuses and kinds."""

from __future__ import annotations

from django.db import models


class AccountType(models.TextChoices):
    ASSET = "asset", "Asset"
    LIABILITY = "liability", "Liability"
    EQUITY = "equity", "Equity"
    INCOME = "income", "Income"
    EXPENSE = "expense", "Expense"


# Debit-normal types: their balance is debits minus credits; the others credits minus debits.
DEBIT_TYPES = frozenset({AccountType.ASSET, AccountType.EXPENSE})
BALANCE_SHEET_TYPES = (AccountType.ASSET, AccountType.LIABILITY, AccountType.EQUITY)
PROFIT_LOSS_TYPES = (AccountType.INCOME, AccountType.EXPENSE)


class AccountRole(models.TextChoices):
    """The accounts the automatic postings, the closing and the reports look up (one each)."""

    RECEIVABLE = "receivable", "Accounts receivable"
    PAYABLE = "payable", "Accounts payable"
    BANK = "bank", "Bank"
    CASH = "cash", "Cash"
    INVENTORY = "inventory", "Inventory"
    SALES = "sales", "Sales revenue"
    VAT_PAYABLE = "vat_payable", "VAT payable (output)"
    VAT_RECEIVABLE = "vat_receivable", "VAT receivable (input)"
    PURCHASES = "purchases", "Purchases"
    COGS = "cogs", "Cost of goods sold"
    RETAINED_EARNINGS = "retained_earnings", "Retained earnings"


# The role each account type may carry (an account's role must fit its type).
ROLE_TYPES = {
    AccountRole.RECEIVABLE: AccountType.ASSET,
    AccountRole.BANK: AccountType.ASSET,
    AccountRole.CASH: AccountType.ASSET,
    AccountRole.INVENTORY: AccountType.ASSET,
    AccountRole.VAT_RECEIVABLE: AccountType.ASSET,
    AccountRole.PAYABLE: AccountType.LIABILITY,
    AccountRole.VAT_PAYABLE: AccountType.LIABILITY,
    AccountRole.RETAINED_EARNINGS: AccountType.EQUITY,
    AccountRole.SALES: AccountType.INCOME,
    AccountRole.PURCHASES: AccountType.EXPENSE,
    AccountRole.COGS: AccountType.EXPENSE,
}


class FiscalYearStatus(models.TextChoices):
    OPEN = "open", "Open"
    CLOSED = "closed", "Closed"


class EntryStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    POSTED = "posted", "Posted"


class EntryKind(models.TextChoices):
    MANUAL = "manual", "Manual"
    AUTOMATIC = "automatic", "Automatic (a business event)"
    REVERSAL = "reversal", "Reversal"
    CLOSING = "closing", "Year-end closing"


class PartnerType(models.TextChoices):
    CUSTOMER = "customer", "Customer"
    SUPPLIER = "supplier", "Supplier"


class PostingStatus(models.TextChoices):
    POSTED = "posted", "Posted"
    FAILED = "failed", "Failed"


class SourceType(models.TextChoices):
    INVOICE = "invoice", "Invoice or credit note (erp.invoicing)"
    PAYMENT = "payment", "Payment or refund (store.orders)"
    GOODS_RECEIVED = "goods_received", "Goods received (erp.purchasing)"
