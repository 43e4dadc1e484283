"""Account rules that the use cases share and the selectors and serializers read: which
licences an account sees, how many it may hold, the order of the tiers and the cap on ids per
call."""

from __future__ import annotations

from django.conf import settings
from django.db.models import QuerySet

from accounts.models import User
from licensing.models import License, Tier

MAX_BULK_IDS = 100


TIER_RANK = {Tier.STARTER: 0, Tier.BUSINESS: 1}


def license_limit_for(user: User) -> int:
    """Licences `user` may hold (nfr excluded); -1 means unlimited (resellers, agencies)."""
    return -1 if user.is_partner else settings.LICENSE_LIMIT_DEVELOPER


def visible_licenses(user: User) -> QuerySet[License]:
    """Every licence `user` may see or change: its own, which include its sub-clients'."""
    return License.objects.filter(owner=user)
