from __future__ import annotations

from django.db.models import Count, QuerySet

from accounts.models import User
from clients.models import Client


def client_list(*, owner: User) -> QuerySet[Client]:
    """The owner's clients by name, each with `license_count` (all its licences, any status)."""
    return (
        Client.objects.filter(owner=owner)
        .annotate(license_count=Count("licenses"))
        .order_by("name", "id")
    )
