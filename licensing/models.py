from decimal import Decimal

from django.core.validators import MinValueValidator
from django.db import models
from django.utils import timezone


class Tier(models.TextChoices):
    STARTER = "starter", "Starter"
    BUSINESS = "business", "Business"


class Product(models.Model):
    """A product of the vendor that licences are issued for, priced per tier and year."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    starter_yearly_price = models.DecimalField(
        max_digits=10, decimal_places=2, default=Decimal("0.00"), validators=[MinValueValidator(0)]
    )
    starter_max_domains = models.PositiveIntegerField(
        default=1, help_text="Domains a starter licence may be active on at once."
    )
    business_yearly_price = models.DecimalField(
        max_digits=10, decimal_places=2, default=Decimal("0.00"), validators=[MinValueValidator(0)]
    )
    business_max_domains = models.PositiveIntegerField(
        default=5, help_text="Domains a business licence may be active on at once."
    )
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def yearly_price(self, tier: str) -> Decimal:
        return self.business_yearly_price if tier == Tier.BUSINESS else self.starter_yearly_price

    def max_domains(self, tier: str) -> int:
        return self.business_max_domains if tier == Tier.BUSINESS else self.starter_max_domains
