"""The cache of RFM's ranking summary (erp.crm.selectors.rfm_ranking): per currency, what
ranking the rollup's rows needs (their number, the quintile boundaries, each label's count),
kept under a version token that every change of the currency's rollup rows replaces.

- A write of the rollup (erp.crm.rollups) calls `changed(currencies)` inside its
  transaction: the tokens are replaced when the transaction commits (one `on_commit`
  callback per transaction, whatever the number of order writes). Until then the writing
  transaction has `pending` changes: its own reads of that currency are computed from the
  database, never read from or stored in the cache (they see rows that may yet roll back).
- A reader gets the token and the entry in one round trip; the entry counts only if it was
  stored under the current token. On a miss it computes from the database after it read the
  token and stores the result under that token: a change committed meanwhile replaces the
  token after its commit, so what the reader stored is never read.
- The cache is best-effort (common.cache): while it is unreachable there is no token and the
  reader computes. A token replacement lost to an outage (or a process killed between its
  commit and the callback) leaves an old entry readable until the token expires: tokens and
  entries live CACHE_SECONDS. So does a change made around the rollup's writers (a raw
  customer deletion with orders, rows written straight into the table); the
  `rebuild_crm_rollups` command replaces every token.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import Any

from django.core.cache import cache
from django.db import transaction

#: How long a token and an entry live (bounds the staleness of a lost token replacement).
CACHE_SECONDS = 300


def _version_key(currency: str) -> str:
    return f"erp:crm:rfm:{currency}:version"


def _entry_key(currency: str) -> str:
    return f"erp:crm:rfm:{currency}:ranking"


class _Replace:
    """The on-commit callback that replaces the tokens of the currencies a transaction
    changed; `ran` once it ran (a test's captured callbacks stay in Django's list)."""

    def __init__(self) -> None:
        self.currencies: set[str] = set()
        self.ran = False

    def __call__(self) -> None:
        self.ran = True
        cache.set_many(
            {_version_key(currency): uuid.uuid4().hex for currency in self.currencies},
            CACHE_SECONDS,
        )


def _open_callback() -> _Replace | None:
    # Django keeps a transaction's callbacks in run_on_commit as (savepoint ids, callable,
    # robust); a savepoint's rollback drops those registered inside it, a commit or a full
    # rollback empties the list.
    for _savepoints, callback, _robust in transaction.get_connection().run_on_commit:
        if isinstance(callback, _Replace) and not callback.ran:
            return callback
    return None


def changed(currencies: Iterable[str]) -> None:
    """The rollup rows of `currencies` changed in the current transaction (or just now, in
    autocommit): replace their tokens when it commits."""
    currencies = {currency for currency in currencies if currency}
    if not currencies:
        return
    connection = transaction.get_connection()
    callback = _open_callback() if connection.in_atomic_block else None
    if callback is None:
        callback = _Replace()
        callback.currencies |= currencies
        transaction.on_commit(callback, robust=True)  # autocommit: runs now
    else:  # a callback registered outside a savepoint rolled back since: at worst one too many
        callback.currencies |= currencies


def pending(currency: str) -> bool:
    """Whether the current transaction changed the rollup rows of `currency`."""
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        return False
    callback = _open_callback()
    return callback is not None and currency in callback.currencies


def cached(currency: str, compute: Callable[[], Any]) -> Any:
    """`compute()`'s value for `currency`: the cache's entry under the current token, else
    computed (and stored under the token read before computing)."""
    if pending(currency):
        return compute()
    version_key, entry_key = _version_key(currency), _entry_key(currency)
    found = cache.get_many([version_key, entry_key])
    version = found.get(version_key)
    entry = found.get(entry_key)
    if version is not None and isinstance(entry, tuple) and entry[:1] == (version,):
        return entry[1]
    if version is None:  # never made, expired or emptied: make one before reading the rows
        cache.add(version_key, uuid.uuid4().hex, CACHE_SECONDS)
        version = cache.get(version_key)  # None while the cache is unreachable
    value = compute()
    if version is not None:
        cache.set(entry_key, (version, value), CACHE_SECONDS)
    return value
