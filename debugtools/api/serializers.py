"""Query parameters and bodies of the debug namespace (validated by store.common.params)."""

from __future__ import annotations

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from debugtools.choices import LEVEL_NAMES, Source
from store.common.params import (
    CaseInsensitiveChoiceField,
    PageField,
    PerPageField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
)

PER_PAGE_CAP = 100
JS_LEVELS = ("debug", "info", "log", "warn", "warning", "error")


def _level(**kwargs) -> CaseInsensitiveChoiceField:
    kwargs.setdefault("required", False)
    return CaseInsensitiveChoiceField(choices=LEVEL_NAMES, **kwargs)


class FilterQuery(serializers.Serializer):
    level = _level(help_text="The minimum level: " + ", ".join(LEVEL_NAMES) + ".")
    logger = serializers.CharField(
        required=False, max_length=200, help_text="A logger and its children (`store`)."
    )
    search = serializers.CharField(required=False, max_length=200, help_text="In the message.")
    request_id = serializers.CharField(required=False, max_length=128)
    source = serializers.ChoiceField(choices=Source.choices, required=False)
    since = serializers.DateTimeField(required=False, help_text="From (inclusive), ISO 8601.")
    until = serializers.DateTimeField(required=False, help_text="Until (exclusive), ISO 8601.")

    def validate(self, attrs):
        since, until = attrs.get("since"), attrs.get("until")
        if since and until and since >= until:
            raise serializers.ValidationError({"until": "Must be after since."})
        return attrs


class EntryListQuery(FilterQuery):
    page = PageField()
    per_page = PerPageField(cap=PER_PAGE_CAP, required=False, default=20)


class DownloadQuery(FilterQuery):
    format = serializers.ChoiceField(choices=("ndjson", "zip"), required=False, default="ndjson")


class StatsQuery(serializers.Serializer):
    since = serializers.DateTimeField(required=False, help_text="Default: 24 hours before until.")
    until = serializers.DateTimeField(required=False, help_text="Default: now.")


class SettingsBody(serializers.Serializer):
    level = _level(help_text="Server records at or above it are recorded.")
    retention_days = StrictIntegerField(required=False, min_value=1, max_value=365)
    js_log_enabled = StrictBooleanField(required=False)

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {str(name)[:50]: ["Unknown setting."] for name in unknown[:10]}
                )
        return super().to_internal_value(data)


class ClearBody(serializers.Serializer):
    before = serializers.DateTimeField(required=False, help_text="Only entries older than this.")
    level = _level(help_text="Only entries of this level.")


class TestBody(serializers.Serializer):
    level = _level(default="info")
    message = StrictCharField(
        required=False, max_length=1000, default="Test entry from /debug/test."
    )


class JsLogBody(serializers.Serializer):
    level = CaseInsensitiveChoiceField(choices=JS_LEVELS, required=False, default="error")
    message = StrictCharField(max_length=2000)
    url = StrictCharField(required=False, max_length=2000, allow_blank=True)
    stack = StrictCharField(required=False, max_length=8000, allow_blank=True)
    line = StrictIntegerField(required=False, min_value=0, max_value=10**9)
    column = StrictIntegerField(required=False, min_value=0, max_value=10**9)
    context = serializers.DictField(required=False)


# --- Answers (the OpenAPI description of the core namespace) -----------------------------------


class EntryAnswer(serializers.Serializer):
    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    level = serializers.ChoiceField(choices=LEVEL_NAMES)
    logger = serializers.CharField()
    message = serializers.CharField()
    request_id = serializers.CharField(help_text="Empty outside a request.")
    context = serializers.DictField(help_text="Structured details, as recorded.")
    source = serializers.ChoiceField(choices=Source.choices)


class EntryListAnswer(serializers.Serializer):
    entries = EntryAnswer(many=True)
    total = serializers.IntegerField()
    page = serializers.IntegerField()
    per_page = serializers.IntegerField()
    total_pages = serializers.IntegerField()


class LoggerCount(serializers.Serializer):
    logger = serializers.CharField()
    count = serializers.IntegerField()
    last_at = serializers.DateTimeField()


class StatsAnswer(serializers.Serializer):
    since = serializers.DateTimeField()
    until = serializers.DateTimeField()
    total = serializers.IntegerField()
    by_level = serializers.DictField(
        child=serializers.IntegerField(), help_text="Every level's count, zeros included."
    )
    by_logger = LoggerCount(many=True, help_text="The busiest loggers first.")


class SettingsAnswer(serializers.Serializer):
    level = serializers.ChoiceField(choices=LEVEL_NAMES)
    retention_days = serializers.IntegerField()
    js_log_enabled = serializers.BooleanField()
    updated_at = serializers.DateTimeField(allow_null=True)


class DeletedAnswer(serializers.Serializer):
    deleted = serializers.IntegerField(help_text="How many entries were deleted.")


class DeployWarning(serializers.Serializer):
    id = serializers.CharField(help_text="The check's id, e.g. `security.W012`.")
    level = serializers.ChoiceField(choices=("warning", "error"))
    message = serializers.CharField()
    hint = serializers.CharField(help_text="Empty when the check gives none.")


class DiagnosticFailed(serializers.Serializer):
    status = serializers.CharField(help_text="`error`.")
    error = serializers.CharField(help_text="The exception's class name.")
    what = serializers.CharField(help_text="The diagnostic that failed.")


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="DeployChecks",
        serializers=[DeployWarning(many=True), DiagnosticFailed],
        resource_type_field_name=None,
        many=False,
    )
)
class DeployChecksField(serializers.JSONField):
    """A list of warnings; an object naming the failure when the checks could not run."""


class DiagnosticsAnswer(serializers.Serializer):
    versions = serializers.DictField(help_text="python, implementation, django, libraries.")
    database = serializers.DictField(help_text="Its status, vendor and version.")
    cache = serializers.DictField(help_text="Its status.")
    broker = serializers.DictField(help_text="Its status.")
    worker = serializers.DictField(help_text="Its status (the heartbeat).")
    migrations = serializers.DictField(help_text="`count` and `migrations` pending.")
    checks = DeployChecksField(
        help_text="The deployment checks' warnings and errors (security, caches), or the "
        "failure that kept them from running."
    )
    debug = serializers.DictField(help_text="The debug mode and the recorder's state.")


class ClearedCache(serializers.Serializer):
    name = serializers.CharField()
    scope = serializers.ChoiceField(choices=("shared", "process"))
    entries = serializers.IntegerField(required=False)


class CachesAnswer(serializers.Serializer):
    cleared = ClearedCache(many=True)


class AcceptedAnswer(serializers.Serializer):
    accepted = serializers.BooleanField()
