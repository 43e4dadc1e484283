"""Review writes: submit (with moderation), moderate, delete, helpful votes, ratings."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.db import IntegrityError, transaction
from django.db.models import Avg, Count, F
from django.utils import timezone

from store.catalog import cache as catalog_cache
from store.catalog.choices import ProductStatus
from store.catalog.models import Product
from store.common.accounts import logged_in
from store.common.errors import not_found, rule_broken
from store.reviews.models import Review, ReviewStatus, ReviewVote
from store.settings import selectors as store_settings


def product_rating_refresh(*, product_id: int) -> None:
    """Average and count of the product's approved reviews, stored on the product."""
    summary = Review.objects.filter(product_id=product_id, status=ReviewStatus.APPROVED).aggregate(
        average=Avg("rating"), count=Count("id")
    )
    average = Decimal(str(summary["average"] or 0)).quantize(Decimal("0.01"), ROUND_HALF_UP)
    Product.objects.filter(pk=product_id).update(
        average_rating=average, review_count=summary["count"]
    )
    catalog_cache.invalidate([product_id], [catalog_cache.RATING])


@transaction.atomic
def review_submit(*, product_id: int, user, rating: int, content: str, title: str = "") -> Review:
    """A logged-in shopper's review of an active product: one per person and product.

    Published at once, or held as pending when the store moderates reviews.
    """
    reviews = store_settings.get_section("reviews")
    if not reviews["enabled"]:
        raise rule_broken("This store does not take reviews.", code="reviews_disabled", status=403)
    product = (
        Product.objects.select_for_update()
        .filter(pk=product_id, status=ProductStatus.ACTIVE)
        .first()
    )
    if product is None:
        raise not_found("product", product_id)
    if Review.objects.filter(product=product, user=user).exists():
        raise rule_broken(
            "You have already reviewed this product.", code="review_exists", status=409
        )
    status = ReviewStatus.PENDING if reviews["moderation_required"] else ReviewStatus.APPROVED
    try:
        with transaction.atomic():
            review = Review.objects.create(
                product=product,
                user=user,
                author_name=(user.get_full_name() or user.email)[:150],
                author_email=user.email,
                rating=rating,
                title=title,
                content=content,
                status=status,
            )
    except IntegrityError:
        raise rule_broken(
            "You have already reviewed this product.", code="review_exists", status=409
        ) from None
    if status == ReviewStatus.APPROVED:
        product_rating_refresh(product_id=product.pk)
    return review


def _get_for_update(review_id: int) -> Review:
    """The review, locked after its product: the order product_delete takes them in (the
    product, then its reviews by cascade), so a review's change racing its product's deletion
    waits instead of deadlocking, and then finds the review gone (404)."""
    product_id = Review.objects.filter(pk=review_id).values_list("product_id", flat=True).first()
    if product_id is None:
        raise not_found("review", review_id)
    list(Product.objects.select_for_update().filter(pk=product_id).values_list("pk"))
    review = Review.objects.select_for_update().filter(pk=review_id).first()
    if review is None:
        raise not_found("review", review_id)
    return review


@transaction.atomic
def review_update(*, review_id: int, fields: dict, moderator=None) -> Review:
    """Staff edit and moderation: status (approve, reject, back to pending), text, rating."""
    review = _get_for_update(review_id)
    for name in ("title", "content", "rating"):
        if name in fields:
            setattr(review, name, fields[name])
    if "status" in fields and fields["status"] != review.status:
        review.status = fields["status"]
        review.moderated_by = logged_in(moderator)
        review.moderated_at = timezone.now()
    review.save()
    product_rating_refresh(product_id=review.product_id)
    return review


@transaction.atomic
def review_delete(*, review_id: int) -> None:
    review = _get_for_update(review_id)
    product_id = review.product_id
    review.delete()
    product_rating_refresh(product_id=product_id)


@transaction.atomic
def review_vote_helpful(*, review_id: int, user) -> tuple[Review, bool]:
    """Count the user's "helpful" vote once. Answers the review and whether this vote counted."""
    review = (
        Review.objects.select_for_update()
        .filter(pk=review_id, status=ReviewStatus.APPROVED)
        .first()
    )
    if review is None:
        raise not_found("review", review_id)
    if review.user_id == user.pk:
        raise rule_broken("You cannot vote for your own review.", code="own_review")
    try:
        with transaction.atomic():
            ReviewVote.objects.create(review=review, user=user)
    except IntegrityError:
        return review, False
    Review.objects.filter(pk=review.pk).update(helpful_count=F("helpful_count") + 1)
    review.refresh_from_db(fields=["helpful_count"])
    return review, True
