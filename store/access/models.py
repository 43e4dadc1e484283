from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import models
from django.utils import timezone

from store.common.capabilities import CAPABILITIES


class Capability(models.Model):
    """Holds the store's capabilities as Django permissions (`store_access.<codename>`).

    No table: the model exists so that Django creates one permission per capability, which
    roles (groups) and users then hold. store.common.capabilities is the list.
    """

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [(c.codename, c.description) for c in CAPABILITIES]
        verbose_name_plural = "capabilities"

    def __str__(self) -> str:
        return "store capabilities"


class RoleProfile(models.Model):
    """What makes a Django group a store role: its slug (the API's identifier), a description,
    and whether it is one of the seeded roles (read-only). Written by store.access.services."""

    group = models.OneToOneField(
        Group, on_delete=models.CASCADE, primary_key=True, related_name="store_role"
    )
    slug = models.SlugField(max_length=64, unique=True)
    description = models.TextField(blank=True, max_length=2000)
    built_in = models.BooleanField(
        default=False, help_text="A seeded role: read-only (its capabilities are restored)."
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-built_in", "group__name"]
        verbose_name = "role profile"
        # The app's permissions are the capabilities only (the admin asks for a capability).
        default_permissions = ()

    def __str__(self) -> str:
        return self.slug


class Role(Group):
    """A store role in the admin (a Django group with a RoleProfile)."""

    class Meta:
        proxy = True
        default_permissions = ()
        verbose_name = "role"

    def __str__(self) -> str:
        return self.name


class Manager(get_user_model()):
    """A store manager in the admin: an account with store roles or capabilities, or staff."""

    class Meta:
        proxy = True
        default_permissions = ()
        verbose_name = "manager"
        ordering = ["id"]
