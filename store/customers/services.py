"""Customer writes. E-mail addresses are stored lower-case and name one customer each."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from accounts.models import normalize_email
from common.errors import Conflict, ServiceError
from store.common.errors import invalid_params, not_found
from store.customers.models import Customer

FIELDS = ("first_name", "last_name", "company", "phone", "note")


def _split_name(name: str) -> tuple[str, str]:
    first, _, last = (name or "").strip().partition(" ")
    return first[:100], last.strip()[:100]


def customer_check(customer: Customer, fields: dict) -> None:
    """Refuse what a write of `fields` to `customer` would refuse, changing nothing (the
    admin's form checks with it too)."""
    problems: dict[str, list[str]] = {}
    if "email" in fields:
        email = normalize_email(fields["email"])
        if not email:
            problems["email"] = ["A customer needs an e-mail address."]
        elif Customer.objects.filter(email=email).exclude(pk=customer.pk).exists():
            problems["email"] = [f"Another customer has the e-mail address {email}."]
    user = fields.get("user")
    if user is not None and Customer.objects.filter(user=user).exclude(pk=customer.pk).exists():
        problems["user_id"] = ["This account already belongs to another customer."]
    if problems:
        raise invalid_params(problems, code="duplicate_customer")


def _save(customer: Customer, fields: dict) -> Customer:
    customer_check(customer, fields)
    if "email" in fields:
        customer.email = normalize_email(fields["email"])
    if "user" in fields:
        customer.user = fields["user"]
    for name in FIELDS:
        if name in fields:
            setattr(customer, name, fields[name] or "")
    try:
        with transaction.atomic():
            customer.save()
    except IntegrityError:  # a concurrent write took the e-mail or the account since the check
        raise invalid_params(
            {"email": ["Another customer has this e-mail address or account."]},
            code="duplicate_customer",
        ) from None
    return customer


@transaction.atomic
def customer_create(*, fields: dict) -> Customer:
    """A customer: `email` required; `user` (an account) optional; names, company, phone."""
    return _save(Customer(), {"email": fields.get("email", ""), **fields})


@transaction.atomic
def customer_update(*, customer_id: int, fields: dict) -> Customer:
    customer = Customer.objects.select_for_update().filter(pk=customer_id).first()
    if customer is None:
        raise not_found("customer", customer_id)
    return _save(customer, fields)


def customer_for_email(*, email: str, defaults: dict | None = None) -> Customer:
    """The customer with this e-mail address, made when there is none (linked to the account
    with that address, if one exists, has verified the address and has no customer yet: an
    account whose address is unverified may belong to someone else than the mailbox's owner)."""
    email = normalize_email(email)
    customer = Customer.objects.filter(email=email).first()
    if customer is not None:
        return customer
    user = (
        get_user_model()
        .objects.filter(email=email, email_verified=True, store_customer__isnull=True)
        .first()
    )
    fields = {"email": email, **(defaults or {})}
    if user is not None:
        first, last = _split_name(user.name)
        fields = {"first_name": first, "last_name": last, **fields, "user": user}
    try:
        with transaction.atomic():
            return _save(Customer(), fields)
    except ServiceError:  # made meanwhile by a concurrent request
        found = Customer.objects.filter(email=email).first()
        if found is None:
            raise
        return found


def customer_for_user(*, user) -> Customer:
    """The customer of a logged-in account: its own, else the one with its e-mail address
    (linked now, when the account has verified that address), else a new one.

    An account whose address is not verified cannot take over the customer (and the order
    history) of that address: 409 `customer_email_unverified`.
    """
    customer = Customer.objects.filter(user=user).first()
    if customer is not None:
        return customer
    email = normalize_email(user.email)
    with transaction.atomic():
        existing = (
            Customer.objects.select_for_update().filter(email=email, user__isnull=True).first()
        )
        if existing is not None:
            if not user.email_verified:
                raise Conflict(
                    "The orders of this e-mail address join this account once the address "
                    "is verified.",
                    code="customer_email_unverified",
                )
            existing.user = user
            existing.save(update_fields=["user", "updated_at"])
            return existing
    if user.email_verified:
        customer = customer_for_email(email=email)
    else:  # nobody has ordered with this address: the account may start its own history
        first, last = _split_name(user.name)
        try:
            with transaction.atomic():
                customer = _save(
                    Customer(),
                    {"email": email, "user": user, "first_name": first, "last_name": last},
                )
        except ServiceError:  # made meanwhile by a concurrent request
            customer = Customer.objects.filter(email=email).first()
            if customer is None:
                raise
    if customer.user_id != user.pk:
        raise Conflict(
            "The customer with this account's e-mail address belongs to another account.",
            code="customer_email_taken",
        )
    return customer
