"""Logs, metrics and error tracking: the one log format, the debug namespace's log handler,
Prometheus metrics at /metrics, and Sentry."""

from __future__ import annotations

import ipaddress

from django.core.exceptions import ImproperlyConfigured

from common import logging_json
from common.observability import init_sentry
from config.env import env_list, env_str
from config.settings.base import DEBUG

# --- Logging ----------------------------------------------------------------------------------

LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
# Logs: JSON lines with the request id on every record, or plain text; plain is development's
# default. The same format for the web, gunicorn's access log and the Celery worker and beat
# (common.logging_json).
LOG_FORMAT = logging_json.log_format(DEBUG)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "common.observability.RequestIdFilter"}},
    "formatters": {
        "plain": {"format": logging_json.PLAIN},
        "json": logging_json.json_formatter_config(),
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request_id"],
        },
        # The debug namespace's entries (/rest/core/v1/debug/entries): records at or above the
        # recording level of /debug/settings, written by a thread on its own connection
        # (debugtools.handler explains why; it never raises, blocks or recurses).
        "debug_entries": {
            "class": "debugtools.handler.DatabaseHandler",
            "filters": ["request_id"],
        },
    },
    "root": {"handlers": ["console", "debug_entries"], "level": LOG_LEVEL},
    "loggers": {
        "django.request": {"level": "ERROR"},
        "django.server": {"level": "INFO"},
        # The MCP SDK (theme.mcp) logs every stateless request's start and end at INFO: kept to
        # warnings and errors.
        "mcp": {"level": "WARNING"},
    },
}

# --- Metrics ----------------------------------------------------------------------------------

# Prometheus metrics at /metrics (common.metrics): for a scraper sending
# `Authorization: Bearer <METRICS_TOKEN>`, or one whose address is in METRICS_ALLOWED_NETWORKS
# (CIDRs; in development loopback by default). Neither set: refused to everyone.
METRICS_TOKEN = env_str("METRICS_TOKEN")
METRICS_ALLOWED_NETWORKS = env_list(
    "METRICS_ALLOWED_NETWORKS", ["127.0.0.1/32", "::1/128"] if DEBUG else []
)
for _network in METRICS_ALLOWED_NETWORKS:
    try:
        ipaddress.ip_network(_network, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"METRICS_ALLOWED_NETWORKS: {_network!r} is not a network (CIDR)"
        ) from None

# --- Error tracking ---------------------------------------------------------------------------

# Sentry when SENTRY_DSN is set (no personal data; common.observability).
SENTRY_DSN = env_str("SENTRY_DSN")
init_sentry(
    SENTRY_DSN,
    environment=env_str("SENTRY_ENVIRONMENT"),
    release=env_str("SENTRY_RELEASE"),
)
