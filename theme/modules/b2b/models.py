"""B2B customer groups and their members (an account is in at most one group).

The tables keep the names they had in the modules' one app (theme_modules_*): the split into
one app per module moved the models' state, not their rows."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

PERCENT = [MinValueValidator(Decimal(0)), MaxValueValidator(Decimal(100))]


class CustomerGroup(models.Model):
    """A B2B customer group: its members pay catalogue prices less `discount_percent`."""

    name = models.CharField(max_length=100, unique=True)
    description = models.CharField(max_length=500, blank=True)
    discount_percent = models.DecimalField(
        max_digits=5, decimal_places=2, default=Decimal(0), validators=PERCENT
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="CustomerGroupMember", related_name="+", blank=True
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        db_table = "theme_modules_customergroup"
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name


class CustomerGroupMember(models.Model):
    group = models.ForeignKey(CustomerGroup, on_delete=models.CASCADE, related_name="memberships")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="theme_group_membership"
    )

    class Meta:
        db_table = "theme_modules_customergroupmember"

    def __str__(self) -> str:
        return f"{self.user_id} in {self.group_id}"
