from rest_framework import serializers

from common.api.fields import IntegerField
from store.common.formats import iso
from store.common.pagination import MetaSerializer
from store.common.params import PageField, PerPageField
from store.media.selectors import featured
from store.media.shapes import ImageObjectSerializer, SourcesSerializer


class MediaSerializer(ImageObjectSerializer):
    """An image of the media library: the featured_image object with its modern formats and
    its record (title, file name and type, size, upload time)."""

    sources = SourcesSerializer()
    title = serializers.CharField()
    original_name = serializers.CharField()
    content_type = serializers.CharField()
    size = IntegerField(column="BigIntegerField", help_text="Bytes.")
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


class MediaPageSerializer(serializers.Serializer):
    data = MediaSerializer(many=True)
    meta = MetaSerializer()


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
