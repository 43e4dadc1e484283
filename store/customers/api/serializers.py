"""Bodies of the customers' routes (staff) and of the logged-in customer's account routes."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.addresses import REQUIRED_ADDRESS, AddressSerializer, CountryField, address_data
from store.common.formats import iso
from store.common.money import money_str
from store.common.params import (
    CaseInsensitiveChoiceField,
    ChoiceListField,
    PageField,
    PerPageField,
    StrictBooleanField,
)
from store.customers.models import AddressType, Customer, CustomerAddress
from store.customers.selectors import ORDERBY, STATS_ORDERBY, STATUSES
from store.orders.choices import OrderStatus
from store.orders.shapes import OrderSummarySerializer

# --- Input ---------------------------------------------------------------------------------------


class CustomerAddressInSerializer(AddressSerializer):
    """An address sent with a customer (its `billing` or `shipping`)."""


class CustomerWriteSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254, help_text="Unique; stored lower-case.")
    first_name = serializers.CharField(max_length=100, required=False, allow_blank=True)
    last_name = serializers.CharField(max_length=100, required=False, allow_blank=True)
    company = serializers.CharField(max_length=200, required=False, allow_blank=True)
    phone = serializers.CharField(max_length=40, required=False, allow_blank=True)
    note = serializers.CharField(
        max_length=5000, required=False, allow_blank=True, help_text="For staff only."
    )
    user_id = IdField(
        required=False, allow_null=True, help_text="The account to link (null: unlink)."
    )
    billing = CustomerAddressInSerializer(
        required=False,
        allow_null=True,
        help_text="The default billing address (complete: first_name, last_name, address_1, "
        "city, postcode, country).",
    )
    shipping = CustomerAddressInSerializer(
        required=False, allow_null=True, help_text="The default shipping address (complete)."
    )


class AddressWriteSerializer(AddressSerializer):
    # The keys are cleaned by the service over the stored address (a partial update).
    clean_keys = False

    type = CaseInsensitiveChoiceField(choices=AddressType.choices, required=False)
    is_default = StrictBooleanField(
        required=False, help_text="Make it its type's default (the first one always is)."
    )


class AddressCreateSerializer(AddressWriteSerializer):
    # A whole address: its keys are checked here too, each problem named as sent.
    clean_keys = True

    type = CaseInsensitiveChoiceField(choices=AddressType.choices)


class AccountAddressSerializer(AddressSerializer):
    required_keys = REQUIRED_ADDRESS


def _list_query(orderings: dict):
    class ListQuery(serializers.Serializer):
        page = PageField()
        per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")
        search = serializers.CharField(
            required=False,
            max_length=200,
            help_text="Words, each found in the e-mail address, first or last name.",
        )
        email = serializers.CharField(
            required=False, max_length=254, help_text="Exactly this address (any case)."
        )
        status = CaseInsensitiveChoiceField(
            choices=list(STATUSES),
            required=False,
            default="active",
            help_text="active (default), anonymised or any.",
        )
        registered = serializers.BooleanField(
            required=False, allow_null=True, default=None, help_text="Has an account or not."
        )
        has_orders = serializers.BooleanField(required=False, allow_null=True, default=None)
        country = CountryField(
            required=False, help_text="A saved address in this country (ISO 3166-1 alpha-2)."
        )
        date_from = serializers.DateField(
            required=False, help_text="ISO date; customers created on or after (UTC)."
        )
        date_to = serializers.DateField(
            required=False, help_text="ISO date; customers created on or before (UTC)."
        )
        orderby = CaseInsensitiveChoiceField(
            choices=list(orderings), required=False, default="date"
        )
        order = CaseInsensitiveChoiceField(choices=["ASC", "DESC"], required=False, default="DESC")

    return ListQuery


class CustomerListQuerySerializer(_list_query(ORDERBY)):
    pass


class CustomerStatsListQuerySerializer(_list_query(STATS_ORDERBY)):
    pass


class CustomersStatsQuerySerializer(serializers.Serializer):
    search = serializers.CharField(required=False, max_length=200)
    status = CaseInsensitiveChoiceField(
        choices=list(STATUSES), required=False, default="any", help_text="Default any."
    )
    registered = serializers.BooleanField(required=False, allow_null=True, default=None)
    has_orders = serializers.BooleanField(required=False, allow_null=True, default=None)
    country = CountryField(required=False)
    date_from = serializers.DateField(required=False)
    date_to = serializers.DateField(required=False)


class FindByEmailQuerySerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254, help_text="The address, any case.")


class CustomerOrdersQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")
    status = ChoiceListField(choices=OrderStatus.values)
    orderby = CaseInsensitiveChoiceField(
        choices=["date", "id", "total", "status", "modified"], required=False, default="date"
    )
    order = CaseInsensitiveChoiceField(choices=["ASC", "DESC"], required=False, default="DESC")


class TopProductsQuerySerializer(serializers.Serializer):
    limit = IntegerField(
        min_value=1, max_value=50, required=False, default=10, help_text="1-50, default 10."
    )


class SpendingHistoryQuerySerializer(serializers.Serializer):
    months = IntegerField(
        min_value=1,
        max_value=120,
        required=False,
        default=12,
        help_text="How many calendar months back, this one included (1-120, default 12).",
    )


class AddressListQuerySerializer(serializers.Serializer):
    type = CaseInsensitiveChoiceField(choices=AddressType.choices, required=False)


class AccountDetailsWriteSerializer(serializers.Serializer):
    first_name = serializers.CharField(max_length=100, required=False, allow_blank=True)
    last_name = serializers.CharField(max_length=100, required=False, allow_blank=True)
    company = serializers.CharField(max_length=200, required=False, allow_blank=True)
    phone = serializers.CharField(max_length=40, required=False, allow_blank=True)
    email = serializers.EmailField(
        max_length=254,
        required=False,
        help_text="A new address needs `current_password`; it is unverified until the link "
        "sent to it is followed.",
    )
    current_password = serializers.CharField(
        max_length=4096,
        required=False,
        write_only=True,
        trim_whitespace=False,
        help_text="Needed to change the e-mail address.",
    )


class PasswordChangeSerializer(serializers.Serializer):
    current_password = serializers.CharField(max_length=4096, trim_whitespace=False)
    new_password = serializers.CharField(
        max_length=4096,
        trim_whitespace=False,
        help_text="Checked by the password rules (length, common passwords...).",
    )


# --- Output --------------------------------------------------------------------------------------


def address_row(row: CustomerAddress) -> dict:
    return {
        "id": row.pk,
        "customer_id": row.customer_id,
        "type": row.type,
        "is_default": row.is_default,
        **address_data(row.address),
        "created_at": iso(row.created_at),
        "updated_at": iso(row.updated_at),
    }


def default_addresses(customer: Customer) -> dict:
    rows = getattr(customer, "default_addresses", None)
    if rows is None:
        rows = list(customer.addresses.filter(is_default=True))
    found = {row.type: row for row in rows}
    return {
        kind: address_row(found[kind]) if kind in found else None for kind in AddressType.values
    }


def customer_data(customer: Customer) -> dict:
    return {
        "id": customer.pk,
        "email": customer.email,
        "first_name": customer.first_name,
        "last_name": customer.last_name,
        "full_name": customer.full_name,
        "company": customer.company,
        "phone": customer.phone,
        "note": customer.note,
        "user_id": customer.user_id,
        "registered": customer.user_id is not None,
        "anonymised": customer.anonymised_at is not None,
        "anonymised_at": iso(customer.anonymised_at),
        **default_addresses(customer),
        "created_at": iso(customer.created_at),
        "updated_at": iso(customer.updated_at),
    }


def customer_with_stats(customer: Customer, currency: str) -> dict:
    return {
        **customer_data(customer),
        "orders_count": customer.orders_count,
        "total_spent": money_str(customer.total_spent),
        "currency": currency,
        "last_order_at": iso(customer.last_order_at),
        "last_order_id": customer.last_order_id,
    }


def order_stats_data(stats: dict) -> dict:
    return {
        **stats,
        "first_order_at": iso(stats["first_order_at"]),
        "last_order_at": iso(stats["last_order_at"]),
    }


# --- Output shapes (OpenAPI) ---------------------------------------------------------------------


class AddressOutSerializer(AddressSerializer):
    id = IdField()
    customer_id = IdField()
    type = serializers.ChoiceField(choices=AddressType.choices)
    is_default = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class AddressesSerializer(serializers.Serializer):
    addresses = AddressOutSerializer(many=True)


class CustomerSerializer(serializers.Serializer):
    id = IdField()
    email = serializers.EmailField()
    first_name = serializers.CharField()
    last_name = serializers.CharField()
    full_name = serializers.CharField()
    company = serializers.CharField()
    phone = serializers.CharField()
    note = serializers.CharField(help_text="For staff only.")
    user_id = IdField(allow_null=True, help_text="The linked account.")
    registered = serializers.BooleanField(help_text="Linked to an account.")
    anonymised = serializers.BooleanField(
        help_text="Deleted while having orders: personal data erased, orders kept."
    )
    anonymised_at = serializers.DateTimeField(allow_null=True)
    billing = AddressOutSerializer(allow_null=True, help_text="The default billing address.")
    shipping = AddressOutSerializer(allow_null=True, help_text="The default shipping address.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class CustomerWithStatsSerializer(CustomerSerializer):
    orders_count = IntegerField(help_text="Every order, any status.")
    total_spent = serializers.CharField(
        help_text="Sales (processing, shipped, completed) in the store's currency."
    )
    currency = serializers.CharField()
    last_order_at = serializers.DateTimeField(allow_null=True)
    last_order_id = IdField(allow_null=True)


class _PageFields(serializers.Serializer):
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


class CustomerPageSerializer(_PageFields):
    customers = CustomerSerializer(many=True)


class CustomerWithStatsPageSerializer(_PageFields):
    customers = CustomerWithStatsSerializer(many=True)


class CustomersStatsSerializer(serializers.Serializer):
    total = IntegerField()
    registered = IntegerField()
    guests = IntegerField()
    with_orders = IntegerField()
    without_orders = IntegerField()
    anonymised = IntegerField()
    new_last_30_days = IntegerField()


def _by_status():
    return serializers.DictField(
        child=IntegerField(), help_text="Every order status with its count."
    )


class OtherCurrencySerializer(serializers.Serializer):
    currency = serializers.CharField()
    orders = IntegerField()
    total_spent = serializers.CharField()


class CustomerOrderStatsSerializer(serializers.Serializer):
    orders_count = IntegerField()
    by_status = _by_status()
    currency = serializers.CharField(help_text="The store's currency.")
    paid_orders_count = IntegerField(help_text="Sales orders in the store's currency.")
    total_spent = serializers.CharField()
    average_order_value = serializers.CharField()
    items_purchased = IntegerField()
    first_order_at = serializers.DateTimeField(allow_null=True)
    last_order_at = serializers.DateTimeField(allow_null=True)
    last_order_id = IdField(allow_null=True)
    other_currencies = OtherCurrencySerializer(many=True)


class CustomerProfileSerializer(serializers.Serializer):
    customer = CustomerSerializer()
    addresses = AddressOutSerializer(many=True)
    stats = CustomerOrderStatsSerializer()
    recent_orders = OrderSummarySerializer(many=True)


class CustomerTopProductSerializer(serializers.Serializer):
    product_id = IdField(allow_null=True, help_text="Null when the product was deleted.")
    title = serializers.CharField()
    sku = serializers.CharField()
    quantity = IntegerField()
    total = serializers.CharField()
    orders = IntegerField()


class TopProductsSerializer(serializers.Serializer):
    products = CustomerTopProductSerializer(many=True)


class MonthSerializer(serializers.Serializer):
    month = serializers.CharField(help_text="YYYY-MM (UTC).")
    orders = IntegerField()
    paid_orders = IntegerField()
    total_spent = serializers.CharField()


class SpendingHistorySerializer(serializers.Serializer):
    currency = serializers.CharField()
    months = MonthSerializer(many=True)


class AccountDetailsSerializer(serializers.Serializer):
    customer_id = IdField(allow_null=True, help_text="Null until the account has a customer.")
    email = serializers.EmailField()
    email_verified = serializers.BooleanField()
    name = serializers.CharField(help_text="The account's name.")
    first_name = serializers.CharField()
    last_name = serializers.CharField()
    company = serializers.CharField()
    phone = serializers.CharField()


class AccountDetailsAnswerSerializer(AccountDetailsSerializer):
    email_verification_sent = serializers.BooleanField(
        required=False, help_text="Present (true) when the e-mail address was changed."
    )


class AccountAddressesSerializer(serializers.Serializer):
    billing = AddressOutSerializer(allow_null=True)
    shipping = AddressOutSerializer(allow_null=True)


class OrderCountsSerializer(serializers.Serializer):
    total = IntegerField()
    by_status = _by_status()


class AccountOverviewSerializer(serializers.Serializer):
    customer = AccountDetailsSerializer()
    addresses = AccountAddressesSerializer()
    orders = OrderCountsSerializer()
    recent_orders = OrderSummarySerializer(many=True)


class PasswordChangedSerializer(serializers.Serializer):
    changed = serializers.BooleanField()
    refresh_tokens_revoked = IntegerField()
    app_passwords_deleted = IntegerField()
