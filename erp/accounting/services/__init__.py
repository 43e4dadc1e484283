"""Accounting's writes: the chart of accounts, fiscal years and their closing, journal entries
(draft, posted, reversed) and the automatic postings of business events. One module per use
case:

- `chart`: the default chart, accounts, the account of a role
- `fiscal_years`: fiscal years and their closing
- `journal`: journal entries: drafts, posting, reversing
- `postings`: the automatic postings of business events
- `balances`: the reports' rollups (sums per account and block of days), added to by every
  posting, recounted by `rebuild`
- `_shared`: the refusal codes and the posting of an entry (private to this package)

Each public function is one transaction that validates first and changes nothing when it
refuses (400 naming the parameters; 409 for a rule of the books' state). Posting locks the
entry, then its fiscal year's row (select_for_update), takes the year's next number and moves
it on in the same transaction: numbers are unique per year, in posting order and without gaps
(a draft has none; a rolled-back posting gives its number back), as invoicing's series.

A posted entry is immutable: it is corrected by a reversing entry (once). A closed year takes
no posting. Business events (erp.core.signals, store.orders.signals) are posted after the
commit of their change, once per (source_type, source_id, kind) (AutoPosting); a failure is
recorded on that row and shown in the admin, which posts it again.

Callers import from the module that owns the name. The public names are also re-exported here
(`erp.accounting.services.journal_entry_post`), the package's public surface; the modules of
this package never import from it, only from each other, so the re-export cannot make a cycle.
"""

from erp.accounting.services._shared import (
    ACCOUNT_INACTIVE,
    ALREADY_REVERSED,
    IN_USE,
    LINE_FIELDS,
    NO_YEAR,
    NOT_DRAFT,
    NOT_POSTED,
    ROLE_MISSING,
    TOO_FEW_LINES,
    UNBALANCED,
    YEAR_CLOSED,
    YEAR_HAS_DRAFTS,
    YEAR_OVERLAP,
    ZERO,
)
from erp.accounting.services.chart import (
    ACCOUNT_FIELDS,
    DEFAULT_CHART,
    account_check,
    account_create,
    account_delete,
    account_update,
    chart_ensure,
    role_account,
)
from erp.accounting.services.fiscal_years import (
    MAX_YEAR_DAYS,
    fiscal_year_check,
    fiscal_year_close,
    fiscal_year_create,
    fiscal_year_delete,
    fiscal_year_update,
)
from erp.accounting.services.journal import (
    ENTRY_FIELDS,
    MAX_LINES,
    journal_entry_create,
    journal_entry_delete,
    journal_entry_post,
    journal_entry_reverse,
    journal_entry_update,
)
from erp.accounting.services.postings import (
    BUILDERS,
    event_post,
    event_retry,
    goods_received,
    invoice_issued,
    payment_recorded,
)

__all__ = [
    "ACCOUNT_FIELDS",
    "ACCOUNT_INACTIVE",
    "ALREADY_REVERSED",
    "BUILDERS",
    "DEFAULT_CHART",
    "ENTRY_FIELDS",
    "IN_USE",
    "LINE_FIELDS",
    "MAX_LINES",
    "MAX_YEAR_DAYS",
    "NOT_DRAFT",
    "NOT_POSTED",
    "NO_YEAR",
    "ROLE_MISSING",
    "TOO_FEW_LINES",
    "UNBALANCED",
    "YEAR_CLOSED",
    "YEAR_HAS_DRAFTS",
    "YEAR_OVERLAP",
    "ZERO",
    "account_check",
    "account_create",
    "account_delete",
    "account_update",
    "chart_ensure",
    "event_post",
    "event_retry",
    "fiscal_year_check",
    "fiscal_year_close",
    "fiscal_year_create",
    "fiscal_year_delete",
    "fiscal_year_update",
    "goods_received",
    "invoice_issued",
    "journal_entry_create",
    "journal_entry_delete",
    "journal_entry_post",
    "journal_entry_reverse",
    "journal_entry_update",
    "payment_recorded",
    "role_account",
]
