"""An image as the store answers it, declared for the OpenAPI description: the
`featured_image` object (store.media.selectors.featured builds it) and its modern formats.

A public module of the media (not its `api`): the catalog's products, variants, categories
and brands answer their images in these shapes.
"""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField


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
