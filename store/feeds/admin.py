"""Feeds admin: each marketplace's feed (its status; its settings saved through the service;
actions that ask for a generation and rotate the secret URL token) and the category mapping
(saved and deleted through the service)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from common.admin import ServiceAdmin, ServiceForm, for_each
from store.common.errors import rule_broken
from store.feeds import services
from store.feeds.models import CategoryMapping, Feed


class FeedForm(ServiceForm):
    class Meta:
        model = Feed
        fields = list(services.FEED_FIELDS)

    def check(self, fields: dict) -> None:
        services.feed_check(marketplace=self.instance.marketplace, fields=fields)


@admin.register(Feed)
class FeedAdmin(ServiceAdmin):
    form = FeedForm
    list_display = [
        "marketplace",
        "enabled",
        "status",
        "generated_at",
        "item_count",
        "skipped_count",
    ]
    list_filter = ["enabled", "status"]
    readonly_fields = [
        "marketplace",
        "status",
        "requested_at",
        "started_at",
        "generated_at",
        "item_count",
        "skipped_count",
        "skipped",
        "error",
        "token_rotated_at",
    ]
    actions = ["generate", "rotate_token"]

    def has_add_permission(self, request):
        return False  # one row per marketplace, made when first asked for

    def has_delete_permission(self, request, obj=None):
        return False

    def create(self, request, fields):
        # Never offered (has_add_permission is False); a forged call is refused: a feed row
        # is made per marketplace by services.feed_ensure, never added by hand.
        raise rule_broken(
            "Feeds are made per marketplace, not added.", code="not_addable", status=409
        )

    def update(self, request, obj, fields):
        return services.feed_update(marketplace=obj.marketplace, fields=fields)

    def remove(self, request, obj):
        # Never offered (has_delete_permission is False); a forged call is refused: the
        # row holds the feed's secret token and its generated file.
        raise rule_broken(
            "A marketplace's feed is never deleted (disable it).", code="not_deletable", status=409
        )

    def _each(self, request, queryset, call, done: str) -> None:
        marketplaces = queryset.values_list("marketplace", flat=True)
        count = for_each(self, request, marketplaces, lambda m: call(marketplace=m), label="Feed")
        if count:
            self.message_user(request, done.format(count=count), messages.SUCCESS)

    @admin.action(description="Generate the selected feeds")
    def generate(self, request, queryset):
        done = "{count} feed(s) queued for generation."
        self._each(request, queryset, services.generation_request, done)

    @admin.action(description="Rotate the secret URL token of the selected feeds")
    def rotate_token(self, request, queryset):
        done = "{count} token(s) rotated: give the marketplaces the new URLs."
        self._each(request, queryset, services.feed_rotate_token, done)


class CategoryMappingForm(ServiceForm):
    ids = {"category": "category_id"}

    class Meta:
        model = CategoryMapping
        fields = ["marketplace", "category", "value"]
        widgets = {"value": forms.TextInput(attrs={"size": 80})}

    def check(self, fields: dict) -> None:
        marketplace = fields.get("marketplace", self.instance.marketplace)
        category_id = fields.get("category_id", self.instance.category_id)
        value = fields.get("value", self.instance.value)
        services.mapping_check(
            marketplace=marketplace, entries={str(category_id): value}, replace=False
        )


@admin.register(CategoryMapping)
class CategoryMappingAdmin(ServiceAdmin):
    form = CategoryMappingForm
    list_display = ["marketplace", "category", "value", "updated_at"]
    list_filter = ["marketplace"]
    search_fields = ["value", "category__name"]
    autocomplete_fields = ["category"]

    def get_readonly_fields(self, request, obj=None):
        return ["marketplace", "category"] if obj is not None else []

    def create(self, request, fields):
        services.mapping_set(
            marketplace=fields["marketplace"],
            entries={str(fields["category_id"]): fields["value"]},
            replace=False,
        )
        return CategoryMapping.objects.get(
            marketplace=fields["marketplace"], category_id=fields["category_id"]
        )

    def update(self, request, obj, fields):
        if "value" in fields:
            services.mapping_set(
                marketplace=obj.marketplace,
                entries={str(obj.category_id): fields["value"]},
                replace=False,
            )
        return obj

    def remove(self, request, obj):
        services.mapping_set(
            marketplace=obj.marketplace, entries={str(obj.category_id): None}, replace=False
        )
