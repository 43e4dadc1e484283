"""Reviews in the admin: moderated and edited through review_update (the API's moderation:
who moderated and when, the product's rating follows), deleted through review_delete.
Reviews and helpful votes come from shoppers, so neither is added here."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ActionsInHistory, ReadOnlyAdmin, RefusalsAsMessages, for_each
from store.reviews import services
from store.reviews.models import Review, ReviewStatus, ReviewVote

EDITABLE = ("rating", "title", "content", "status")


@admin.register(Review)
class ReviewAdmin(ActionsInHistory, RefusalsAsMessages, admin.ModelAdmin):
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
    fields = [
        "product",
        "user",
        "author_name",
        "author_email",
        "verified_owner",
        *EDITABLE,
        "helpful_count",
        "moderated_by",
        "moderated_at",
        "created_at",
        "updated_at",
    ]
    readonly_fields = [name for name in fields if name not in EDITABLE]
    actions = ["approve", "reject"]

    def has_add_permission(self, request):
        return False

    def save_model(self, request, obj, form, change):
        fields = {name: form.cleaned_data[name] for name in EDITABLE if name in form.changed_data}
        services.review_update(review_id=obj.pk, fields=fields, moderator=request.user)
        obj.refresh_from_db()

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
        done = for_each(
            self,
            request,
            queryset.values_list("pk", flat=True),
            lambda pk: services.review_update(
                review_id=pk, fields={"status": status}, moderator=request.user
            ),
            label="Review",
        )
        self.message_user(request, f"{done} review(s) {status}.")


@admin.register(ReviewVote)
class ReviewVoteAdmin(ReadOnlyAdmin):
    """Read-only: a vote counts through review_vote_helpful (the review's helpful count)."""

    list_display = ["review", "user", "created_at"]
    list_select_related = ["review", "user"]
    readonly_fields = ["review", "user", "created_at"]
