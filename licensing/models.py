from __future__ import annotations

from decimal import Decimal

from django.conf import settings
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
        return domain_limit(tier, self.starter_max_domains, self.business_max_domains)


# --- Licences ---------------------------------------------------------------------------------


class LicenseStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    REVOKED = "revoked", "Revoked"
    EXPIRED = "expired", "Expired"


class LicenseSource(models.TextChoices):
    INDIVIDUAL = "individual", "Individual"
    BULK_PACK = "bulk_pack", "Bulk pack"
    COMMITMENT = "commitment", "Commitment"
    NFR = "nfr", "Not for resale"


class LicenseQuerySet(models.QuerySet):
    """Status as callers see it: an active licence past `expires_at` is already expired, even
    before the expiry task has written it down."""

    def with_effective_status(self, status: str, *, now=None) -> LicenseQuerySet:
        now = now or timezone.now()
        if status == LicenseStatus.ACTIVE:
            return self.filter(status=LicenseStatus.ACTIVE, expires_at__gt=now)
        if status == LicenseStatus.EXPIRED:
            return self.filter(
                models.Q(status=LicenseStatus.EXPIRED)
                | models.Q(status=LicenseStatus.ACTIVE, expires_at__lte=now)
            )
        return self.filter(status=status)


class License(models.Model):
    """A licence of `owner` for `product` at `tier`; assigned to one of the owner's sub-clients
    when `customer` is set."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="licenses"
    )
    product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="licenses")
    license_key = models.CharField(max_length=64, unique=True)
    tier = models.CharField(max_length=16, choices=Tier.choices, default=Tier.STARTER)
    status = models.CharField(
        max_length=16, choices=LicenseStatus.choices, default=LicenseStatus.ACTIVE
    )
    source = models.CharField(
        max_length=16, choices=LicenseSource.choices, default=LicenseSource.INDIVIDUAL
    )
    expires_at = models.DateTimeField()
    customer = models.ForeignKey(
        "clients.Client",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="licenses",
    )
    subscription = models.ForeignKey(
        "licensing.Subscription",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="licenses",
        help_text="The Business Bundle subscription a business-tier licence depends on.",
    )
    pack = models.ForeignKey(
        "licensing.Pack",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="licenses",
        help_text="The bulk pack whose credit paid for this licence.",
    )
    invoiced_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Set once the licence has been on an invoice; invoiced licences are never "
        "deleted permanently.",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    objects = LicenseQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # The portal list: the caller's licences newest first, read by keyset.
            models.Index(fields=["owner", "-created_at", "-id"], name="licensing_owner_newest"),
            models.Index(
                fields=["owner", "status", "-created_at", "-id"], name="licensing_owner_status"
            ),
            models.Index(fields=["customer"]),
            models.Index(fields=["status", "expires_at"]),
        ]

    def __str__(self) -> str:
        return self.license_key

    @property
    def is_invoiced(self) -> bool:
        return self.invoiced_at is not None

    def effective_status(self, now=None) -> str:
        return effective_status(self.status, self.expires_at, now or timezone.now())


# The rules of Product.max_domains and License.effective_status as plain functions, for the
# verify path, which reads columns and builds no model instance (~50 us each).
def domain_limit(tier: str, starter_max_domains: int, business_max_domains: int) -> int:
    return business_max_domains if tier == Tier.BUSINESS else starter_max_domains


def effective_status(status: str, expires_at, now) -> str:
    if status == LicenseStatus.ACTIVE and expires_at <= now:
        return LicenseStatus.EXPIRED
    return status


class Activation(models.Model):
    """A licence in use on one domain (normalised: see licensing.domains)."""

    license = models.ForeignKey(License, on_delete=models.CASCADE, related_name="activations")
    domain = models.CharField(max_length=253)
    is_development = models.BooleanField(
        default=False, help_text="Development host: does not count against the domain limit."
    )
    activated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["activated_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["license", "domain"], name="licensing_activation_unique_domain"
            )
        ]
        indexes = [models.Index(fields=["domain"])]

    def __str__(self) -> str:
        return f"{self.license.license_key} on {self.domain}"


# --- Packs and subscriptions ------------------------------------------------------------------


class PackStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    EXHAUSTED = "exhausted", "Exhausted"
    EXPIRED = "expired", "Expired"
    CANCELLED = "cancelled", "Cancelled"


class Pack(models.Model):
    """Prepaid licence credits of a reseller or agency: one credit pays for one licence."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="packs"
    )
    bundle = models.CharField(max_length=100, help_text="What was bought, e.g. 'Agency 50'.")
    size = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    used = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=PackStatus.choices, default=PackStatus.ACTIVE)
    purchased_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(
        null=True, blank=True, help_text="Unused credits lapse then; empty: never."
    )

    class Meta:
        ordering = ["purchased_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(used__lte=models.F("size")), name="licensing_pack_used_lte_size"
            ),
        ]
        indexes = [models.Index(fields=["owner", "status"])]

    def __str__(self) -> str:
        return f"{self.bundle} ({self.used}/{self.size})"

    @property
    def remaining(self) -> int:
        return self.size - self.used


class SubscriptionPlan(models.TextChoices):
    BUSINESS_BUNDLE = "business_bundle", "Business Bundle"


class SubscriptionStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    EXPIRED = "expired", "Expired"


class Subscription(models.Model):
    """A Business Bundle subscription: business-tier licences need a current one.

    Without `customer` it covers every licence of the owner; with one, that sub-client's.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="subscriptions"
    )
    customer = models.ForeignKey(
        "clients.Client",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="subscriptions",
    )
    plan = models.CharField(
        max_length=32, choices=SubscriptionPlan.choices, default=SubscriptionPlan.BUSINESS_BUNDLE
    )
    status = models.CharField(
        max_length=16, choices=SubscriptionStatus.choices, default=SubscriptionStatus.ACTIVE
    )
    started_at = models.DateTimeField(default=timezone.now)
    current_period_end = models.DateTimeField()
    expired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-current_period_end", "-id"]
        indexes = [models.Index(fields=["status", "current_period_end"])]

    def __str__(self) -> str:
        return f"{self.get_plan_display()} #{self.pk} ({self.status})"

    def is_current(self, now=None) -> bool:
        now = now or timezone.now()
        return self.status == SubscriptionStatus.ACTIVE and self.current_period_end > now


# --- Renewals ---------------------------------------------------------------------------------


class RenewalOrderStatus(models.TextChoices):
    PENDING = "pending", "Pending payment"
    PAID = "paid", "Paid"


class RenewalOrder(models.Model):
    """Licences priced for a one-year renewal, paid through the payment provider."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="renewal_orders"
    )
    code = models.CharField(max_length=32, unique=True)
    status = models.CharField(
        max_length=16, choices=RenewalOrderStatus.choices, default=RenewalOrderStatus.PENDING
    )
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    provider = models.CharField(max_length=32)
    provider_reference = models.CharField(
        max_length=255, blank=True, help_text="The provider's checkout id."
    )
    checkout_url = models.CharField(max_length=2000, blank=True)
    # NULL until paid: unique only once set.
    transaction_id = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    created_at = models.DateTimeField(default=timezone.now)
    paid_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "transaction_id"],
                name="licensing_renewal_transaction_once",
            )
        ]

    def __str__(self) -> str:
        return self.code


class RenewalOrderItem(models.Model):
    order = models.ForeignKey(RenewalOrder, on_delete=models.CASCADE, related_name="items")
    license = models.ForeignKey(
        License, on_delete=models.SET_NULL, null=True, blank=True, related_name="renewal_items"
    )
    license_key = models.CharField(max_length=64, help_text="The key when the order was made.")
    product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="+")
    tier = models.CharField(max_length=16, choices=Tier.choices)
    price = models.DecimalField(max_digits=10, decimal_places=2)
    previous_expires_at = models.DateTimeField()
    new_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.license_key} ({self.price})"


class SandboxCheckoutStatus(models.TextChoices):
    OPEN = "open", "Open"
    PAID = "paid", "Paid"
    DECLINED = "declined", "Declined"


class SandboxCheckout(models.Model):
    """A checkout of the local sandbox payment provider (development and demos)."""

    token = models.CharField(max_length=64, unique=True)
    order_code = models.CharField(max_length=32, db_index=True)
    description = models.CharField(max_length=255)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    return_url = models.CharField(max_length=2000, blank=True)
    status = models.CharField(
        max_length=16, choices=SandboxCheckoutStatus.choices, default=SandboxCheckoutStatus.OPEN
    )
    transaction_id = models.CharField(max_length=64, unique=True, null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.order_code} ({self.status})"


# --- Releases and components ------------------------------------------------------------------


class Release(models.Model):
    """A version of a product's package, offered to installed copies as an update."""

    product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="releases")
    version = models.CharField(max_length=50, help_text="PEP 440 / semantic version, e.g. 2.1.0")
    changelog = models.TextField(blank=True)
    file = models.FileField(upload_to="releases/%Y/%m/")
    file_size = models.BigIntegerField(default=0, editable=False)
    sha256 = models.CharField(max_length=64, blank=True, editable=False)
    released_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-released_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["product", "version"], name="licensing_release_unique_version"
            )
        ]

    def __str__(self) -> str:
        return f"{self.product.slug} {self.version}"


class Component(models.Model):
    """An add-on of a product (module, extension) installed separately, gated by tier."""

    product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="components")
    slug = models.SlugField(max_length=100)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    version = models.CharField(max_length=50)
    min_tier = models.CharField(max_length=16, choices=Tier.choices, default=Tier.STARTER)
    changelog = models.TextField(blank=True)
    file = models.FileField(upload_to="components/%Y/%m/")
    file_size = models.BigIntegerField(default=0, editable=False)
    sha256 = models.CharField(max_length=64, blank=True, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["product", "name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["product", "slug"], name="licensing_component_unique_slug"
            )
        ]

    def __str__(self) -> str:
        return f"{self.product.slug}/{self.slug} {self.version}"
