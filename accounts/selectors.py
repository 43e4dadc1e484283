from django.db.models import QuerySet

from accounts.models import ApiKey, User


def api_key_list(*, user: User) -> QuerySet[ApiKey]:
    return ApiKey.objects.filter(user=user).order_by("-created_at", "-id")
