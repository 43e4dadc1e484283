from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from store.catalog.models import Product


class ReviewStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"


class Review(models.Model):
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="reviews")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    author_name = models.CharField(max_length=150)
    author_email = models.EmailField(blank=True)
    rating = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=200, blank=True)
    content = models.TextField()
    status = models.CharField(
        max_length=16, choices=ReviewStatus.choices, default=ReviewStatus.PENDING, db_index=True
    )
    verified_owner = models.BooleanField(
        default=False, help_text="The author bought the product (set by the orders app)."
    )
    helpful_count = models.PositiveIntegerField(default=0)
    moderated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    moderated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["product", "user"],
                condition=Q(user__isnull=False),
                name="store_reviews_one_per_user",
            ),
            models.CheckConstraint(
                condition=Q(rating__gte=1, rating__lte=5), name="store_reviews_rating_1_to_5"
            ),
        ]
        indexes = [models.Index(fields=["product", "status", "created_at"])]

    def __str__(self) -> str:
        return f"{self.rating}★ {self.title or self.content[:40]}"


class ReviewVote(models.Model):
    """One "helpful" vote: one per person and review."""

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="votes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["review", "user"], name="store_reviews_one_vote")
        ]

    def __str__(self) -> str:
        return f"vote {self.user_id} on {self.review_id}"
