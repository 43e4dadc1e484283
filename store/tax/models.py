from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from store.catalog.models import Product

STANDARD = "standard"
REDUCED = "reduced-rate"
ZERO = "zero-rate"
EU_VAT_SOURCE = "eu_vat"  # TaxRate.source of the rates the EU VAT loader made


class TaxClass(models.Model):
    """A class of goods taxed alike: standard, reduced-rate, zero-rate (seeded), or the store's."""

    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100, unique=True)
    sort_order = models.IntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["sort_order", "name", "id"]
        verbose_name_plural = "tax classes"

    def __str__(self) -> str:
        return self.name


class TaxRate(models.Model):
    """A rate for one tax class where the customer is: country, region, postcodes (blank: any).

    For each priority the most specific matching rate applies (postcode, then region, then
    country, then everywhere); rates of different priorities add up.
    """

    tax_class = models.ForeignKey(TaxClass, on_delete=models.CASCADE, related_name="rates")
    country = models.CharField(
        max_length=2, blank=True, help_text="ISO 3166-1 alpha-2; blank: every country."
    )
    region = models.CharField(
        max_length=10, blank=True, help_text="ISO 3166-2 subdivision (e.g. I); blank: any."
    )
    postcodes = models.TextField(
        blank=True,
        help_text="Postcode patterns, one per line or comma-separated (10431, 104*, "
        "10000...19999); blank: any.",
    )
    rate = models.DecimalField(max_digits=7, decimal_places=4, help_text="Percent, e.g. 24.0000")
    name = models.CharField(max_length=100, default="VAT", help_text="Label on receipts.")
    priority = models.PositiveSmallIntegerField(default=1)
    applies_to_shipping = models.BooleanField(default=True)
    enabled = models.BooleanField(default=True)
    source = models.CharField(
        max_length=32,
        blank=True,
        help_text="Where the rate came from: `eu_vat` for rates loaded from the shipped data "
        "(the loader updates only those); blank for rates entered by staff.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["tax_class__sort_order", "country", "region", "priority", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(rate__gte=0) & Q(rate__lte=100), name="store_tax_rate_percent"
            )
        ]
        indexes = [models.Index(fields=["country", "enabled"])]

    def __str__(self) -> str:
        where = ":".join(part for part in (self.country, self.region) if part) or "*"
        return f"{self.name} {self.rate.normalize():f}% ({where}, {self.tax_class_id})"


class ProductTaxClass(models.Model):
    """The tax class of a product (its variants too); products without one are `standard`."""

    product = models.OneToOneField(
        Product, on_delete=models.CASCADE, related_name="tax_class_link", primary_key=True
    )
    tax_class = models.ForeignKey(TaxClass, on_delete=models.PROTECT, related_name="+")

    class Meta:
        verbose_name = "product tax class"
        verbose_name_plural = "product tax classes"

    def __str__(self) -> str:
        return f"{self.product_id}: {self.tax_class_id}"
