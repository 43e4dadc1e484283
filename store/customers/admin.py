"""Customers admin: the customer with its saved addresses (inline), its order stats and latest
orders. Every write goes through the services and the forms check by the same rules (e-mail
addresses unique and lower-case, an account belongs to one customer, addresses by the store's
address rule); deleting a customer with orders anonymises it. The list exports to CSV."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from accounts.models import normalize_email
from common.admin import ServiceAdmin, ServiceForm, add_refusal, csv_export_action
from common.csv_export import column
from common.errors import ServiceError
from store.common.addresses import (
    ADDRESS_FIELDS,
    REQUIRED_ADDRESS,
    Address,
    address_clean,
    address_form_fields,
)
from store.customers import selectors, services
from store.customers.models import Customer, CustomerAddress
from store.orders.selectors import LIST_COLUMNS

FORM_FIELDS = ("email", "user", "first_name", "last_name", "company", "phone", "note")
PREFIX = "address"

CUSTOMER_CSV = [
    column("email"),
    column("first_name"),
    column("last_name"),
    column("company"),
    column("phone"),
    column("account", "user.email"),
    column("created_at"),
]


class CustomerForm(ServiceForm):
    class Meta:
        model = Customer
        fields = list(FORM_FIELDS)

    def clean_email(self):
        return normalize_email(self.cleaned_data["email"])  # as the service stores it

    def check(self, fields: dict) -> None:
        services.customer_check(self.instance, fields)


class CustomerAddressFormBase(forms.ModelForm):
    """A saved address as form fields (the address keys, cleaned by the address rule); the
    customer's admin saves it through the address services."""

    class Meta:
        model = CustomerAddress
        fields = ["type", "is_default"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        stored = Address.of(self.instance.address if self.instance.pk else {})
        for name in ADDRESS_FIELDS:
            self.initial.setdefault(f"{PREFIX}_{name}", getattr(stored, name))

    def clean(self):
        cleaned = super().clean()
        raw = {
            name: self.cleaned_data.get(f"{PREFIX}_{name}")
            for name in ADDRESS_FIELDS
            if self.cleaned_data.get(f"{PREFIX}_{name}") is not None
        }
        address, problems = address_clean(raw, required=REQUIRED_ADDRESS)
        for name, messages in problems.items():
            self.add_error(f"{PREFIX}_{name}", messages)
        self.address = Address.of(address).stored()
        return cleaned

    def service_fields(self) -> dict:
        return {
            "type": self.cleaned_data["type"],
            "is_default": bool(self.cleaned_data.get("is_default")),
            "address": self.address,
        }


# The address keys are declared fields (the admin's inline names them in `fields`).
CustomerAddressForm = type(
    "CustomerAddressForm",
    (CustomerAddressFormBase,),
    {"__module__": __name__, **address_form_fields(PREFIX)},
)


class CustomerAddressInline(admin.StackedInline):
    model = CustomerAddress
    form = CustomerAddressForm
    extra = 0
    fields = ["type", "is_default", *(f"{PREFIX}_{name}" for name in ADDRESS_FIELDS)]


@admin.register(Customer)
class CustomerAdmin(ServiceAdmin):
    form = CustomerForm
    inlines = [CustomerAddressInline]
    list_display = ["email", "first_name", "last_name", "company", "user", "created_at"]
    list_filter = [("anonymised_at", admin.EmptyFieldListFilter)]
    search_fields = ["email", "first_name", "last_name", "company", "phone", "user__email"]
    list_select_related = ["user"]
    raw_id_fields = ["user"]
    readonly_fields = ["order_stats", "latest_orders", "anonymised_at", "created_at", "updated_at"]
    fieldsets = [
        (None, {"fields": list(FORM_FIELDS)}),
        ("Orders", {"fields": ["order_stats", "latest_orders"]}),
        ("Dates", {"fields": ["anonymised_at", "created_at", "updated_at"]}),
    ]
    actions = [csv_export_action(CUSTOMER_CSV, name="customers", select_related=["user"])]

    @admin.display(description="Order stats")
    def order_stats(self, obj):
        if not obj.pk:
            return "-"
        stats = selectors.order_stats(obj.pk)
        last = stats["last_order_at"]
        return format_html(
            "{} orders; spent {} {} over {} paid orders (average {}); last order {}",
            stats["orders_count"],
            stats["total_spent"],
            stats["currency"],
            stats["paid_orders_count"],
            stats["average_order_value"],
            last.strftime("%Y-%m-%d") if last else "never",
        )

    @admin.display(description="Latest orders")
    def latest_orders(self, obj):
        if not obj.pk:
            return "-"
        orders = [
            dict(zip(LIST_COLUMNS, row, strict=True))
            for row in selectors.recent_orders(obj.pk, limit=10)
        ]
        if not orders:
            return "None"
        return format_html_join(
            "",
            '<div><a href="{}">{}</a> {} {} {}</div>',
            (
                (
                    reverse("admin:store_orders_order_change", args=[order["id"]]),
                    order["order_number"],
                    order["status"],
                    order["total"],
                    order["currency"],
                )
                for order in orders
            ),
        )

    # The service calls.
    def create(self, request, fields):
        return services.customer_create(fields=fields)

    def update(self, request, obj, fields):
        return services.customer_update(customer_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.customer_delete(customer_id=obj.pk)

    def save_formset(self, request, form, formset, change):
        """The addresses through their services: deleted, changed, then added (one default
        per type, the address rule, the limit), in the page's transaction."""
        customer_id = form.instance.pk
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        for address_form in formset.deleted_forms:
            if address_form.instance.pk:
                services.address_delete(address_id=address_form.instance.pk)
                formset.deleted_objects.append(address_form.instance)
        for address_form in formset.forms:
            if address_form in formset.deleted_forms or not address_form.has_changed():
                continue
            fields = address_form.service_fields()
            try:
                if address_form.instance.pk:
                    row = services.address_update(
                        address_id=address_form.instance.pk,
                        customer_id=customer_id,
                        fields=fields,
                    )
                    formset.changed_objects.append((row, address_form.changed_data))
                else:
                    row = services.address_create(customer_id=customer_id, fields=fields)
                    formset.new_objects.append(row)
            except ServiceError as exc:
                add_refusal(address_form, exc)
                raise
