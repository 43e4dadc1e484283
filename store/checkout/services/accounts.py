"""Accounts at the checkout: is there one for this e-mail address, log in, create one.

Logging in (or creating an account) starts a store session (the session cookie; the answer
carries the REST nonce to send with it) and merges the guest cart of the request into the
account's cart (store.cart.services.session.cart_merge_on_login); the guest cart's checkout
goes with it (store.checkout.services.listeners).

Accounts created here are the project's ordinary accounts (the e-mail address is verified
through the link the verification e-mail carries). They may shop at once; until the address
is verified, the account does not take over the orders earlier placed as a guest with it
(store.customers.services.customer_for_user).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model, login
from django.db import transaction

from accounts.models import normalize_email
from accounts.services import account_register, authenticate_limited
from common.errors import Unauthorized
from store.cart.models import Cart
from store.cart.services.session import cart_merge_on_login
from store.checkout.models import EDITABLE, Checkout
from store.common.errors import rule_broken
from store.emails.services import checkout_signup
from store.settings import selectors as store_settings

BACKEND = "django.contrib.auth.backends.ModelBackend"


def check_email(*, email: str) -> dict:
    """Whether an account has this address (the checkout then offers to log in)."""
    address = normalize_email(email)
    exists = get_user_model().objects.filter(email=address, is_active=True).exists()
    config = store_settings.get_section("checkout")
    return {
        "email": address,
        "account_exists": exists,
        "guest_checkout": config["guest_checkout"],
        "account_creation": config["account_creation"] and not exists,
    }


def _after_login(user, token: str | None) -> Cart | None:
    cart = cart_merge_on_login(user=user, token=token)
    if cart is not None:
        for checkout in Checkout.objects.select_for_update().filter(cart=cart, status__in=EDITABLE):
            checkout.user = checkout.user or user
            checkout.email = checkout.email or normalize_email(user.email)
            checkout.save(update_fields=["user", "email", "updated_at"])
    return cart


def checkout_login(*, request, email: str, password: str, token: str | None):
    """Log in with e-mail and password (401 `invalid_credentials`, 429 `login_locked` after
    too many failures: the portal's and the admin's log-in limits); answers (user, cart).

    The password is checked outside the transaction, so a refusal keeps its count."""
    user = authenticate_limited(request, email=email, password=password)
    if user is None or not user.is_active:
        raise Unauthorized("Invalid e-mail or password.", code="invalid_credentials")
    with transaction.atomic():
        login(request, user)
        return user, _after_login(user, token)


@transaction.atomic
def checkout_account_create(
    *, request, email: str, password: str, name: str = "", token: str | None, current_user=None
):
    """Create an account and log it in; answers (user, cart). 400 `email_taken` when the
    address has an account (log in instead), `invalid_param` for a weak password."""
    if not store_settings.get_value("checkout", "account_creation"):
        raise rule_broken(
            "This store does not create accounts at the checkout.",
            code="account_creation_disabled",
            status=403,
        )
    if current_user is not None and current_user.is_authenticated:
        raise rule_broken("You are logged in already.", code="already_logged_in")
    address = normalize_email(email)
    with checkout_signup():  # its verification e-mail is the store's new-account e-mail
        user = account_register(
            email=address, password=password, name=name.strip() or address.split("@", 1)[0]
        )
    login(request, user, backend=BACKEND)
    return user, _after_login(user, token)
