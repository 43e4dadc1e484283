from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.db.models import Count, Q, QuerySet

from store.catalog.choices import ProductStatus
from store.common.errors import not_found
from store.reviews.models import Review, ReviewStatus

ORDERING = {"date": "created_at", "rating": "rating", "helpful": "helpful_count"}


def _ordered(queryset: QuerySet, orderby: str, order: str) -> QuerySet:
    field = ORDERING.get(orderby, "created_at")
    prefix = "-" if order.upper() == "DESC" else ""
    return queryset.order_by(f"{prefix}{field}", f"{prefix}id")


def product_reviews(*, product_id: int, rating: int | None, orderby: str, order: str) -> QuerySet:
    """A product's published reviews."""
    queryset = Review.objects.filter(product_id=product_id, status=ReviewStatus.APPROVED)
    if rating:
        queryset = queryset.filter(rating=rating)
    return _ordered(queryset, orderby, order)


def reviews_for_staff(
    *,
    status: str | None,
    product_id: int | None,
    rating: int | None,
    search: str | None,
    orderby: str,
    order: str,
) -> QuerySet:
    queryset = Review.objects.select_related("product")
    if status:
        queryset = queryset.filter(status=status)
    if product_id:
        queryset = queryset.filter(product_id=product_id)
    if rating:
        queryset = queryset.filter(rating=rating)
    if search:
        queryset = queryset.filter(
            Q(title__icontains=search)
            | Q(content__icontains=search)
            | Q(author_name__icontains=search)
            | Q(author_email__icontains=search)
        )
    return _ordered(queryset, orderby, order)


def review_get(review_id: int, *, user=None, staff: bool = False) -> Review:
    """A published review; an unpublished one only for staff and its author."""
    review = Review.objects.select_related("product").filter(pk=review_id).first()
    visible = review is not None and (
        (review.status == ReviewStatus.APPROVED and review.product.status == ProductStatus.ACTIVE)
        or staff
        or (user is not None and user.is_authenticated and review.user_id == user.pk)
    )
    if not visible:
        raise not_found("review", review_id)
    return review


def rating_summary(product) -> dict:
    rows = (
        Review.objects.filter(product=product, status=ReviewStatus.APPROVED)
        .values("rating")
        .annotate(count=Count("id"))
        .order_by()
    )
    distribution = {str(star): 0 for star in range(5, 0, -1)}
    for row in rows:
        distribution[str(row["rating"])] = row["count"]
    total = sum(distribution.values())
    points = sum(int(star) * count for star, count in distribution.items())
    average = (Decimal(points) / Decimal(total)) if total else Decimal(0)
    return {
        "product_id": product.pk,
        "average_rating": format(average.quantize(Decimal("0.01"), ROUND_HALF_UP), "f"),
        "review_count": total,
        "distribution": distribution,
    }
