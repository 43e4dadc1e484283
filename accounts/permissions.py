from rest_framework.permissions import BasePermission

from accounts.models import AccountType


class IsPortalAccount(BasePermission):
    """Any portal account type: developer, reseller or agency."""

    message = "This endpoint is for developer, reseller and agency accounts."

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.type in AccountType.values)


class IsPartner(BasePermission):
    """Reseller and agency accounts."""

    message = "This endpoint is for reseller and agency accounts."

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.is_partner)
