from django.contrib import admin

from store.reviews import services
from store.reviews.models import Review, ReviewStatus, ReviewVote


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):
    list_display = [
        "product",
        "rating",
        "title",
        "status",
        "author_name",
        "helpful_count",
        "created_at",
    ]
    list_filter = ["status", "rating", "verified_owner", "created_at"]
    search_fields = ["title", "content", "author_name", "author_email", "product__title"]
    list_select_related = ["product"]
    raw_id_fields = ["product", "user"]
    readonly_fields = ["helpful_count", "moderated_by", "moderated_at", "created_at", "updated_at"]
    actions = ["approve", "reject"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        services.product_rating_refresh(product_id=obj.product_id)

    def delete_model(self, request, obj):
        services.review_delete(review_id=obj.pk)

    def delete_queryset(self, request, queryset):
        for review_id in queryset.values_list("pk", flat=True):
            services.review_delete(review_id=review_id)

    @admin.action(description="Approve (publish)")
    def approve(self, request, queryset):
        self._moderate(request, queryset, ReviewStatus.APPROVED)

    @admin.action(description="Reject")
    def reject(self, request, queryset):
        self._moderate(request, queryset, ReviewStatus.REJECTED)

    def _moderate(self, request, queryset, status):
        ids = list(queryset.values_list("pk", flat=True))
        for review_id in ids:
            services.review_update(
                review_id=review_id, fields={"status": status}, moderator=request.user
            )
        self.message_user(request, f"{len(ids)} review(s) {status}.")


@admin.register(ReviewVote)
class ReviewVoteAdmin(admin.ModelAdmin):
    list_display = ["review", "user", "created_at"]
    raw_id_fields = ["review", "user"]
    list_select_related = ["review", "user"]
