"""Bodies of the authentication and managers routes: input validation and answer shapes."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.access import selectors
from store.common.capabilities import CAPABILITIES, CODENAMES, has_capability
from store.common.formats import iso
from store.common.nonce import NonceAnswerSerializer
from store.common.params import (
    CaseInsensitiveChoiceField,
    PageField,
    PerPageField,
    StrictBooleanField,
    StrictCharField,
)


class NonceSerializer(NonceAnswerSerializer):
    user = serializers.DictField(help_text="id, email and name of the logged-in account.")


# --- Input ---------------------------------------------------------------------------------------


def _slug_list(help_text: str):
    return serializers.ListField(
        child=StrictCharField(max_length=64),
        required=False,
        max_length=100,
        help_text=help_text,
    )


def _capability_list(help_text: str):
    return serializers.ListField(
        child=StrictCharField(max_length=64),
        required=False,
        max_length=len(CAPABILITIES),
        help_text=help_text + " Names from GET /managers/capabilities.",
    )


class ManagerListQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")
    search = serializers.CharField(required=False, max_length=200, help_text="E-mail or name.")
    role = serializers.CharField(required=False, max_length=64, help_text="A role's slug.")
    capability = serializers.ChoiceField(
        choices=sorted(CODENAMES),
        required=False,
        help_text="Managers who hold it (directly, through a role, manage_options, superusers).",
    )
    is_active = serializers.BooleanField(required=False, allow_null=True, default=None)
    orderby = CaseInsensitiveChoiceField(
        choices=sorted(selectors.ORDERBY), required=False, default="id"
    )
    order = CaseInsensitiveChoiceField(choices=["ASC", "DESC"], required=False, default="ASC")


class ManagerCreateSerializer(serializers.Serializer):
    user_id = IdField(required=False, help_text="The account (or send `email`).")
    email = serializers.EmailField(required=False, help_text="The account's e-mail address.")
    roles = _slug_list("Role slugs to add to those held.")
    capabilities = _capability_list("Capabilities to give the account itself (added).")
    is_staff = StrictBooleanField(
        required=False, default=True, help_text="Also let the account log in to the admin site."
    )

    def validate(self, attrs):
        if ("user_id" in attrs) == ("email" in attrs):
            raise serializers.ValidationError({"user_id": ["Send user_id or email (one)."]})
        return attrs


class ManagerUpdateSerializer(serializers.Serializer):
    roles = _slug_list("The manager's store roles (replaces them; [] for none).")
    capabilities = _capability_list("The manager's own capabilities (replaces them).")
    is_staff = StrictBooleanField(required=False, help_text="May log in to the admin site.")


class RoleListQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=50, help_text="Default 50, at most 100.")
    search = serializers.CharField(required=False, max_length=200)
    built_in = serializers.BooleanField(required=False, allow_null=True, default=None)


class RoleCreateSerializer(serializers.Serializer):
    name = StrictCharField(max_length=150, help_text="Unique without regard to case.")
    slug = StrictCharField(
        max_length=64,
        required=False,
        help_text="Lower-case letters, digits, _ and -; made from the name when absent. Set once.",
    )
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    capabilities = _capability_list("The role's capabilities.")


class RoleUpdateSerializer(serializers.Serializer):
    name = StrictCharField(max_length=150, required=False)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    capabilities = _capability_list("The role's capabilities (replaces them).")

    def validate(self, attrs):
        if isinstance(self.initial_data, dict) and "slug" in self.initial_data:
            raise serializers.ValidationError({"slug": ["A role's slug is set once."]})
        return attrs


# --- Output --------------------------------------------------------------------------------------


def role_ref(group) -> dict:
    return {"slug": group.store_role.slug, "name": group.name}


def role_data(group) -> dict:
    profile = group.store_role
    return {
        "slug": profile.slug,
        "name": group.name,
        "description": profile.description,
        "built_in": profile.built_in,
        "capabilities": selectors.role_capabilities(group),
        "manager_count": getattr(group, "manager_count", None) or 0,
        "created_at": iso(profile.created_at),
        "updated_at": iso(profile.updated_at),
    }


def manager_data(user) -> dict:
    return {
        "id": user.pk,
        "email": user.email,
        "name": user.name,
        "is_active": user.is_active,
        "is_staff": user.is_staff,
        "is_superuser": user.is_superuser,
        "roles": [role_ref(group) for group in selectors.manager_roles(user)],
        "capabilities": selectors.manager_own_capabilities(user),
        "effective_capabilities": selectors.manager_effective_capabilities(user),
        "date_joined": iso(user.date_joined),
        "last_login": iso(user.last_login),
    }


def capability_list(user) -> list[dict]:
    return [
        {
            "name": c.codename,
            "description": c.description,
            "grantable": has_capability(user, c.codename),
        }
        for c in CAPABILITIES
    ]


class RoleRefSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class ManagerSerializer(serializers.Serializer):
    id = IdField()
    email = serializers.EmailField()
    name = serializers.CharField()
    is_active = serializers.BooleanField()
    is_staff = serializers.BooleanField(help_text="May log in to the admin site.")
    is_superuser = serializers.BooleanField(help_text="Holds every capability by that flag.")
    roles = RoleRefSerializer(many=True, help_text="Store roles.")
    capabilities = serializers.ListField(
        child=serializers.CharField(), help_text="Capabilities held by the account itself."
    )
    effective_capabilities = serializers.ListField(
        child=serializers.CharField(),
        help_text="Everything the account may do: its own capabilities and its roles'; all of "
        "them for manage_options holders and superusers; none while inactive.",
    )
    date_joined = serializers.DateTimeField()
    last_login = serializers.DateTimeField(allow_null=True)


class ManagerPageSerializer(serializers.Serializer):
    managers = ManagerSerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


class RoleSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    built_in = serializers.BooleanField(help_text="A seeded role: read-only.")
    capabilities = serializers.ListField(child=serializers.CharField())
    manager_count = IntegerField(help_text="Accounts holding the role.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class RolePageSerializer(serializers.Serializer):
    roles = RoleSerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


class CapabilitySerializer(serializers.Serializer):
    name = serializers.CharField(help_text="e.g. ec_manage_products.")
    description = serializers.CharField()
    grantable = serializers.BooleanField(
        help_text="Whether the caller holds it, so may grant it to a role or an account."
    )


class CapabilityListSerializer(serializers.Serializer):
    capabilities = CapabilitySerializer(many=True)
