from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.formats import iso
from store.common.params import PageField, PerPageField
from store.media.selectors import featured


class ImageObjectSerializer(serializers.Serializer):
    """The featured_image object: the original and its sizes in the base format."""

    id = IdField()
    url = serializers.CharField()
    thumbnail = serializers.CharField()
    medium = serializers.CharField()
    large = serializers.CharField()
    alt = serializers.CharField()
    width = IntegerField()
    height = IntegerField()


class SourcesSerializer(serializers.Serializer):
    """Modern formats by size, when made: {"avif": {"thumbnail": url, ...}, "webp": {...}}."""

    avif = serializers.DictField(child=serializers.CharField(), required=False)
    webp = serializers.DictField(child=serializers.CharField(), required=False)


class MediaSerializer(serializers.Serializer):
    id = IdField()
    url = serializers.CharField()
    thumbnail = serializers.CharField()
    medium = serializers.CharField()
    large = serializers.CharField()
    sources = SourcesSerializer()
    alt = serializers.CharField()
    title = serializers.CharField()
    original_name = serializers.CharField()
    content_type = serializers.CharField()
    size = IntegerField(column="BigIntegerField", help_text="Bytes.")
    width = IntegerField()
    height = IntegerField()
    created_at = serializers.DateTimeField()

    def to_representation(self, image):
        return {
            **featured(image),
            "sources": image.sources(),
            "title": image.title,
            "original_name": image.original_name,
            "content_type": image.content_type,
            "size": image.size,
            "created_at": iso(image.created_at),
        }


class MediaUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="JPEG, PNG, GIF, WebP or AVIF (detected from content).")
    alt = serializers.CharField(required=False, allow_blank=True, max_length=255)
    title = serializers.CharField(required=False, allow_blank=True, max_length=255)


class MediaUpdateSerializer(serializers.Serializer):
    alt = serializers.CharField(required=False, allow_blank=True, max_length=255)
    title = serializers.CharField(required=False, allow_blank=True, max_length=255)


class MediaListQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20)
    search = serializers.CharField(required=False, max_length=200)
