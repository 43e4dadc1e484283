"""The chart of accounts: the default chart made on first use, accounts created, changed
and deleted, and the account holding a role of the automatic postings.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from erp.accounting.choices import ROLE_TYPES, AccountRole, AccountType
from erp.accounting.models import Account
from erp.accounting.services._shared import IN_USE, ROLE_MISSING, _conflict
from store.common.errors import invalid_params, locked_or_404

# (code, name, type, parent code, role): a small chart after the usual numbering (1 assets,
# 2 liabilities, 3 equity, 4 income, 5 expenses), with every account the postings need.
DEFAULT_CHART = (
    ("1000", "Assets", AccountType.ASSET, None, ""),
    ("1100", "Bank", AccountType.ASSET, "1000", AccountRole.BANK),
    ("1110", "Cash", AccountType.ASSET, "1000", AccountRole.CASH),
    ("1200", "Accounts receivable", AccountType.ASSET, "1000", AccountRole.RECEIVABLE),
    ("1300", "Inventory", AccountType.ASSET, "1000", AccountRole.INVENTORY),
    ("1400", "VAT receivable", AccountType.ASSET, "1000", AccountRole.VAT_RECEIVABLE),
    ("2000", "Liabilities", AccountType.LIABILITY, None, ""),
    ("2100", "Accounts payable", AccountType.LIABILITY, "2000", AccountRole.PAYABLE),
    ("2200", "VAT payable", AccountType.LIABILITY, "2000", AccountRole.VAT_PAYABLE),
    ("3000", "Equity", AccountType.EQUITY, None, ""),
    ("3100", "Share capital", AccountType.EQUITY, "3000", ""),
    ("3200", "Retained earnings", AccountType.EQUITY, "3000", AccountRole.RETAINED_EARNINGS),
    ("4000", "Income", AccountType.INCOME, None, ""),
    ("4100", "Sales revenue", AccountType.INCOME, "4000", AccountRole.SALES),
    ("4200", "Other income", AccountType.INCOME, "4000", ""),
    ("5000", "Expenses", AccountType.EXPENSE, None, ""),
    ("5100", "Cost of goods sold", AccountType.EXPENSE, "5000", AccountRole.COGS),
    ("5200", "Purchases", AccountType.EXPENSE, "5000", AccountRole.PURCHASES),
    ("5300", "Operating expenses", AccountType.EXPENSE, "5000", ""),
)


def chart_ensure() -> bool:
    """The default chart, made on first use (an empty chart): answers whether it was made now.
    A chart with any account is left as it is (staff own it then)."""
    if Account.objects.exists():
        return False
    try:
        with transaction.atomic():
            made: dict[str, Account] = {}
            for code, name, kind, parent, role in DEFAULT_CHART:
                made[code] = Account.objects.create(
                    code=code, name=name, type=kind, parent=made.get(parent), role=role
                )
    except IntegrityError:  # made by a concurrent first use
        return False
    return True


ACCOUNT_FIELDS = ("code", "name", "type", "role", "description", "is_active")


def _would_cycle(account: Account, parent: Account) -> bool:
    seen, node = set(), parent
    while node is not None and node.pk not in seen:
        if node.pk == account.pk:
            return True
        seen.add(node.pk)
        node = node.parent
    return False


def _account_check(fields: dict, account: Account | None) -> dict:
    problems: dict[str, list[str]] = {}
    cleaned = {name: fields[name] for name in ACCOUNT_FIELDS if name in fields}
    for name in ("code", "name"):
        if name in cleaned:
            cleaned[name] = cleaned[name].strip()
        if (account is None or name in cleaned) and not cleaned.get(name):
            problems[name] = [f"An account needs a {name}."]
    if account is None and not cleaned.get("type"):
        problems["type"] = ["Choose asset, liability, equity, income or expense."]
    code = cleaned.get("code")
    if code:
        taken = Account.objects.filter(code=code)
        if account is not None:
            taken = taken.exclude(pk=account.pk)
        if taken.exists():
            problems["code"] = [f"Code {code!r} is already used."]
    kind = cleaned.get("type", account.type if account else None)
    if account is not None and "type" in cleaned and cleaned["type"] != account.type:
        if account.lines.exists():
            problems["type"] = ["The account has journal lines: its type cannot change."]
        elif account.children.exists():
            problems["type"] = ["The account has sub-accounts: its type cannot change."]
    parent_now = account.parent if account is not None and "parent_id" not in fields else None
    if parent_now is not None and kind and parent_now.type != kind:
        problems["type"] = [f"Its parent is an {parent_now.type} account."]
    if "parent_id" in fields:
        parent_id = fields["parent_id"]
        parent = Account.objects.filter(pk=parent_id).first() if parent_id else None
        if parent_id and parent is None:
            problems["parent_id"] = [f"No account with id {parent_id}."]
        elif parent is not None:
            if kind and parent.type != kind:
                problems["parent_id"] = [f"The parent is an {parent.type} account, not {kind}."]
            elif account is not None and _would_cycle(account, parent):
                problems["parent_id"] = ["An account cannot be under itself."]
        cleaned["parent"] = parent
    role = cleaned.get("role", account.role if account else "")
    if role:
        if kind and ROLE_TYPES[AccountRole(role)] != kind:
            problems["role"] = [f"The {role} account is an {ROLE_TYPES[AccountRole(role)]}."]
        holder = Account.objects.filter(role=role)
        if account is not None:
            holder = holder.exclude(pk=account.pk)
        holder = holder.first()
        if holder is not None and "role" in cleaned:
            problems["role"] = [f"{holder} has this role; take it from that account first."]
    if account is not None and account.role and cleaned.get("is_active") is False:
        problems["active"] = [
            f"It is the {account.role} account of the automatic postings; give the role to "
            "another account first."
        ]
    if problems:
        raise invalid_params(problems)
    return cleaned


def account_check(*, fields: dict, account_id: int | None = None) -> None:
    """What account_create/account_update would refuse (the admin's form check)."""
    account = Account.objects.filter(pk=account_id).first() if account_id else None
    _account_check(fields, account)


@transaction.atomic
def account_create(*, fields: dict) -> Account:
    cleaned = _account_check(fields, None)
    return Account.objects.create(**cleaned)


def _account_for_update(account_id: int) -> Account:
    return locked_or_404(Account, account_id, "account")


@transaction.atomic
def account_update(*, account_id: int, fields: dict) -> Account:
    account = _account_for_update(account_id)
    cleaned = _account_check(fields, account)
    for name, value in cleaned.items():
        setattr(account, name, value)
    account.save()
    return account


@transaction.atomic
def account_delete(*, account_id: int) -> None:
    """Delete an account no line, sub-account or role uses (409 `in_use`: deactivate it)."""
    account = _account_for_update(account_id)
    if account.lines.exists():
        raise _conflict(f"Account {account} has journal lines; deactivate it instead.", IN_USE)
    if account.children.exists():
        raise _conflict(f"Account {account} has sub-accounts; move or delete them first.", IN_USE)
    if account.role:
        raise _conflict(
            f"Account {account} is the {account.role} account of the automatic postings; "
            "give the role to another account first.",
            IN_USE,
        )
    account.delete()


def role_account(role: str) -> Account:
    """The account of `role` (the default chart made on first use); 409
    `account_role_missing` when staff took the role from every account."""
    chart_ensure()
    account = Account.objects.filter(role=role).first()
    if account is None:
        raise _conflict(
            f"No account has the role {str(role)!r}: give it to one (PATCH /accounts/{{id}}).",
            ROLE_MISSING,
        )
    return account
