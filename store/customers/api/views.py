"""Customers for staff (capability ec_manage_customers) and the logged-in customer's own
account (/account...): thin views over store.customers.selectors and services."""

from __future__ import annotations

from django.contrib.auth import update_session_auth_hash
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from accounts.models import AppPassword
from store.common import nonce as nonces
from store.common.addresses import ADDRESS_FIELDS
from store.common.authentication import StoreSessionAuthentication
from store.common.capabilities import MANAGE_CUSTOMERS
from store.common.errors import not_found
from store.common.pagination import named_page
from store.common.params import validate_body, validate_query
from store.common.permissions import LOGGED_IN
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.customers import selectors, services
from store.customers.models import AddressType
from store.orders import shapes as order_shapes

from . import serializers as s

TAG = "Customers"
ACCOUNT_TAG = "My account"
STAFF = {"*": MANAGE_CUSTOMERS}
CUSTOMER_ID = OpenApiParameter("customer_id", int, OpenApiParameter.PATH)
ANONYMISED_409 = "The customer was anonymised (`customer_anonymised`)."


def customer_body(customer_id: int) -> dict:
    return s.customer_data(selectors.customer_get(customer_id))


def split_address(fields: dict) -> dict:
    """A flat address body as the address services take it."""
    out = {name: fields[name] for name in ("type", "is_default") if name in fields}
    keys = {name: fields[name] for name in ADDRESS_FIELDS if name in fields}
    if keys:
        out["address"] = keys
    return out


class CustomerListView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="List customers",
        parameters=[s.CustomerListQuerySerializer],
        responses={200: s.CustomerPageSerializer},
        description="Answers `{customers, total, page, per_page, total_pages}`, newest first "
        "by default. Filters combine: `search` (each word in the e-mail address or a name), "
        "`email` (exact), `status` (active by default; anonymised; any), `registered`, "
        "`has_orders`, `country` (of a saved address), `date_from`/`date_to` (created). "
        "`orderby` date, id, modified, email, name (last, then first name).",
    )
    def get(self, request):
        query = validate_query(s.CustomerListQuerySerializer, request.query_params)
        return Response(named_page("customers", selectors.customer_page(query), s.customer_data))

    @store_schema(
        summary="Create a customer",
        request=s.CustomerWriteSerializer,
        responses={201: s.CustomerSerializer},
        description="`email` is required and unique (any case: 400 `duplicate_customer`); "
        "`user_id` links an account (one customer per account). `billing` and `shipping`, "
        "complete addresses, become the default addresses. Send an Idempotency-Key to retry "
        "safely.",
    )
    def post(self, request):
        fields = validate_body(s.CustomerWriteSerializer, request.data)
        customer = services.customer_create(fields=dict(fields))
        return Response(customer_body(customer.pk), status=status.HTTP_201_CREATED)


class CustomerDetailView(StoreResourceView):
    access = STAFF
    openapi_tag = TAG
    resource = "customer"
    id_kwarg = "customer_id"
    output_serializer = s.CustomerSerializer
    write_serializer = s.CustomerWriteSerializer
    descriptions = {
        "get": "The customer with its default billing and shipping addresses.",
        "patch": "Only the fields sent change; `billing`/`shipping` replace the default "
        "address of that type (made when missing).",
        "put": "Same as PATCH.",
        "delete": "A customer without orders is deleted with its addresses. One with orders "
        "is anonymised instead: e-mail address `customer-<id>@anonymised.invalid`, names, "
        "company, phone and note erased, account unlinked, addresses deleted; its orders "
        "stay, with their own copies of the addresses. 204 either way (GET shows "
        "`anonymised: true`); deleting it again changes nothing.",
    }
    errors = {"patch": {409: ANONYMISED_409}, "put": {409: ANONYMISED_409}}

    def read(self, request, pk):
        return customer_body(pk)

    def update(self, request, pk, fields):
        services.customer_update(customer_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.customer_delete(customer_id=pk)


class CustomersStatsView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Customer counts",
        parameters=[s.CustomersStatsQuerySerializer],
        responses={200: s.CustomersStatsSerializer},
        description="Counts over the customers matching the filters (those of the list; "
        "`status` any by default): all, registered, guests, with and without orders, "
        "anonymised, created in the last 30 days.",
    )
    def get(self, request):
        query = validate_query(s.CustomersStatsQuerySerializer, request.query_params)
        return Response(selectors.customers_stats(query))


class CustomerFindByEmailView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Find a customer by e-mail address",
        parameters=[s.FindByEmailQuerySerializer],
        responses={200: s.CustomerSerializer},
        errors={404: "No customer has this address (`customer_not_found`)."},
        description="The customer with exactly this address (any case); 404 "
        "`customer_not_found` when there is none.",
    )
    def get(self, request):
        query = validate_query(s.FindByEmailQuerySerializer, request.query_params)
        return Response(s.customer_data(selectors.customer_by_email(query["email"])))


class CustomersWithStatsView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="List customers with their order stats",
        parameters=[s.CustomerStatsListQuerySerializer],
        responses={200: s.CustomerWithStatsPageSerializer},
        description="The customers list (same filters) where each customer also has "
        "`orders_count` (every order), `total_spent` (sales: processing, shipped, completed, "
        "in the store's currency), `last_order_at` and `last_order_id`, read with the page "
        "in one query. `orderby` also orders_count, total_spent, last_order.",
    )
    def get(self, request):
        query = validate_query(s.CustomerStatsListQuerySerializer, request.query_params)
        page = selectors.customers_with_stats_page(query)
        currency = selectors.store_currency()
        return Response(named_page("customers", page, lambda c: s.customer_with_stats(c, currency)))


class CustomerOrdersView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="A customer's orders",
        parameters=[CUSTOMER_ID, s.CustomerOrdersQuerySerializer],
        responses={200: order_shapes.OrderPageSerializer},
        description="`{orders, total, page, per_page, total_pages}`, newest first by "
        "default; `status` takes one or several, comma-separated. The full order is "
        "GET /orders/{id}.",
    )
    def get(self, request, customer_id):
        query = validate_query(s.CustomerOrdersQuerySerializer, request.query_params)
        page = selectors.customer_orders_page(customer_id, dict(query))
        return order_shapes.page_response(page)  # the orders list's entries and shape


class CustomerStatsView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="A customer's order stats",
        parameters=[CUSTOMER_ID],
        responses={200: s.CustomerOrderStatsSerializer},
        description="Orders by status; sales (processing, shipped, completed) in the store's "
        "currency: count, total spent, average order, items; first and last order. Sales in "
        "other currencies are listed apart.",
    )
    def get(self, request, customer_id):
        selectors.customer_get_id(customer_id)
        return Response(s.order_stats_data(selectors.order_stats(customer_id)))


class CustomerProfileView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="A customer's profile",
        parameters=[CUSTOMER_ID],
        responses={200: s.CustomerProfileSerializer},
        description="Everything about one customer at once: the customer, every saved "
        "address, the order stats (as /customers/{id}/stats) and the five latest orders.",
    )
    def get(self, request, customer_id):
        customer = selectors.customer_get(customer_id)
        return Response(
            {
                "customer": s.customer_data(customer),
                "addresses": [s.address_row(a) for a in selectors.addresses_of(customer_id)],
                "stats": s.order_stats_data(selectors.order_stats(customer_id)),
                "recent_orders": [
                    order_shapes.order_summary_row(row)
                    for row in selectors.recent_orders(customer_id)
                ],
            }
        )


class CustomerTopProductsView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="What a customer bought most",
        parameters=[CUSTOMER_ID, s.TopProductsQuerySerializer],
        responses={200: s.TopProductsSerializer},
        description="Products by units bought over the customer's sales orders (processing, "
        "shipped, completed), most first, with the amount and the number of orders; a line "
        "whose product was deleted counts under its title (`product_id` null).",
    )
    def get(self, request, customer_id):
        query = validate_query(s.TopProductsQuerySerializer, request.query_params)
        selectors.customer_get_id(customer_id)
        return Response({"products": selectors.top_products(customer_id, limit=query["limit"])})


class CustomerSpendingHistoryView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="A customer's spending per month",
        parameters=[CUSTOMER_ID, s.SpendingHistoryQuerySerializer],
        responses={200: s.SpendingHistorySerializer},
        description="The last `months` calendar months (UTC), oldest first, this one "
        "included: orders placed, sales orders and the amount spent (sales in the store's "
        "currency). Months without orders answer zeros.",
    )
    def get(self, request, customer_id):
        query = validate_query(s.SpendingHistoryQuerySerializer, request.query_params)
        selectors.customer_get_id(customer_id)
        return Response(
            {
                "currency": selectors.store_currency(),
                "months": selectors.spending_history(customer_id, months=query["months"]),
            }
        )


ADDRESS_RULES = (
    "Addresses are checked by the store's address rule: first_name, last_name, address_1, "
    "city, postcode (unless the country has none) and country are required; country is an "
    "ISO 3166-1 alpha-2 code, region (also accepted as `state`) its ISO 3166-2 subdivision; "
    "another key is refused."
)


class CustomerAddressesView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="A customer's saved addresses",
        parameters=[CUSTOMER_ID, s.AddressListQuerySerializer],
        responses={200: s.AddressesSerializer},
        description="Billing first, then shipping; the default of each type first.",
    )
    def get(self, request, customer_id):
        query = validate_query(s.AddressListQuerySerializer, request.query_params)
        rows = selectors.addresses_of(customer_id, kind=query.get("type"))
        return Response({"addresses": [s.address_row(row) for row in rows]})

    @store_schema(
        summary="Save an address for a customer",
        request=s.AddressCreateSerializer,
        responses={201: s.AddressOutSerializer},
        parameters=[CUSTOMER_ID],
        errors={
            409: f"At most 20 addresses per customer (`address_limit_reached`). {ANONYMISED_409}"
        },
        description=f"`type` billing or shipping; `is_default` makes it that type's default "
        f"(the first address of a type always is). {ADDRESS_RULES}",
    )
    def post(self, request, customer_id):
        fields = validate_body(s.AddressCreateSerializer, request.data)
        row = services.address_create(customer_id=customer_id, fields=split_address(fields))
        return Response(s.address_row(row), status=status.HTTP_201_CREATED)


class AddressDetailView(StoreResourceView):
    access = STAFF
    openapi_tag = TAG
    resource = "address"
    id_kwarg = "address_id"
    output_serializer = s.AddressOutSerializer
    write_serializer = s.AddressWriteSerializer
    descriptions = {
        "patch": "Only the keys sent change; the address must stay complete. `type` moves it "
        "to the other type; `is_default: true` makes it its type's default (`false` on the "
        "default is refused: 400 `default_address_required`). " + ADDRESS_RULES,
        "put": "Same as PATCH.",
        "delete": "When it was its type's default, the newest other address of that type "
        "becomes the default.",
    }

    def read(self, request, pk):
        return s.address_row(selectors.address_get(pk))

    def update(self, request, pk, fields):
        services.address_update(address_id=pk, fields=split_address(fields))

    def remove(self, request, pk):
        services.address_delete(address_id=pk)


# --- My account ----------------------------------------------------------------------------------

ACCOUNT = {"*": LOGGED_IN}
ADDRESS_TYPE = OpenApiParameter("address_type", str, OpenApiParameter.PATH, enum=AddressType.values)


def account_details(user, customer) -> dict:
    first, _, last = (user.name or "").strip().partition(" ")
    return {
        "customer_id": customer.pk if customer else None,
        "email": user.email,
        "email_verified": user.email_verified,
        "name": user.name,
        "first_name": customer.first_name if customer else first,
        "last_name": customer.last_name if customer else last.strip(),
        "company": customer.company if customer else "",
        "phone": customer.phone if customer else "",
    }


def account_addresses(customer) -> dict:
    if customer is None:
        return dict.fromkeys(AddressType.values)
    return s.default_addresses(customer)


class AccountView(StoreAPIView):
    access = ACCOUNT
    openapi_tag = ACCOUNT_TAG

    @store_schema(
        summary="My account",
        responses={200: s.AccountOverviewSerializer},
        description="The logged-in account's overview: details, default billing and shipping "
        "addresses, order counts by status and the five latest orders (all of them: "
        "GET /account/orders).",
    )
    def get(self, request):
        customer = selectors.customer_of_user(request.user)
        customer_id = customer.pk if customer else None
        recent = selectors.recent_orders(customer_id) if customer else []
        return Response(
            {
                "customer": account_details(request.user, customer),
                "addresses": account_addresses(customer),
                "orders": selectors.account_order_counts(customer_id),
                "recent_orders": [order_shapes.order_summary_row(row) for row in recent],
            }
        )


class AccountAddressesView(StoreAPIView):
    access = ACCOUNT
    openapi_tag = ACCOUNT_TAG

    @store_schema(
        summary="My addresses",
        responses={200: s.AccountAddressesSerializer},
        description="My default billing and shipping addresses (null when not saved yet).",
    )
    def get(self, request):
        return Response(account_addresses(selectors.customer_of_user(request.user)))


class AccountAddressView(StoreAPIView):
    access = ACCOUNT
    openapi_tag = ACCOUNT_TAG

    @store_schema(
        summary="My billing or shipping address",
        parameters=[ADDRESS_TYPE],
        responses={200: s.AddressOutSerializer},
        description="My default address of this type; 404 `address_not_found` when none is saved.",
    )
    def get(self, request, address_type):
        found = account_addresses(selectors.customer_of_user(request.user))[address_type]
        if found is None:
            raise not_found("address", address_type)
        return Response(found)

    @store_schema(
        summary="Save my billing or shipping address",
        request=s.AccountAddressSerializer,
        parameters=[ADDRESS_TYPE],
        responses={200: s.AddressOutSerializer},
        errors={
            409: "The account's e-mail address is unverified and guest orders were "
            "placed with it (`customer_email_unverified`)."
        },
        description=f"Replaces my default address of this type (saved when there is none); "
        f"the whole address is sent. {ADDRESS_RULES}",
    )
    def put(self, request, address_type):
        fields = validate_body(s.AccountAddressSerializer, request.data)
        row = services.account_address_set(user=request.user, kind=address_type, data=fields)
        return Response(s.address_row(row))


class AccountDetailsView(StoreAPIView):
    access = ACCOUNT
    openapi_tag = ACCOUNT_TAG

    @store_schema(
        summary="My details",
        responses={200: s.AccountDetailsSerializer},
        description="My name, e-mail address (and whether it is verified), company, phone.",
    )
    def get(self, request):
        return Response(account_details(request.user, selectors.customer_of_user(request.user)))

    @store_schema(
        summary="Change my details",
        request=s.AccountDetailsWriteSerializer,
        responses={200: s.AccountDetailsAnswerSerializer},
        errors={
            409: "The account's e-mail address is unverified and guest orders were placed "
            "with it (`customer_email_unverified`).",
            429: "Too many wrong passwords (`login_locked`); see Retry-After.",
        },
        description="Only the fields sent change (names, company, phone, e-mail address). "
        "A new e-mail address needs "
        "`current_password` (400 `incorrect_password`; wrong guesses count toward the log-in "
        "lock-out), must not be another account's (400 `email_taken`) nor a guest "
        "customer's (400 `customer_email_taken`); it becomes unverified and a verification "
        "link is sent to it (until it is followed, the portal's log-in refuses the account).",
    )
    def patch(self, request):
        fields = validate_body(s.AccountDetailsWriteSerializer, request.data, partial=True)
        user = request.user
        changes_email = "email" in fields and fields["email"].strip().lower() != user.email
        if changes_email:
            services.account_details_check(user=user, fields=fields)
            services.password_confirm(request, user=user, password=fields.get("current_password"))
        customer = services.account_details_update(user=user, fields=fields)
        body = account_details(user, customer)
        if changes_email:
            body["email_verification_sent"] = True
        return Response(body)

    @store_schema(
        summary="Change my details",
        request=s.AccountDetailsWriteSerializer,
        responses={200: s.AccountDetailsAnswerSerializer},
        errors={
            409: "The account's e-mail address is unverified and guest orders were placed "
            "with it (`customer_email_unverified`).",
            429: "Too many wrong passwords (`login_locked`); see Retry-After.",
        },
        description="Same as PATCH.",
    )
    def put(self, request):
        return self.patch(request)


class AccountPasswordView(StoreAPIView):
    access = ACCOUNT
    openapi_tag = ACCOUNT_TAG

    @store_schema(
        summary="Change my password",
        request=s.PasswordChangeSerializer,
        responses={200: s.PasswordChangedSerializer},
        errors={429: "Too many wrong passwords (`login_locked`); see Retry-After."},
        description="`current_password` must be right (400 `incorrect_password`; wrong "
        "guesses count toward the log-in lock-out); `new_password` passes the password rules "
        "(400 `weak_password`, the reasons in `data.params.new_password`). Then every other "
        "way in ends: the portal's refresh tokens are revoked, the other application "
        "passwords deleted (the one this request used stays), other browser sessions end; "
        "this browser session stays logged in (fetch a new nonce: GET /auth/nonce).",
    )
    def post(self, request):
        fields = validate_body(s.PasswordChangeSerializer, request.data)
        services.password_confirm(request, user=request.user, password=fields["current_password"])
        keep = request.auth.pk if isinstance(request.auth, AppPassword) else None
        result = services.account_password_change(
            user=request.user, password=fields["new_password"], keep_app_password_id=keep
        )
        if isinstance(request.successful_authenticator, StoreSessionAuthentication):
            # this session stays logged in; its key (and so its nonce) changes: the answer
            # carries the new nonce
            update_session_auth_hash(request._request, request.user)
            request._request.store_fresh_nonce = nonces.create_nonce(request._request)
        return Response({"changed": True, **result})

    @store_schema(
        summary="Change my password",
        request=s.PasswordChangeSerializer,
        responses={200: s.PasswordChangedSerializer},
        errors={429: "Too many wrong passwords (`login_locked`); see Retry-After."},
        description="Same as POST.",
    )
    def put(self, request):
        return self.post(request)
