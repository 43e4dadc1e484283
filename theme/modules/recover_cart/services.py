"""Abandoned-cart recovery's writes: the recovery e-mails sent (once per idle spell), and a
recovery link followed (the abandoned cart's lines put into the visitor's cart).

The signed link's salt is the one the modules' one app used, so links e-mailed before the split
into one app per module still restore their carts."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.urls import reverse
from django.utils import timezone

from common.links import absolute_url
from store.cart.models import Cart, CartItem
from store.cart.services.lines import cart_lines, upsert_line
from store.cart.services.session import cart_for_update
from store.checkout.models import Checkout
from store.common.errors import rule_broken
from store.emails import services as email_services
from store.settings import selectors as store_settings
from theme.modules import selectors as kernel
from theme.modules.recover_cart import emails
from theme.modules.recover_cart.models import CartRecovery

RECOVERY_SALT = "theme.modules.recover-cart"
RECOVERY_BATCH = 200


def recovery_token(recovery: CartRecovery) -> str:
    return signing.dumps({"r": recovery.pk, "c": recovery.cart_id}, salt=RECOVERY_SALT)


def recovery_link(recovery: CartRecovery) -> str:
    path = reverse("theme-recover-cart", kwargs={"token": recovery_token(recovery)})
    return absolute_url(path)


def _abandoned(now: datetime) -> list[tuple[Cart, str]]:
    """Idle carts with items whose shopper has an address (the account's, else the
    checkout's) and no recovery e-mail for this idle spell; the oldest first, bounded."""
    idle = now - timedelta(hours=settings.THEME_RECOVER_CART_IDLE_HOURS)
    too_old = now - timedelta(hours=settings.THEME_RECOVER_CART_LINK_HOURS)
    has_items = Exists(CartItem.objects.filter(cart=OuterRef("pk")))
    sent = Exists(
        CartRecovery.objects.filter(
            cart=OuterRef("pk"), cart_updated_at__gte=OuterRef("updated_at")
        )
    )
    carts = list(
        Cart.objects.filter(updated_at__lte=idle, updated_at__gt=too_old)
        .filter(has_items)
        .exclude(sent)
        .select_related("user")
        .order_by("updated_at", "pk")[:RECOVERY_BATCH]
    )
    guests = [cart.pk for cart in carts if cart.user_id is None]
    known = dict(
        Checkout.objects.filter(cart_id__in=guests)
        .exclude(email="")
        .order_by("cart_id", "pk")  # the newest checkout's address wins
        .values_list("cart_id", "email")
    )
    out = []
    for cart in carts:
        email = cart.user.email if cart.user is not None else known.get(cart.pk, "")
        if email:
            out.append((cart, email))
    return out


def carts_recover_send(*, now: datetime | None = None) -> int:
    """Beat: e-mail each abandoned cart's shopper a link that restores it (once per idle
    spell: a cart changed since gets another when it is idle again). The e-mail leaves after
    the commit, through the store's e-mails. Answers how many were sent."""
    if not kernel.module_active("recover_cart"):
        return 0
    now = now or timezone.now()
    config = store_settings.get_all()
    hours = settings.THEME_RECOVER_CART_LINK_HOURS
    sent = 0
    for cart, email in _abandoned(now):
        with transaction.atomic():
            recovery, _ = CartRecovery.objects.update_or_create(
                cart=cart,
                defaults={
                    "email": email,
                    "cart_updated_at": cart.updated_at,
                    "sent_at": now,
                    "restored_at": None,
                },
            )
            email_services.email_send(
                email_type=emails.CART_RECOVERY,
                to=email,
                context=emails.context(
                    config=config,
                    item_count=sum(item.quantity for item in cart_lines(cart)),
                    link=recovery_link(recovery),
                    lifetime=f"{hours} hours",
                ),
                config=config,
            )
        sent += 1
    return sent


def _recovery_of(token: str) -> CartRecovery:
    try:
        data = signing.loads(
            token, salt=RECOVERY_SALT, max_age=settings.THEME_RECOVER_CART_LINK_HOURS * 3600
        )
    except signing.SignatureExpired:
        raise rule_broken("This cart link has expired.", code="token_expired") from None
    except (signing.BadSignature, ValueError, UnicodeError):
        raise rule_broken("This cart link is not valid.", code="invalid_token") from None
    ok = isinstance(data, dict) and all(isinstance(data.get(k), int) for k in ("r", "c"))
    recovery = (
        CartRecovery.objects.select_related("cart").filter(pk=data["r"], cart_id=data["c"]).first()
        if ok
        else None
    )
    if recovery is None:
        raise rule_broken("This cart's items are no longer kept.", code="cart_gone", status=410)
    return recovery


@transaction.atomic
def cart_recover(*, token: str, session_token: str | None, user: Any = None) -> tuple[Cart, int]:
    """Follow a recovery link: the abandoned cart's lines are put into the visitor's cart (made
    if needed); lines it holds already are left as they are, so following again changes
    nothing. Answers the visitor's cart and how many lines were added."""
    recovery = _recovery_of(token)
    source = recovery.cart
    target = cast(Cart, cart_for_update(token=session_token, user=user, create=True))  # (made)
    added = 0
    if target.pk != source.pk:
        have = set(CartItem.objects.filter(cart=target).values_list("key", flat=True))
        for item in CartItem.objects.filter(cart=source).order_by("pk"):
            if item.key in have:
                continue
            upsert_line(
                cart=target,
                key=item.key,
                product_id=item.product_id,
                variant_id=item.variant_id,
                options=item.options,
                quantity=item.quantity,
            )
            added += 1
        if added:
            Cart.objects.filter(pk=target.pk).update(updated_at=timezone.now())
    CartRecovery.objects.filter(pk=recovery.pk).update(restored_at=timezone.now())
    return target, added
