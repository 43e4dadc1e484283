"""Reviews: a product's published reviews and rating, submit, helpful votes, moderation."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from store.catalog.selectors import products as product_selectors
from store.common.capabilities import MANAGE_REVIEWS
from store.common.pagination import data_page, page_of
from store.common.params import validate_body, validate_query
from store.common.permissions import LOGGED_IN, PUBLIC, can
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.reviews import selectors, services

from . import serializers as s

TAG = "Reviews"
PRODUCT_ID = OpenApiParameter("product_id", int, OpenApiParameter.PATH)
REVIEW_ID = OpenApiParameter("review_id", int, OpenApiParameter.PATH)


class ProductReviewsView(StoreAPIView):
    access = {"GET": PUBLIC, "POST": LOGGED_IN}
    openapi_tag = TAG

    @store_schema(
        summary="A product's published reviews",
        parameters=[s.ProductReviewsQuerySerializer],
        responses={200: s.ReviewPageSerializer},
    )
    def get(self, request, product_id):
        query = validate_query(s.ProductReviewsQuerySerializer, request.query_params)
        product = product_selectors.product_exists(product_id)
        page = page_of(
            selectors.product_reviews(
                product_id=product.pk,
                rating=query.get("rating"),
                orderby=query["orderby"],
                order=query["order"],
            ),
            query,
        )
        return Response(data_page(page, s.review_data))

    @store_schema(
        summary="Review a product",
        request=s.ReviewSubmitSerializer,
        responses={201: s.ReviewSerializer},
        errors={409: "This account has already reviewed the product (`review_exists`)."},
        description="Logged-in accounts, once per product. With the store setting "
        "reviews.moderation_required on (the default) the review is `pending` until staff "
        "approve it; 403 `reviews_disabled` when the store takes no reviews.",
    )
    def post(self, request, product_id):
        fields = validate_body(s.ReviewSubmitSerializer, request.data)
        review = services.review_submit(
            product_id=product_id,
            user=request.user,
            rating=fields["rating"],
            title=fields.get("title", ""),
            content=fields["content"],
        )
        return Response(s.review_data(review), status=status.HTTP_201_CREATED)


class ProductRatingView(StoreAPIView):
    access = {"GET": PUBLIC}
    openapi_tag = TAG

    @store_schema(
        summary="A product's rating summary",
        responses={200: s.RatingSerializer},
        parameters=[PRODUCT_ID],
    )
    def get(self, request, product_id):
        product = product_selectors.product_exists(product_id)
        return Response(selectors.rating_summary(product))


class ReviewListView(StoreAPIView):
    access = {"GET": MANAGE_REVIEWS}
    openapi_tag = TAG

    @store_schema(
        summary="All reviews, for moderation",
        parameters=[s.StaffReviewsQuerySerializer],
        responses={200: s.ReviewPageSerializer},
        description="Every status (filter with `status=pending` for the moderation queue).",
    )
    def get(self, request):
        query = validate_query(s.StaffReviewsQuerySerializer, request.query_params)
        page = page_of(
            selectors.reviews_for_staff(
                status=query.get("status"),
                product_id=query.get("product_id"),
                rating=query.get("rating"),
                search=query.get("search"),
                orderby=query["orderby"],
                order=query["order"],
            ),
            query,
        )
        return Response(data_page(page, lambda r: s.review_data(r, staff=True)))


class ReviewDetailView(StoreResourceView):
    access = {"GET": PUBLIC, "*": MANAGE_REVIEWS}
    openapi_tag = TAG
    resource = "review"
    id_kwarg = "review_id"
    output_serializer = s.ReviewSerializer
    write_serializer = s.ReviewUpdateSerializer
    summaries = {"patch": "Moderate or edit a review", "put": "Moderate or edit a review"}
    descriptions = {
        "get": "Published reviews for everyone; pending and rejected ones only for staff and "
        "their author.",
        "patch": "`status`: approved publishes, rejected hides, pending holds; the product's "
        "rating follows.",
    }

    def read(self, request, pk):
        staff = can(request, MANAGE_REVIEWS)
        return s.review_data(selectors.review_get(pk, user=request.user, staff=staff), staff=staff)

    def update(self, request, pk, fields):
        services.review_update(review_id=pk, fields=fields, moderator=request.user)

    def remove(self, request, pk):
        services.review_delete(review_id=pk)


class ReviewHelpfulView(StoreAPIView):
    access = {"POST": LOGGED_IN}
    openapi_tag = TAG

    @store_schema(
        summary="Mark a review helpful",
        request=None,
        responses={200: s.HelpfulSerializer},
        parameters=[REVIEW_ID],
        description="Counted once per account: voting again answers 200 with `counted: "
        "false` and the same count. Not for one's own review (400 `own_review`).",
    )
    def post(self, request, review_id):
        review, counted = services.review_vote_helpful(review_id=review_id, user=request.user)
        return Response(
            {
                "success": True,
                "message": "Thanks for your vote." if counted else "You had already voted.",
                "data": {
                    "review_id": review.pk,
                    "helpful_count": review.helpful_count,
                    "counted": counted,
                },
            }
        )
