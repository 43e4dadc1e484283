"""The database settings that do not depend on Django being set up
(config/settings/database.py reads them before it is)."""

from __future__ import annotations

# WAL lets readers run beside the writer (and NORMAL sync is safe with it); IMMEDIATE takes the
# write lock when a transaction starts, so two writers queue for up to `timeout` seconds instead
# of one failing with "database is locked" when its read turns into a write.
SQLITE_INIT_COMMAND = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
SQLITE_DEFAULTS = {"transaction_mode": "IMMEDIATE", "timeout": 20}


def sqlite_options(given: dict | None = None) -> dict:
    """SQLite's OPTIONS: the defaults above with `given` (a DATABASE_URL's query) merged in.
    A given option wins over its default; a given `init_command` runs after the default PRAGMAs,
    so its own PRAGMAs win and the others still apply."""
    options = {**SQLITE_DEFAULTS, **(given or {})}
    extra = str(options.get("init_command") or "").strip()
    if extra and not extra.endswith(";"):
        extra += ";"
    options["init_command"] = f"{SQLITE_INIT_COMMAND} {extra}".strip()
    return options
