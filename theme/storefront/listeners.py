"""The storefront's receivers: a guest's wishlist joins the account's when they log in.

`user_logged_in` (any login that goes through django.contrib.auth.login: the checkout's,
the admin's) carries the request, whose cart session (the `ec_cart_id` cookie, else the
X-Cart-ID header) names the guest's wishlist. The cart's own `cart_merging` (a guest cart
merged into a customer's) moves the wishlist of the guest cart's token too. The merge runs in
the login's transaction (in a savepoint: a failure is logged, the login stands) and is
idempotent."""

from __future__ import annotations

import logging

from django.contrib.auth.signals import user_logged_in
from django.db import transaction
from django.dispatch import receiver

from store.cart.signals import cart_merging
from store.common.cart_session import CART_COOKIE, CART_HEADER
from theme.storefront import services

logger = logging.getLogger(__name__)


def _merge(user, token: str | None) -> None:
    if not token or user is None:
        return
    try:
        with transaction.atomic():  # a savepoint: a failed merge leaves the login whole
            services.wishlist_merge_guest(user=user, token=token)
    except Exception:
        logger.exception("wishlist merge at login failed")


@receiver(user_logged_in, dispatch_uid="theme_storefront_wishlist_merge")
def merge_wishlist_at_login(sender, request, user, **kwargs):
    if request is None:
        return
    token = request.COOKIES.get(CART_COOKIE) or request.headers.get(CART_HEADER)
    if isinstance(token, str) and 32 <= len(token) <= 64:
        _merge(user, token)


@receiver(cart_merging, dispatch_uid="theme_storefront_wishlist_cart_merge")
def merge_wishlist_with_cart(sender, guest, into, **kwargs):
    if into.user_id is not None:
        _merge(into.user, guest.token)
