"""Roles and managers in the admin, for holders of ec_manage_managers (or manage_options).

Roles replace Django's plain Groups page (a group's raw permissions would bypass the rules):
a role is a name, a slug, a description and its capabilities as checkboxes; the built-in roles
are shown read-only. Managers are the accounts with store roles or capabilities: roles and
capabilities as checkboxes; deleting a manager takes their roles away and never the account.
Every save goes through store.access.services, whose refusals show on the form (a capability
the editor does not hold) or as a message (the last administrator).
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.auth.models import Group
from django.db.models import Count, Prefetch
from django.utils.html import format_html_join

from accounts.models import User
from common.admin import ServiceAdmin, ServiceForm
from store.access import selectors, services
from store.access.models import Manager, Role
from store.common.capabilities import CAPABILITIES, MANAGE_MANAGERS, has_capability

CAPABILITY_CHOICES = [(c.codename, f"{c.codename}: {c.description}") for c in CAPABILITIES]


def _may_manage(request) -> bool:
    user = request.user
    return bool(user.is_active and user.is_staff and has_capability(user, MANAGE_MANAGERS))


class _CapabilityGated:
    """Whoever holds ec_manage_managers (or manage_options) sees and edits these pages."""

    def has_module_permission(self, request) -> bool:
        return _may_manage(request)

    def has_view_permission(self, request, obj=None) -> bool:
        return _may_manage(request)

    def has_add_permission(self, request) -> bool:
        return _may_manage(request)

    def has_change_permission(self, request, obj=None) -> bool:
        return _may_manage(request)

    def has_delete_permission(self, request, obj=None) -> bool:
        return _may_manage(request)


def _capabilities_field(**kwargs):
    return forms.MultipleChoiceField(
        choices=CAPABILITY_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        **kwargs,
    )


# --- Roles --------------------------------------------------------------------------------------


class RoleForm(ServiceForm):
    slug = forms.CharField(
        max_length=64,
        required=False,
        help_text="Lower-case letters, digits, _ and -. Empty: made from the name. Set once.",
    )
    description = forms.CharField(widget=forms.Textarea, required=False, max_length=2000)
    capabilities = _capabilities_field()
    actor = None  # the editing account (set by RoleAdmin.get_form)

    class Meta:
        model = Role
        fields = ["name"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        group = self.instance
        if group.pk:
            profile = group.store_role
            self.fields["slug"].initial = profile.slug
            self.fields["slug"].disabled = True
            self.fields["description"].initial = profile.description
            self.fields["capabilities"].initial = selectors.role_state(group)["capabilities"]

    def service_fields(self) -> dict:
        creating = self.instance.pk is None
        names = ["name", "description", "capabilities", *(["slug"] if creating else [])]
        fields = {
            name: self.cleaned_data[name]
            for name in names
            if name in self.cleaned_data and (creating or name in self.changed_data)
        }
        if creating and not fields.get("slug"):
            fields.pop("slug", None)
        return fields

    def check(self, fields: dict) -> None:
        slug = self.instance.store_role.slug if self.instance.pk else None
        services.role_check(actor=self.actor, fields=fields, slug=slug)


@admin.register(Role)
class RoleAdmin(_CapabilityGated, ServiceAdmin):
    form = RoleForm
    list_display = ["name", "slug", "built_in", "capability_list", "managers"]
    search_fields = ["name", "store_role__slug", "store_role__description"]
    ordering = ["-store_role__built_in", "name"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .filter(store_role__isnull=False)
            .select_related("store_role")
            .annotate(manager_count=Count("user", distinct=True))
            .prefetch_related("permissions")
        )

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        form.actor = request.user
        return form

    def get_fieldsets(self, request, obj=None):
        return [(None, {"fields": ["name", "slug", "description", "capabilities"]})]

    def has_change_permission(self, request, obj=None) -> bool:
        if obj is not None and obj.store_role.built_in:
            return False  # read-only: shown, never saved
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        if obj is not None and obj.store_role.built_in:
            return False
        return super().has_delete_permission(request, obj)

    @admin.display(description="slug", ordering="store_role__slug")
    def slug(self, group):
        return group.store_role.slug

    @admin.display(description="built-in", boolean=True, ordering="store_role__built_in")
    def built_in(self, group):
        return group.store_role.built_in

    @admin.display(description="capabilities")
    def capability_list(self, group):
        return ", ".join(selectors.role_capabilities(group))

    @admin.display(description="managers", ordering="manager_count")
    def managers(self, group):
        return group.manager_count

    def create(self, request, fields):
        return services.role_create(actor=request.user, fields=fields)

    def update(self, request, obj, fields):
        return services.role_update(actor=request.user, slug=obj.store_role.slug, fields=fields)

    def remove(self, request, obj):
        services.role_delete(actor=request.user, slug=obj.store_role.slug)


# --- Managers -----------------------------------------------------------------------------------


class ManagerForm(ServiceForm):
    account = forms.EmailField(
        label="Account e-mail",
        required=False,
        help_text="The existing account to make a manager (adding only).",
    )
    roles = forms.ModelMultipleChoiceField(
        queryset=Group.objects.filter(store_role__isnull=False).select_related("store_role"),
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )
    capabilities = _capabilities_field(help_text="Held by the account itself, beside its roles.")
    actor = None

    class Meta:
        model = Manager
        fields = ["is_staff"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        user = self.instance
        if user.pk:
            self.fields["account"].initial = user.email
            self.fields["account"].disabled = True
            state = selectors.manager_state(user)
            self.fields["roles"].initial = list(
                self.fields["roles"].queryset.filter(store_role__slug__in=state["roles"])
            )
            self.fields["capabilities"].initial = state["capabilities"]
        else:
            self.fields["account"].required = True
            self.fields["is_staff"].initial = True

    def service_fields(self) -> dict:
        creating = self.instance.pk is None
        fields = {}
        for name in ("is_staff", "roles", "capabilities"):
            if name in self.cleaned_data and (creating or name in self.changed_data):
                value = self.cleaned_data[name]
                if name == "roles":
                    value = [group.store_role.slug for group in value]
                fields[name] = value
        if creating:
            fields["email"] = self.cleaned_data.get("account")
        return fields

    def check(self, fields: dict) -> None:
        if self.instance.pk:
            user_id = self.instance.pk
            roles, capabilities = fields.get("roles"), fields.get("capabilities")
        else:
            user_id = selectors.user_id_by_email(fields["email"])
            state = selectors.manager_state(User.objects.get(pk=user_id))
            roles = [*state["roles"], *fields.get("roles", [])]
            capabilities = [*state["capabilities"], *fields.get("capabilities", [])]
        services.manager_check(
            actor=self.actor,
            user_id=user_id,
            roles=roles,
            capabilities=capabilities,
            is_staff=fields.get("is_staff"),
        )


@admin.register(Manager)
class ManagerAdmin(_CapabilityGated, ServiceAdmin):
    form = ManagerForm
    list_display = ["email", "name", "role_list", "is_staff", "is_superuser", "is_active"]
    list_filter = ["is_staff", "is_superuser", "is_active"]
    search_fields = ["email", "name"]
    ordering = ["email"]

    def get_queryset(self, request):
        ids = selectors.managers().values("pk")
        roles = Group.objects.filter(store_role__isnull=False).order_by("name")
        return (
            super()
            .get_queryset(request)
            .filter(pk__in=ids)
            .prefetch_related(Prefetch("groups", queryset=roles, to_attr="role_groups"))
        )

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        form.actor = request.user
        return form

    def get_fieldsets(self, request, obj=None):
        return [(None, {"fields": ["account", "is_staff", "roles", "capabilities"]})]

    @admin.display(description="roles")
    def role_list(self, user):
        return format_html_join(", ", "{}", ((group.name,) for group in user.role_groups))

    def get_deleted_objects(self, objs, request):
        """Deleting a manager removes the store roles, never the account: nothing else goes."""
        return [f"{obj} (store roles and capabilities only)" for obj in objs], {}, set(), []

    def create(self, request, fields):
        user_id = selectors.user_id_by_email(fields["email"])
        user, _was_manager = services.manager_assign(
            actor=request.user,
            user_id=user_id,
            roles=fields.get("roles"),
            capabilities=fields.get("capabilities"),
            is_staff=fields.get("is_staff", True),
        )
        return user

    def update(self, request, obj, fields):
        return services.manager_update(actor=request.user, user_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.manager_remove(actor=request.user, user_id=obj.pk)


# Django's own Groups page would let a group's permissions be edited around the rules above.
if admin.site.is_registered(Group):
    admin.site.unregister(Group)
