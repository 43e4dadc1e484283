"""Page builder bodies, queries and answers (the answers' serializers document the OpenAPI
description; the views build plain dicts)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.params import PageField, PerPageField, StrictCharField
from theme.builder.blocks import MAX_BLOCKS, MAX_DEPTH
from theme.builder.models import LayoutStatus

BLOCK_SCHEMA = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "description": "A block type of GET /builder/blocks."},
        "settings": {
            "type": "object",
            "additionalProperties": True,
            "description": "Validated against the type's JSON schema.",
        },
        "children": {
            "type": "array",
            "items": {"type": "object", "additionalProperties": True},
            "description": "Container types only (columns, column): blocks of the same shape.",
        },
    },
    "required": ["type"],
}


@extend_schema_field({"type": "array", "items": BLOCK_SCHEMA})
class BlocksField(serializers.JSONField):
    """A block tree; its shape and settings are checked by theme.builder.blocks (400
    `invalid_block` naming each bad block)."""

    def __init__(self, **kwargs):
        kwargs.setdefault(
            "help_text",
            f"The blocks, in order: at most {MAX_BLOCKS} in all, nested at most {MAX_DEPTH} "
            "levels.",
        )
        super().__init__(**kwargs)


VERSION_HELP = (
    "The version you read (0 to create): a stale one answers 409 `version_conflict` and "
    "changes nothing."
)


class LayoutBodySerializer(serializers.Serializer):
    blocks = BlocksField()
    status = serializers.ChoiceField(
        choices=LayoutStatus.choices, default=LayoutStatus.DRAFT, help_text="draft or published."
    )
    version = IntegerField(min_value=0, max_value=2**31 - 1, help_text=VERSION_HELP)


class BlocksBodySerializer(serializers.Serializer):
    blocks = BlocksField()


class LayoutSerializer(serializers.Serializer):
    page_id = IdField()
    status = serializers.ChoiceField(choices=LayoutStatus.choices)
    version = IntegerField()
    blocks = BlocksField()
    author_id = IdField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class LayoutAnswerSerializer(serializers.Serializer):
    layout = LayoutSerializer()


class PreviewSerializer(serializers.Serializer):
    page_id = IdField()
    version = IntegerField(allow_null=True, help_text="The saved layout's; null for a posted one.")
    status = serializers.CharField(allow_null=True)
    html = serializers.CharField()


class RenderSerializer(serializers.Serializer):
    html = serializers.CharField(help_text="The layout's HTML, every value escaped.")
    block_count = IntegerField()


class BlockTypeSerializer(serializers.Serializer):
    type = serializers.CharField()
    label = serializers.CharField()
    description = serializers.CharField()
    container = serializers.BooleanField()
    children = serializers.ListField(child=serializers.CharField())
    max_children = IntegerField()
    top_level = serializers.BooleanField()
    schema = serializers.DictField(help_text="The JSON Schema (Draft 2020-12) of its settings.")


class LimitsSerializer(serializers.Serializer):
    max_depth = IntegerField()
    max_blocks = IntegerField()


class BlockTypesSerializer(serializers.Serializer):
    blocks = BlockTypeSerializer(many=True)
    limits = LimitsSerializer()


class TemplateQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")
    search = serializers.CharField(
        max_length=200, required=False, default="", allow_blank=True, help_text="In the name."
    )


class TemplateBodySerializer(serializers.Serializer):
    name = StrictCharField(max_length=200)
    description = StrictCharField(max_length=2000, required=False, allow_blank=True)
    blocks = BlocksField()
    version = IntegerField(
        min_value=1,
        max_value=2**31 - 1,
        required=False,
        help_text="Updates: the version you read (a stale one answers 409 `version_conflict`).",
    )


class TemplateSummarySerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    description = serializers.CharField()
    version = IntegerField()
    block_count = IntegerField()
    updated_at = serializers.DateTimeField()


class TemplateSerializer(TemplateSummarySerializer):
    blocks = BlocksField()
    author_id = IdField(allow_null=True)
    created_at = serializers.DateTimeField()


class TemplateAnswerSerializer(serializers.Serializer):
    template = TemplateSerializer()


class TemplatePageSerializer(serializers.Serializer):
    templates = TemplateSummarySerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


class TemplateDeletedSerializer(serializers.Serializer):
    id = IdField()
    deleted = serializers.BooleanField()


class PresetQuerySerializer(serializers.Serializer):
    category = serializers.CharField(max_length=64, required=False, help_text="Only this one.")


class PresetSummarySerializer(serializers.Serializer):
    category = serializers.CharField()
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    version = IntegerField()


class PresetListSerializer(serializers.Serializer):
    presets = PresetSummarySerializer(many=True)
    categories = serializers.ListField(child=serializers.CharField())


class PresetSerializer(PresetSummarySerializer):
    blocks = BlocksField()


class PresetAnswerSerializer(serializers.Serializer):
    preset = PresetSerializer()
