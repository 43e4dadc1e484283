"""The core namespace's debug API (debugtools): recorded log entries and the client-side log."""

from __future__ import annotations

from config.env import env_bool, env_int

# Server log records are recorded as debug entries (debugtools.handler); off: none are.
DEBUGTOOLS_RECORD_LOGS = env_bool("DEBUGTOOLS_RECORD_LOGS", True)
# Entries waiting for the writer thread; beyond this a flood is dropped (and counted).
DEBUGTOOLS_QUEUE_SIZE = env_int("DEBUGTOOLS_QUEUE_SIZE", 1000, minimum=10)
# The size cap of one entry: its message (characters) and its context (bytes of JSON).
DEBUGTOOLS_MAX_MESSAGE_CHARS = env_int("DEBUGTOOLS_MAX_MESSAGE_CHARS", 4000, minimum=100)
DEBUGTOOLS_MAX_CONTEXT_BYTES = env_int("DEBUGTOOLS_MAX_CONTEXT_BYTES", 16384, minimum=1024)
# Beyond the retention days, the hourly purge also keeps at most this many entries.
DEBUGTOOLS_MAX_ENTRIES = env_int("DEBUGTOOLS_MAX_ENTRIES", 100_000, minimum=100)
# /debug/js-log: the largest body taken (bytes); its rate per client address is the
# `debug_js_log` throttle (config.settings.api).
DEBUGTOOLS_JS_LOG_MAX_BYTES = env_int("DEBUGTOOLS_JS_LOG_MAX_BYTES", 8192, minimum=512)
