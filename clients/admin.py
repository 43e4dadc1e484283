"""Sub-clients in the admin: added through client_create (the API's rules: a partner's
client, a unique e-mail address), deleted through client_delete (their licences revoked)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import Count

from accounts.models import normalize_email
from clients import services
from clients.models import Client
from common.admin import ActionsInHistory, RefusalsAsMessages, add_refusal
from common.errors import ServiceError


class ClientAddForm(forms.ModelForm):
    class Meta:
        model = Client
        fields = ["owner", "name", "email", "company"]

    def clean_email(self):
        return normalize_email(self.cleaned_data["email"])

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        try:
            services.client_check(
                owner=cleaned["owner"], email=cleaned["email"], name=cleaned["name"]
            )
        except ServiceError as exc:
            add_refusal(self, exc)
        return cleaned


class ClientChangeForm(forms.ModelForm):
    class Meta:
        model = Client
        fields = ["name", "email", "company"]

    def clean_email(self):
        return normalize_email(self.cleaned_data["email"])


@admin.register(Client)
class ClientAdmin(ActionsInHistory, RefusalsAsMessages, admin.ModelAdmin):
    list_display = ["name", "email", "company", "owner", "licence_count", "created_at"]
    list_filter = ["owner__type"]
    search_fields = ["name", "email", "company", "owner__email"]
    list_select_related = ["owner"]
    raw_id_fields = ["owner"]
    actions = ["delete_with_licences"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_licences=Count("licenses"))

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = ClientChangeForm if obj is not None else ClientAddForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request, obj=None):
        return ["owner", "name", "email", "company"]

    def get_readonly_fields(self, request, obj=None):
        # A client stays with its owner (its licences are the owner's).
        return ["owner"] if obj is not None else []

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        data = form.cleaned_data
        created = services.client_create(
            owner=data["owner"], email=data["email"], name=data["name"], company=data["company"]
        )
        obj.pk = created.pk
        obj.refresh_from_db()

    @admin.display(description="licences", ordering="_licences")
    def licence_count(self, obj) -> int:
        return obj._licences

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # deleting revokes the client's licences: the action below

    @admin.action(
        description="Delete (revokes and deactivates every licence of the client)",
        permissions=["change"],
    )
    def delete_with_licences(self, request, queryset):
        revoked = 0
        clients = list(queryset.select_related("owner"))
        for client in clients:
            revoked += services.client_delete(owner=client.owner, client_id=client.pk)
        self.message_user(
            request,
            f"{len(clients)} client(s) deleted; {revoked} licence(s) revoked.",
            messages.SUCCESS,
        )
