"""Customer writes. E-mail addresses are stored lower-case and name one customer each.

Also: a customer's saved billing and shipping addresses (one default of each type), the
deletion that anonymises a customer who has orders, and the logged-in customer's own account
changes (details, e-mail address with re-verification, password).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import services as account_services
from accounts.models import AppPassword, normalize_email
from common import events
from common.errors import Conflict, ServiceError
from store.common.addresses import REQUIRED_ADDRESS, Address, address_clean, api_problems
from store.common.errors import invalid_params, not_found
from store.common.problems import Problems
from store.customers.models import AddressType, Customer, CustomerAddress
from store.customers.signals import customer_erased

FIELDS = ("first_name", "last_name", "company", "phone", "note")
#: Saved addresses per customer, all types together.
ADDRESS_LIMIT = 20
#: Where an anonymised customer's e-mail address points (a reserved, undeliverable domain).
ANONYMISED_DOMAIN = "anonymised.invalid"


def _split_name(name: str) -> tuple[str, str]:
    first, _, last = (name or "").strip().partition(" ")
    return first[:100], last.strip()[:100]


def customer_check(customer: Customer, fields: dict) -> None:
    """Refuse what a write of `fields` to `customer` would refuse, changing nothing (the
    admin's form checks with it too)."""
    if customer.anonymised_at is not None:
        raise Conflict(
            "This customer was anonymised: its data cannot be changed.", code="customer_anonymised"
        )
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
    creating = customer.pk is None
    try:
        with transaction.atomic():
            customer.save()
    except IntegrityError:  # a concurrent write took the e-mail or the account since the check
        raise invalid_params(
            {"email": ["Another customer has this e-mail address or account."]},
            code="duplicate_customer",
        ) from None
    if creating:  # every new customer is made here (API, admin, orders, checkout, sign-up)
        events.publish_store(
            "customer.created",
            {
                "customer": {
                    "customer_id": customer.pk,
                    "email": customer.email,
                    "first_name": customer.first_name,
                    "last_name": customer.last_name,
                    "company": customer.company,
                    "user_id": customer.user_id,
                    "created_at": customer.created_at,
                }
            },
        )
    return customer


def _with_user(values: dict) -> dict:
    """`user_id` (an account's id, or null to unlink) as the `user` the write takes."""
    if "user_id" not in values:
        return values
    values = dict(values)
    user_id = values.pop("user_id")
    user = None
    if user_id is not None:
        user = get_user_model().objects.filter(pk=user_id).first()
        if user is None:
            raise invalid_params({"user_id": [f"No account with id {user_id}."]})
    values["user"] = user
    return values


def _addresses_of_body(fields: dict) -> dict[str, dict]:
    """The `billing` and `shipping` addresses sent with a customer, cleaned (each complete),
    keyed by type; 400 naming every problem (`billing.city`) before anything is written."""
    problems = Problems()
    out = {}
    for kind in AddressType.values:
        if fields.get(kind) is not None:
            out[kind] = _clean_address(fields[kind], problems, prefix=kind)
    problems.raise_if_any()
    return out


@transaction.atomic
def customer_create(*, fields: dict) -> Customer:
    """A customer: `email` required; `user` (an account) optional; names, company, phone;
    `billing` and `shipping` (optional, complete addresses) become its default addresses."""
    addresses = _addresses_of_body(fields)
    values = _with_user({k: v for k, v in fields.items() if k not in AddressType.values})
    customer = _save(Customer(), {"email": values.get("email", ""), **values})
    for kind, address in addresses.items():
        CustomerAddress.objects.create(
            customer=customer, type=kind, is_default=True, address=address
        )
    return customer


@transaction.atomic
def customer_update(*, customer_id: int, fields: dict) -> Customer:
    """Only the fields given change; `billing`/`shipping` replace the default address of that
    type (made when there is none)."""
    customer = Customer.objects.select_for_update().filter(pk=customer_id).first()
    if customer is None:
        raise not_found("customer", customer_id)
    values = _with_user({k: v for k, v in fields.items() if k not in AddressType.values})
    customer_check(customer, values)
    addresses = _addresses_of_body(fields)
    for kind, address in addresses.items():
        _default_address_set(customer, kind, address)
    return _save(customer, values)


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


# --- Deletion: a customer with orders is anonymised ----------------------------------------------


def anonymised_email(customer_id: int) -> str:
    return f"customer-{customer_id}@{ANONYMISED_DOMAIN}"


@transaction.atomic
def customer_delete(*, customer_id: int) -> str:
    """Delete a customer; one with orders is anonymised instead: its e-mail address becomes
    `customer-<id>@anonymised.invalid`, its names, company, phone and note are erased, its
    account unlinked and its saved addresses deleted. Its orders stay linked to it and keep
    their own copies (snapshots) of the addresses. Answers "deleted" or "anonymised";
    deleting an anonymised customer again changes nothing."""
    customer = Customer.objects.select_for_update().filter(pk=customer_id).first()
    if customer is None:
        raise not_found("customer", customer_id)
    if not customer.orders.exists():
        customer_erased.send(sender=Customer, customer_id=customer.pk)
        customer.delete()
        return "deleted"
    if customer.anonymised_at is None:
        customer_erased.send(sender=Customer, customer_id=customer.pk)
        customer.addresses.all().delete()
        customer.email = anonymised_email(customer.pk)
        for name in FIELDS:
            setattr(customer, name, "")
        customer.user = None
        customer.anonymised_at = timezone.now()
        customer.save()
    return "anonymised"


# --- Saved addresses -----------------------------------------------------------------------------


def _clean_address(data, problems: Problems, *, prefix: str = "", base: dict | None = None):
    """`data` (a JSON object of address keys) cleaned by the shared address rule over `base`
    (the stored address a partial update starts from); the result must be complete."""
    if not isinstance(data, dict):
        problems.add(prefix or "address", "Send an address as a JSON object.")
        return {}
    merged = {**(base or {}), **data}
    cleaned, errors = address_clean(merged, required=REQUIRED_ADDRESS)
    problems.extend(api_problems(errors), prefix=prefix)
    return Address.of(cleaned).stored()


def _locked_customer(customer_id: int) -> Customer:
    customer = Customer.objects.select_for_update().filter(pk=customer_id).first()
    if customer is None:
        raise not_found("customer", customer_id)
    if customer.anonymised_at is not None:
        raise Conflict(
            "This customer was anonymised: it keeps no addresses.", code="customer_anonymised"
        )
    return customer


def _check_type(kind, problems: Problems) -> None:
    if kind not in AddressType.values:
        problems.add("type", "Choose billing or shipping.")


def _make_default(address: CustomerAddress) -> None:
    """`address` becomes the default of its type (the previous default stops being one)."""
    CustomerAddress.objects.filter(
        customer_id=address.customer_id, type=address.type, is_default=True
    ).exclude(pk=address.pk).update(is_default=False, updated_at=timezone.now())
    address.is_default = True


def _check_room(customer: Customer) -> None:
    if CustomerAddress.objects.filter(customer=customer).count() >= ADDRESS_LIMIT:
        raise Conflict(
            f"A customer keeps at most {ADDRESS_LIMIT} addresses; delete one first.",
            code="address_limit_reached",
        )


@transaction.atomic
def address_create(*, customer_id: int, fields: dict) -> CustomerAddress:
    """A saved address: `type` (billing or shipping), `address` (the address keys, complete),
    `is_default`. The first address of a type is its default whatever is sent."""
    customer = _locked_customer(customer_id)
    problems = Problems()
    kind = fields.get("type")
    _check_type(kind, problems)
    address = _clean_address(fields.get("address") or {}, problems)
    problems.raise_if_any()
    _check_room(customer)
    has_default = CustomerAddress.objects.filter(
        customer=customer, type=kind, is_default=True
    ).exists()
    row = CustomerAddress(customer=customer, type=kind, address=address)
    if fields.get("is_default") or not has_default:
        _make_default(row)
    row.save()
    return row


def _locked_address(address_id: int, customer_id: int | None) -> CustomerAddress:
    rows = CustomerAddress.objects.filter(pk=address_id)
    if customer_id is not None:
        rows = rows.filter(customer_id=customer_id)
    found = rows.values_list("customer_id", flat=True).first()
    if found is None:
        raise not_found("address", address_id)
    _locked_customer(found)  # the customer's lock serialises its address writes
    row = CustomerAddress.objects.filter(pk=address_id).first()
    if row is None:  # deleted while we waited for the lock
        raise not_found("address", address_id)
    return row


@transaction.atomic
def address_update(
    *, address_id: int, fields: dict, customer_id: int | None = None
) -> CustomerAddress:
    """Only the keys sent change (the address must stay complete); `type` moves it to the
    other type; `is_default: true` makes it its type's default (`false` is refused for the
    default: make another address the default instead). `customer_id` limits the write to
    that customer's addresses (404 for others)."""
    row = _locked_address(address_id, customer_id)
    problems = Problems()
    kind = fields.get("type", row.type)
    _check_type(kind, problems)
    address = row.address
    if "address" in fields:
        address = _clean_address(fields["address"] or {}, problems, base=row.address)
    if fields.get("is_default") is False and row.is_default and kind == row.type:
        problems.add(
            "is_default",
            "This is the default address of its type: make another one the default instead.",
            code="default_address_required",
        )
    problems.raise_if_any()
    moved = kind != row.type
    was_default = row.is_default
    row.type, row.address = kind, address
    if moved:
        row.is_default = False
        if was_default:
            _promote_next_default(row.customer_id, AddressType(_other(kind)), exclude=row.pk)
        has_default = CustomerAddress.objects.filter(
            customer_id=row.customer_id, type=kind, is_default=True
        ).exists()
        if not has_default:
            fields = {**fields, "is_default": True}
    if fields.get("is_default"):
        _make_default(row)
    row.save()
    return row


def _other(kind: str) -> str:
    return AddressType.SHIPPING if kind == AddressType.BILLING else AddressType.BILLING


def _promote_next_default(customer_id: int, kind: str, *, exclude: int) -> None:
    """After the default of `kind` is deleted or moved: the newest other one takes its place."""
    # the leaving row stops being the default first (one default per type, checked at once)
    CustomerAddress.objects.filter(pk=exclude).update(is_default=False)
    following = (
        CustomerAddress.objects.filter(customer_id=customer_id, type=kind)
        .exclude(pk=exclude)
        .order_by("-id")
        .first()
    )
    if following is not None:
        CustomerAddress.objects.filter(pk=following.pk).update(
            is_default=True, updated_at=timezone.now()
        )


@transaction.atomic
def address_delete(*, address_id: int, customer_id: int | None = None) -> None:
    """Delete a saved address; when it was its type's default, the newest other address of the
    type becomes the default."""
    row = _locked_address(address_id, customer_id)
    if row.is_default:
        _promote_next_default(row.customer_id, row.type, exclude=row.pk)
    row.delete()


def _default_address_set(customer: Customer, kind: str, address: dict) -> CustomerAddress:
    """Replace the default address of `kind` (made when there is none); `address` is clean."""
    row = CustomerAddress.objects.filter(customer=customer, type=kind, is_default=True).first()
    if row is None:
        _check_room(customer)
        row = CustomerAddress(customer=customer, type=kind, is_default=True)
    row.address = address
    row.save()
    return row


# --- My account (the logged-in customer) ---------------------------------------------------------


def _account_customer(user) -> Customer:
    customer = customer_for_user(user=user)
    if customer.anonymised_at is not None:  # pragma: no cover - anonymising unlinks the account
        raise Conflict("This customer was anonymised.", code="customer_anonymised")
    return customer


@transaction.atomic
def account_address_set(*, user, kind: str, data) -> CustomerAddress:
    """The account's default billing or shipping address, replaced by `data` (complete)."""
    problems = Problems()
    _check_type(kind, problems)
    address = _clean_address(data, problems)
    problems.raise_if_any()
    customer = _account_customer(user)
    customer = Customer.objects.select_for_update().get(pk=customer.pk)
    return _default_address_set(customer, kind, address)


def password_confirm(request, *, user, password) -> None:
    """400 `incorrect_password` unless `password` is the account's password. Counted by the
    log-in limits (accounts.services.authenticate_limited): guessing it locks out as logging in
    does (429 `login_locked`). Call it outside a transaction (a refusal keeps its count)."""
    if not isinstance(password, str) or not password:
        raise invalid_params(
            {"current_password": ["Send your current password."]}, code="incorrect_password"
        )
    found = account_services.authenticate_limited(request, email=user.email, password=password)
    if found is None or found.pk != user.pk:
        raise invalid_params(
            {"current_password": ["This is not your current password."]},
            code="incorrect_password",
        )


def account_details_check(*, user, fields: dict) -> str | None:
    """Refuse what `account_details_update` would refuse; answers the new e-mail address when
    the address changes (None otherwise)."""
    problems = Problems()
    new_email = None
    if "email" in fields:
        email = normalize_email(fields["email"])
        try:
            validate_email(email)
        except DjangoValidationError:
            problems.add("email", "Enter a valid e-mail address.")
            email = user.email
        if email != user.email:
            new_email = email
            if get_user_model().objects.filter(email=email).exclude(pk=user.pk).exists():
                problems.add(
                    "email", "Another account has this e-mail address.", code="email_taken"
                )
            else:
                taken = Customer.objects.filter(email=email).exclude(user=user)
                if taken.exists():
                    problems.add(
                        "email",
                        "Orders were placed with this e-mail address without this account: "
                        "ask the store to join them.",
                        code="customer_email_taken",
                    )
    problems.raise_if_any()
    return new_email


@transaction.atomic
def account_details_update(*, user, fields: dict) -> Customer:
    """The account's names (the customer's first and last name, and the account's name), its
    customer's company and phone, and its e-mail address. A new e-mail address is the
    account's and its customer's at once, counts as unverified, and is sent a verification
    link (accounts' verification e-mail): until it is followed the portal's log-in refuses
    the account and the checkout treats it as a guest. The caller confirms the current
    password first (password_confirm)."""
    new_email = account_details_check(user=user, fields=fields)
    customer = _account_customer(user)
    customer = Customer.objects.select_for_update().get(pk=customer.pk)
    for name in ("first_name", "last_name", "company", "phone"):
        if name in fields:
            setattr(customer, name, (fields[name] or "").strip())
    account = get_user_model().objects.select_for_update().get(pk=user.pk)
    limit = account._meta.get_field("name").max_length
    names = f"{customer.first_name} {customer.last_name}".strip()[:limit]
    changed = []
    if names and names != account.name and {"first_name", "last_name"} & set(fields):
        account.name = names
        changed.append("name")
    if new_email is not None:
        account.email = new_email
        account.email_verified = False
        changed += ["email", "email_verified"]
        customer.email = new_email
    try:
        with transaction.atomic():
            if changed:
                account.save(update_fields=changed)
            customer.save()
    except IntegrityError:  # the address was taken meanwhile
        raise invalid_params(
            {"email": ["Another account has this e-mail address."]}, code="email_taken"
        ) from None
    if new_email is not None:
        account_services.verification_resend(email=new_email)
    for name in changed:
        setattr(user, name, getattr(account, name))
    return customer


@transaction.atomic
def account_password_change(*, user, password: str, keep_app_password_id: int | None) -> dict:
    """Set a new password (Django's password validators apply; 400 naming `new_password`)
    and end every other way in: the portal's refresh tokens are revoked (its access tokens
    carry a digest of the old password hash and stop too), the other application passwords
    are deleted (`keep_app_password_id`, the one this request came with, stays), and the
    other browser sessions stop matching the password hash. The caller confirms the current
    password first (password_confirm) and keeps its own session (update_session_auth_hash)."""
    if not isinstance(password, str) or not password:
        raise invalid_params({"new_password": ["Send the new password."]})
    account = get_user_model().objects.select_for_update().get(pk=user.pk)
    try:
        password_validation.validate_password(password, user=account)
    except DjangoValidationError as exc:
        raise invalid_params({"new_password": list(exc.messages)}, code="weak_password") from None
    account.set_password(password)
    account.save(update_fields=["password"])
    user.password = account.password
    refresh_tokens = account_services.revoke_all_sessions(account)
    app_passwords, _ = (
        AppPassword.objects.filter(user=account).exclude(pk=keep_app_password_id).delete()
    )
    return {"refresh_tokens_revoked": refresh_tokens, "app_passwords_deleted": app_passwords}
