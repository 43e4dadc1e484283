"""Customers admin: writes go through the services, and the form checks by the same rule
(e-mail addresses stay unique and lower-case, an account belongs to one customer); the list
exports to CSV."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from accounts.models import normalize_email
from common.admin import RefusalsAsMessages, add_refusal, csv_export_action
from common.csv_export import column
from common.errors import ServiceError
from store.customers import services
from store.customers.models import Customer

FORM_FIELDS = ("email", "user", "first_name", "last_name", "company", "phone", "note")

CUSTOMER_CSV = [
    column("email"),
    column("first_name"),
    column("last_name"),
    column("company"),
    column("phone"),
    column("account", "user.email"),
    column("created_at"),
]


class CustomerForm(forms.ModelForm):
    class Meta:
        model = Customer
        fields = list(FORM_FIELDS)

    def clean_email(self):
        return normalize_email(self.cleaned_data["email"])  # as the service stores it

    def clean(self):
        cleaned = super().clean()
        values = {name: cleaned[name] for name in FORM_FIELDS if name in cleaned}
        try:
            services.customer_check(self.instance, values)
        except ServiceError as exc:
            add_refusal(self, exc, {"user_id": "user"})
        return cleaned


@admin.register(Customer)
class CustomerAdmin(RefusalsAsMessages, admin.ModelAdmin):
    form = CustomerForm
    list_display = ["email", "first_name", "last_name", "company", "user", "created_at"]
    search_fields = ["email", "first_name", "last_name", "company", "phone", "user__email"]
    list_select_related = ["user"]
    raw_id_fields = ["user"]
    readonly_fields = ["created_at", "updated_at"]
    actions = [csv_export_action(CUSTOMER_CSV, name="customers", select_related=["user"])]

    def save_model(self, request, obj, form, change):
        values = {name: form.cleaned_data.get(name) for name in FORM_FIELDS}
        if change:
            saved = services.customer_update(customer_id=obj.pk, fields=values)
        else:
            saved = services.customer_create(fields=values)
        obj.pk = saved.pk
