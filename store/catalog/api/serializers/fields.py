"""The catalog's own input fields (the store-wide ones are store.common.params)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.api.fields import BIGINT_MAX


@extend_schema_field(
    {
        "oneOf": [
            {"type": "integer", "minimum": 1, "maximum": BIGINT_MAX},
            {"type": "string"},
        ],
        "nullable": True,
    }
)
class BrandRefField(serializers.Field):
    """A brand's id, or its slug; null for none."""

    default_error_messages = {"invalid": "Give a brand id (integer) or a brand slug."}

    def to_internal_value(self, data):
        if isinstance(data, bool):
            self.fail("invalid")
        if isinstance(data, int) and 0 < data <= BIGINT_MAX:
            return data
        if isinstance(data, str) and data.strip():
            text = data.strip()
            if text.isdigit():
                if len(text) > len(str(BIGINT_MAX)) or int(text) > BIGINT_MAX:
                    self.fail("invalid")
                return int(text)
            return text
        self.fail("invalid")

    def to_representation(self, value):
        return value
