"""Staff back office for licensing. Every state change goes through licensing.services (the
same functions the API and the commands call); the plain model delete is switched off where a
rule applies. A licence's page shows its history (common.audit); the list exports to CSV."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import Count

from common.admin import (
    ActionsInHistory,
    AuditTrailInline,
    RefusalsAsMessages,
    add_refusal,
    csv_export_action,
    refusal_text,
)
from common.csv_export import column
from common.errors import ServiceError
from licensing import services
from licensing.models import (
    Activation,
    Component,
    License,
    Pack,
    Product,
    Release,
    RenewalOrder,
    RenewalOrderItem,
    SandboxCheckout,
    Subscription,
)
from licensing.services.lifecycle import license_staff_check, license_staff_update
from licensing.versions import parse_version

LICENSE_CSV = [
    column("license_key"),
    column("product", "product.slug"),
    column("owner", "owner.email"),
    column("customer", "customer.email"),
    column("tier"),
    column("status"),
    column("source"),
    column("expires_at"),
    column("invoiced_at"),
    column("revoked_at"),
    column("created_at"),
]


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "slug",
        "starter_yearly_price",
        "starter_max_domains",
        "business_yearly_price",
        "business_max_domains",
        "is_active",
    ]
    list_filter = ["is_active"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ("name",)}


class ActivationInline(admin.TabularInline):
    model = Activation
    extra = 0
    can_delete = False
    fields = ["domain", "is_development", "activated_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class LicenseAddForm(forms.ModelForm):
    class Meta:
        model = License
        fields = ["owner", "product", "tier", "source", "expires_at", "customer"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["expires_at"].required = False
        self.fields["expires_at"].help_text = "Empty: one year from now."

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            services.license_check_new(
                owner=data["owner"],
                product=data["product"],
                tier=data["tier"],
                expires_at=data.get("expires_at"),
                customer_id=data["customer"].pk if data.get("customer") else None,
            )
        except ServiceError as exc:
            raise forms.ValidationError(refusal_text(exc)) from None
        return data


class LicenseChangeForm(forms.ModelForm):
    """Staff edit the expiry and the invoice date, checked and saved by the service."""

    class Meta:
        model = License
        fields = ["expires_at", "invoiced_at"]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            license_staff_check(
                license=self.instance,
                expires_at=data.get("expires_at"),
                invoiced_at=data.get("invoiced_at"),
            )
        except ServiceError as exc:
            add_refusal(self, exc)
        return data


@admin.register(License)
class LicenseAdmin(ActionsInHistory, RefusalsAsMessages, admin.ModelAdmin):
    list_display = [
        "license_key",
        "product",
        "owner",
        "customer",
        "tier",
        "status",
        "source",
        "expires_at",
        "invoiced_at",
        "created_at",
    ]
    list_filter = [
        "status",
        "tier",
        "source",
        "product",
        ("invoiced_at", admin.EmptyFieldListFilter),
    ]
    search_fields = [
        "license_key",
        "owner__email",
        "customer__email",
        "customer__name",
        "activations__domain",
    ]
    list_select_related = ["product", "owner", "customer"]
    raw_id_fields = ["owner", "customer", "subscription", "pack"]
    date_hierarchy = "created_at"
    inlines = [ActivationInline, AuditTrailInline]
    actions = [
        "revoke_selected",
        "reactivate_selected",
        "extend_one_year",
        "mark_invoiced",
        "delete_permanently",
        csv_export_action(
            LICENSE_CSV, name="licences", select_related=["product", "owner", "customer"]
        ),
    ]
    readonly_fields = [
        "license_key",
        "owner",
        "product",
        "tier",
        "status",
        "source",
        "customer",
        "subscription",
        "pack",
        "revoked_at",
        "created_at",
        "updated_at",
    ]

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []

    def get_form(self, request, obj=None, **kwargs):
        kwargs["form"] = LicenseAddForm if obj is None else LicenseChangeForm
        return super().get_form(request, obj, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is not None else []

    def get_fields(self, request, obj=None):
        if obj is None:
            return LicenseAddForm.Meta.fields
        return [*self.readonly_fields[:9], "expires_at", "invoiced_at", *self.readonly_fields[9:]]

    def get_search_results(self, request, queryset, search_term):
        queryset, _duplicates = super().get_search_results(request, queryset, search_term)
        return queryset.distinct(), False

    def save_model(self, request, obj, form, change):
        if change:  # only expires_at and invoiced_at are editable
            license_staff_update(
                license_id=obj.pk,
                expires_at=form.cleaned_data.get("expires_at"),
                invoiced_at=form.cleaned_data.get("invoiced_at"),
            )
            obj.refresh_from_db()
            return
        data = form.cleaned_data
        created = services.license_create(
            owner=data["owner"],
            product=data["product"],
            tier=data["tier"],
            expires_at=data.get("expires_at"),
            customer_id=data["customer"].pk if data.get("customer") else None,
            source=data["source"],
            enforce_limit=False,
        )
        obj.pk = created.pk
        obj.refresh_from_db()

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # permanent deletion has rules: the "delete permanently" action

    def _report(self, request, done: int, total: int, verb: str) -> None:
        level = messages.SUCCESS if done == total else messages.WARNING
        skipped = f"; {total - done} skipped (not eligible)" if done != total else ""
        self.message_user(request, f"{done} licence(s) {verb}{skipped}.", level)

    @admin.action(description="Revoke (deactivates every domain)", permissions=["change"])
    def revoke_selected(self, request, queryset):
        self._report(
            request, services.licenses_revoke(queryset=queryset), queryset.count(), "revoked"
        )

    @admin.action(description="Reactivate (revoked, not expired)", permissions=["change"])
    def reactivate_selected(self, request, queryset):
        done = services.licenses_reactivate(queryset=queryset)
        self._report(request, done, queryset.count(), "reactivated")

    @admin.action(description="Extend by one year", permissions=["change"])
    def extend_one_year(self, request, queryset):
        self._report(
            request, services.licenses_extend(queryset=queryset), queryset.count(), "extended"
        )

    @admin.action(description="Mark invoiced", permissions=["change"])
    def mark_invoiced(self, request, queryset):
        total = queryset.count()
        self._report(
            request, services.licenses_mark_invoiced(queryset=queryset), total, "marked invoiced"
        )

    @admin.action(
        description="Delete permanently (revoked, never invoiced)", permissions=["change"]
    )
    def delete_permanently(self, request, queryset):
        total = queryset.count()
        self._report(request, services.licenses_delete(queryset=queryset), total, "deleted")


@admin.register(Activation)
class ActivationAdmin(ActionsInHistory, admin.ModelAdmin):
    list_display = ["domain", "license", "is_development", "activated_at"]
    list_filter = ["is_development"]
    search_fields = ["domain", "license__license_key", "license__owner__email"]
    list_select_related = ["license"]
    readonly_fields = ["license", "domain", "is_development", "activated_at"]
    actions = ["deactivate_selected"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # deactivation publishes an event: the "deactivate" action

    @admin.action(description="Deactivate (emits license.deactivated)", permissions=["change"])
    def deactivate_selected(self, request, queryset):
        done = services.activation_delete(activation_ids=queryset.values_list("pk", flat=True))
        self.message_user(request, f"{done} activation(s) removed.", messages.SUCCESS)


class PackForm(forms.ModelForm):
    class Meta:
        model = Pack
        fields = ["owner", "bundle", "size", "used", "status", "purchased_at", "expires_at"]

    def clean(self):
        data = super().clean()
        size, used = data.get("size"), data.get("used")
        if size is not None and used is not None and used > size:
            raise forms.ValidationError("Used credits cannot exceed the pack size.")
        return data


@admin.register(Pack)
class PackAdmin(admin.ModelAdmin):
    form = PackForm
    list_display = [
        "bundle",
        "owner",
        "size",
        "used",
        "remaining",
        "status",
        "purchased_at",
        "expires_at",
    ]
    list_filter = ["status"]
    search_fields = ["bundle", "owner__email"]
    list_select_related = ["owner"]
    raw_id_fields = ["owner"]

    @admin.display(description="remaining")
    def remaining(self, obj) -> int:
        return obj.remaining


@admin.register(Subscription)
class SubscriptionAdmin(ActionsInHistory, admin.ModelAdmin):
    list_display = [
        "__str__",
        "owner",
        "customer",
        "status",
        "started_at",
        "current_period_end",
        "licence_count",
    ]
    list_filter = ["status", "plan"]
    search_fields = ["owner__email", "customer__email"]
    list_select_related = ["owner", "customer"]
    raw_id_fields = ["owner", "customer"]
    readonly_fields = ["status", "expired_at"]
    actions = ["expire_now"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_licences=Count("licenses"))

    @admin.display(description="licences", ordering="_licences")
    def licence_count(self, obj) -> int:
        return obj._licences

    @admin.action(
        description="Expire now (expires its licences, emits license.expired)",
        permissions=["change"],
    )
    def expire_now(self, request, queryset):
        done = 0
        for subscription_id in queryset.values_list("pk", flat=True):
            if services.subscription_expire(subscription_id=subscription_id) is not None:
                done += 1
        self.message_user(request, f"{done} subscription(s) expired.", messages.SUCCESS)


class RenewalOrderItemInline(admin.TabularInline):
    model = RenewalOrderItem
    extra = 0
    can_delete = False
    fields = [
        "license_key",
        "license",
        "product",
        "tier",
        "price",
        "previous_expires_at",
        "new_expires_at",
    ]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(RenewalOrder)
class RenewalOrderAdmin(admin.ModelAdmin):
    list_display = [
        "code",
        "owner",
        "status",
        "amount",
        "currency",
        "provider",
        "created_at",
        "paid_at",
    ]
    list_filter = ["status", "provider", "currency"]
    search_fields = ["code", "owner__email", "transaction_id", "provider_reference"]
    list_select_related = ["owner"]
    inlines = [RenewalOrderItemInline]
    readonly_fields = [
        "owner",
        "code",
        "status",
        "amount",
        "currency",
        "provider",
        "provider_reference",
        "checkout_url",
        "transaction_id",
        "created_at",
        "paid_at",
    ]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(SandboxCheckout)
class SandboxCheckoutAdmin(admin.ModelAdmin):
    list_display = ["order_code", "amount", "currency", "status", "transaction_id", "created_at"]
    list_filter = ["status"]
    search_fields = ["order_code", "transaction_id"]
    readonly_fields = [f.name for f in SandboxCheckout._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False


class _VersionedForm(forms.ModelForm):
    def clean_version(self):
        version = (self.cleaned_data.get("version") or "").strip()
        try:
            parse_version(version)
        except ServiceError as exc:
            raise forms.ValidationError(refusal_text(exc)) from None
        return version


class ReleaseForm(_VersionedForm):
    class Meta:
        model = Release
        fields = ["product", "version", "changelog", "file", "released_at"]


class ComponentForm(_VersionedForm):
    class Meta:
        model = Component
        fields = [
            "product",
            "slug",
            "name",
            "description",
            "version",
            "min_tier",
            "changelog",
            "file",
        ]


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    form = ReleaseForm
    list_display = ["product", "version", "released_at", "file_size"]
    list_filter = ["product"]
    search_fields = ["product__slug", "product__name", "version", "changelog"]
    list_select_related = ["product"]
    readonly_fields = ["file_size", "sha256"]

    def save_model(self, request, obj, form, change):
        services.release_save(release=obj)


@admin.register(Component)
class ComponentAdmin(admin.ModelAdmin):
    form = ComponentForm
    list_display = ["name", "product", "slug", "version", "min_tier", "updated_at"]
    list_filter = ["product", "min_tier"]
    search_fields = ["name", "slug", "product__slug"]
    list_select_related = ["product"]
    readonly_fields = ["file_size", "sha256", "updated_at"]
    prepopulated_fields = {"slug": ("name",)}

    def save_model(self, request, obj, form, change):
        services.component_save(component=obj)
