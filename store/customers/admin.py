"""Customers admin: writes go through the services (e-mail addresses stay unique, lower-case)."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from store.customers import services
from store.customers.models import Customer

FORM_FIELDS = ("email", "user", "first_name", "last_name", "company", "phone", "note")


class CustomerForm(forms.ModelForm):
    class Meta:
        model = Customer
        fields = list(FORM_FIELDS)

    def clean_email(self):
        email = self.cleaned_data["email"].strip().lower()
        if Customer.objects.filter(email=email).exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError("Another customer has this e-mail address.")
        return email


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin):
    form = CustomerForm
    list_display = ["email", "first_name", "last_name", "company", "user", "created_at"]
    search_fields = ["email", "first_name", "last_name", "company", "phone", "user__email"]
    list_select_related = ["user"]
    raw_id_fields = ["user"]
    readonly_fields = ["created_at", "updated_at"]

    def save_model(self, request, obj, form, change):
        values = {name: form.cleaned_data.get(name) for name in FORM_FIELDS}
        if change:
            saved = services.customer_update(customer_id=obj.pk, fields=values)
        else:
            saved = services.customer_create(fields=values)
        obj.pk = saved.pk
