"""The recently viewed list's writes: a view recorded (the list kept bounded), the list
forgotten. A guest's list is named by a real cart session's token, never a made-up one."""

from __future__ import annotations

from typing import Any, cast

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from store.cart.models import Cart
from store.cart.services.session import cart_for_update
from store.common.accounts import logged_in
from store.common.errors import rule_broken
from theme.modules import selectors as kernel
from theme.modules.recently_viewed.models import RecentlyViewed


@transaction.atomic
def guest_session() -> Cart:
    """A new guest cart session (its token names a guest's list)."""
    return cast(Cart, cart_for_update(token=None, user=None, create=True))  # (create: made)


@transaction.atomic
def recently_viewed_record(*, user: Any, token: str | None, product_id: int) -> RecentlyViewed:
    """Note that the shopper viewed `product_id` (again: it moves to the front); only the
    newest THEME_RECENTLY_VIEWED_MAX are kept."""
    kernel.active_products([product_id])
    user = logged_in(user)
    owner = {"user": user} if user is not None else {"user": None, "session_token": token or ""}
    if user is None and not token:
        raise rule_broken("A cart session is needed to remember products.", code="no_session")
    now = timezone.now()
    row = RecentlyViewed.objects.filter(**owner, product_id=product_id).first()
    if row is None:
        try:
            with transaction.atomic():
                row = RecentlyViewed.objects.create(**owner, product_id=product_id, viewed_at=now)
        except IntegrityError:
            row = RecentlyViewed.objects.get(**owner, product_id=product_id)
    row.viewed_at = now
    row.save(update_fields=["viewed_at"])
    keep = RecentlyViewed.objects.filter(**owner).values_list("pk", flat=True)[
        : settings.THEME_RECENTLY_VIEWED_MAX
    ]
    RecentlyViewed.objects.filter(**owner).exclude(pk__in=list(keep)).delete()
    return row


def recently_viewed_clear(*, user: Any, token: str | None) -> int:
    user = logged_in(user)
    if user is not None:
        rows = RecentlyViewed.objects.filter(user=user)
    elif token:
        rows = RecentlyViewed.objects.filter(user__isnull=True, session_token=token)
    else:
        return 0
    return rows.delete()[0]
