"""Demo reviews for `manage.py seed_demo` (development only; idempotent)."""

from __future__ import annotations

from accounts.models import User
from store.catalog.models import Product
from store.reviews import services
from store.reviews.models import Review, ReviewStatus

REVIEWS = [
    (
        "classic-tee",
        "developer@example.com",
        5,
        "Perfect fit",
        "Soft and keeps its shape after washing.",
        ReviewStatus.APPROVED,
    ),
    (
        "classic-tee",
        "reseller@example.com",
        4,
        "Nice colour",
        "The blue is lovely; runs a little large.",
        ReviewStatus.APPROVED,
    ),
    ("classic-tee", "agency@example.com", 3, "", "Good, not great.", ReviewStatus.PENDING),
    (
        "ceramic-mug",
        "developer@example.com",
        5,
        "My new favourite mug",
        "Holds a lot of coffee.",
        ReviewStatus.APPROVED,
    ),
]


def seed() -> list[str]:
    lines = []
    for slug, email, rating, title, content, status in REVIEWS:
        product = Product.objects.filter(slug=slug).first()
        user = User.objects.filter(email=email).first()
        if product is None or user is None:
            continue
        review = Review.objects.filter(product=product, user=user).first()
        if review is None:
            review = Review.objects.create(
                product=product,
                user=user,
                author_name=user.name,
                author_email=user.email,
                rating=rating,
                title=title,
                content=content,
                status=status,
            )
        services.product_rating_refresh(product_id=product.pk)
        lines.append(f"  {product.title}: {rating}/5 by {user.email} ({review.status})")
    return lines
