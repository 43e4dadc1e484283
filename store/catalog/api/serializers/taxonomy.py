"""Categories, attributes, terms and brands: output shapes and input serializers."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.catalog.choices import AttributeType
from store.common.formats import iso
from store.common.pagination import MetaSerializer
from store.common.params import IdListField, PageField, PerPageField
from store.media.selectors import featured
from store.media.shapes import ImageObjectSerializer

# --- Output -------------------------------------------------------------------------------------


def category_data(category) -> dict:
    return {
        "id": category.pk,
        "name": category.name,
        "slug": category.slug,
        "parent_id": category.parent_id,
        "description": category.description,
        "image_id": category.image_id,
        "image": featured(category.image),
        "sort_order": category.sort_order,
        "count": getattr(category, "count", None),
        "created_at": iso(category.created_at),
        "updated_at": iso(category.updated_at),
    }


def tree_data(node: dict) -> dict:
    return {**category_data(node["category"]), "children": [tree_data(c) for c in node["children"]]}


def term_data(term) -> dict:
    return {
        "id": term.pk,
        "attribute_id": term.attribute_id,
        "name": term.name,
        "slug": term.slug,
        "value": term.value,
        "sort_order": term.sort_order,
        "count": getattr(term, "count", None),
    }


def attribute_data(attribute, *, with_terms: bool = False) -> dict:
    data = {
        "id": attribute.pk,
        "name": attribute.name,
        "slug": attribute.slug,
        "type": attribute.type,
        "sort_order": attribute.sort_order,
        "terms_count": getattr(attribute, "terms_count", None),
    }
    if with_terms:
        data["terms"] = [term_data(t) for t in attribute.terms.all()]
    return data


def brand_data(brand) -> dict:
    return {
        "id": brand.pk,
        "name": brand.name,
        "slug": brand.slug,
        "description": brand.description,
        "website": brand.website,
        "logo_id": brand.logo_id,
        "logo": featured(brand.logo),
        "count": getattr(brand, "count", None),
        "created_at": iso(brand.created_at),
        "updated_at": iso(brand.updated_at),
    }


class CategorySerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()
    parent_id = IdField(allow_null=True)
    description = serializers.CharField()
    image_id = IdField(allow_null=True)
    image = ImageObjectSerializer(allow_null=True)
    sort_order = IntegerField()
    count = IntegerField(help_text="Active products in this category itself.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class CategoryTreeSerializer(CategorySerializer):
    children = serializers.ListField(
        child=serializers.DictField(), help_text="Nested categories, same shape."
    )


class TermSerializer(serializers.Serializer):
    id = IdField()
    attribute_id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()
    value = serializers.CharField()
    sort_order = IntegerField()
    count = IntegerField(help_text="Active products with this term.")


class AttributeSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()
    type = serializers.ChoiceField(choices=AttributeType.choices)
    sort_order = IntegerField()
    terms_count = IntegerField()


class AttributeWithTermsSerializer(AttributeSerializer):
    terms = TermSerializer(many=True)


class BrandSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()
    description = serializers.CharField()
    website = serializers.CharField()
    logo_id = IdField(allow_null=True)
    logo = ImageObjectSerializer(allow_null=True)
    count = IntegerField(help_text="Active products of this brand.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class CategoryPageSerializer(serializers.Serializer):
    data = CategorySerializer(many=True)
    meta = MetaSerializer()


class BrandPageSerializer(serializers.Serializer):
    data = BrandSerializer(many=True)
    meta = MetaSerializer()


class AttributeListSerializer(serializers.Serializer):
    data = AttributeSerializer(many=True)


class AttributeWithTermsListSerializer(serializers.Serializer):
    data = AttributeWithTermsSerializer(many=True)


class TermListSerializer(serializers.Serializer):
    data = TermSerializer(many=True)


class BulkResultSerializer(serializers.Serializer):
    success = serializers.BooleanField()
    message = serializers.CharField()
    data = serializers.DictField(
        help_text="{created: [category], updated: [category], deleted: [id]}"
    )


# --- Input --------------------------------------------------------------------------------------


class CategoryListQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=100)
    parent = IntegerField(required=False, min_value=0, help_text="0: top level only.")
    search = serializers.CharField(required=False, max_length=200)
    hide_empty = serializers.BooleanField(required=False, default=False)


class CategoryWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    slug = serializers.SlugField(max_length=200, allow_unicode=True, required=False)
    parent_id = IntegerField(required=False, allow_null=True, min_value=1)
    description = serializers.CharField(allow_blank=True, required=False, max_length=20_000)
    image_id = IntegerField(required=False, allow_null=True, min_value=1)
    sort_order = IntegerField(required=False, min_value=-1_000_000, max_value=1_000_000)

    def validate_name(self, value):
        if not value.strip():
            raise serializers.ValidationError("This field may not be blank.")
        return value.strip()


class CategoryBulkUpdateSerializer(CategoryWriteSerializer):
    id = IntegerField(min_value=1)


class CategoryBulkSerializer(serializers.Serializer):
    create = CategoryWriteSerializer(many=True, required=False, default=list)
    update = serializers.ListField(
        child=serializers.DictField(), required=False, default=list, max_length=500
    )
    delete = IdListField(default=list)

    def validate_create(self, value):
        if len(value) > 500:
            raise serializers.ValidationError("At most 500 categories per request.")
        return value

    def validate_update(self, items):
        out, errors = [], {}
        for index, item in enumerate(items):
            serializer = CategoryBulkUpdateSerializer(data=item, partial=True)
            if "id" not in item:
                errors[index] = {"id": ["This field is required."]}
            elif serializer.is_valid():
                out.append(serializer.validated_data)
            else:
                errors[index] = serializer.errors
        if errors:
            raise serializers.ValidationError(errors)
        return out

    def validate(self, attrs):
        if not (attrs.get("create") or attrs.get("update") or attrs.get("delete")):
            raise serializers.ValidationError(
                {"create": ["Send at least one of create, update, delete."]}
            )
        return attrs


class AttributeWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    slug = serializers.CharField(
        max_length=100, required=False, help_text="Names the list filter attr_{slug}."
    )
    type = serializers.ChoiceField(choices=AttributeType.choices, required=False)
    sort_order = IntegerField(required=False, min_value=-1_000_000, max_value=1_000_000)


class TermWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    slug = serializers.SlugField(max_length=100, allow_unicode=True, required=False)
    value = serializers.CharField(max_length=64, allow_blank=True, required=False)
    sort_order = IntegerField(required=False, min_value=-1_000_000, max_value=1_000_000)


class BrandListQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=100)
    search = serializers.CharField(required=False, max_length=200)


class BrandSearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=200, help_text="Part of the brand's name or slug.")
    per_page = PerPageField(cap=50, default=10)


class BrandWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    slug = serializers.SlugField(max_length=200, allow_unicode=True, required=False)
    description = serializers.CharField(allow_blank=True, required=False, max_length=20_000)
    website = serializers.URLField(allow_blank=True, required=False, max_length=200)
    logo_id = IntegerField(required=False, allow_null=True, min_value=1)
