from django.apps import AppConfig


class DebugToolsConfig(AppConfig):
    """The core namespace's debug API: the structured log entries this service records, their
    settings, diagnostics, and a sink for client-side log entries."""

    name = "debugtools"
    verbose_name = "Debug tools"
