"""The recently viewed list's read: the shopper's, newest first, bounded."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from theme.modules.recently_viewed.models import RecentlyViewed


def recently_viewed(*, user: Any, token: str | None) -> list[RecentlyViewed]:
    """The request's shopper's list: the account's (`user` logged in), else the cart
    session's (`token`), else none."""
    if user is not None and user.is_authenticated:
        rows = RecentlyViewed.objects.filter(user=user)
    elif token:
        rows = RecentlyViewed.objects.filter(user__isnull=True, session_token=token)
    else:
        return []
    return list(rows.select_related("product")[: settings.THEME_RECENTLY_VIEWED_MAX])
