from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.formats import iso
from store.common.pagination import MetaSerializer
from store.common.params import CaseInsensitiveChoiceField, PageField, PerPageField
from store.reviews.models import ReviewStatus


def review_data(review, *, staff: bool = False) -> dict:
    data = {
        "id": review.pk,
        "product_id": review.product_id,
        "rating": review.rating,
        "title": review.title,
        "content": review.content,
        "status": review.status,
        "author_name": review.author_name,
        "verified_owner": review.verified_owner,
        "helpful_count": review.helpful_count,
        "created_at": iso(review.created_at),
        "updated_at": iso(review.updated_at),
    }
    if staff:
        data.update(
            {
                "user_id": review.user_id,
                "author_email": review.author_email,
                "moderated_at": iso(review.moderated_at),
            }
        )
    return data


class ReviewSerializer(serializers.Serializer):
    id = IdField()
    product_id = IdField()
    rating = IntegerField(column="PositiveSmallIntegerField", min_value=1, max_value=5)
    title = serializers.CharField()
    content = serializers.CharField()
    status = serializers.ChoiceField(choices=ReviewStatus.choices)
    author_name = serializers.CharField()
    verified_owner = serializers.BooleanField()
    helpful_count = IntegerField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    user_id = IdField(required=False, allow_null=True, help_text="Staff only.")
    author_email = serializers.EmailField(required=False, help_text="Staff only.")
    moderated_at = serializers.DateTimeField(
        required=False, allow_null=True, help_text="Staff only."
    )


class ReviewPageSerializer(serializers.Serializer):
    data = ReviewSerializer(many=True)
    meta = MetaSerializer()


class RatingSerializer(serializers.Serializer):
    product_id = IdField()
    average_rating = serializers.CharField(
        help_text="Decimal string, two places; 0.00 without reviews."
    )
    review_count = IntegerField()
    distribution = serializers.DictField(child=IntegerField(), help_text='{"5": n, ..., "1": n}')


class HelpfulDataSerializer(serializers.Serializer):
    review_id = IdField()
    helpful_count = IntegerField()
    counted = serializers.BooleanField(help_text="False when this person had already voted.")


class HelpfulSerializer(serializers.Serializer):
    success = serializers.BooleanField()
    message = serializers.CharField()
    data = HelpfulDataSerializer()


_ORDERBY = ["date", "rating", "helpful"]


class ProductReviewsQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=10)
    rating = IntegerField(
        column="PositiveSmallIntegerField", required=False, min_value=1, max_value=5
    )
    orderby = CaseInsensitiveChoiceField(choices=_ORDERBY, required=False, default="date")
    order = CaseInsensitiveChoiceField(choices=["ASC", "DESC"], required=False, default="DESC")


class StaffReviewsQuerySerializer(ProductReviewsQuerySerializer):
    per_page = PerPageField(cap=100, default=20)
    status = CaseInsensitiveChoiceField(choices=ReviewStatus.values, required=False)
    product_id = IdField(required=False, min_value=1)
    search = serializers.CharField(required=False, max_length=200)


class ReviewSubmitSerializer(serializers.Serializer):
    rating = IntegerField(min_value=1, max_value=5)
    title = serializers.CharField(max_length=200, allow_blank=True, required=False, default="")
    content = serializers.CharField(max_length=5000)


class ReviewUpdateSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=ReviewStatus.choices, required=False)
    rating = IntegerField(min_value=1, max_value=5, required=False)
    title = serializers.CharField(max_length=200, allow_blank=True, required=False)
    content = serializers.CharField(max_length=5000, required=False)
