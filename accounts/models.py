from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


class AccountType(models.TextChoices):
    DEVELOPER = "developer", "Developer"
    RESELLER = "reseller", "Reseller"
    AGENCY = "agency", "Agency"


PARTNER_TYPES = frozenset({AccountType.RESELLER, AccountType.AGENCY})


def normalize_email(email: str) -> str:
    """E-mail addresses are compared and stored lower-case, without surrounding blanks."""
    return (email or "").strip().lower()


class UserManager(BaseUserManager):
    use_in_migrations = True

    def get_by_natural_key(self, username):
        return self.get(email=normalize_email(username))

    def create_user(self, email: str, password: str | None = None, **fields) -> User:
        if not email:
            raise ValueError("An e-mail address is required.")
        user = self.model(email=normalize_email(email), **fields)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **fields) -> User:
        fields.setdefault("is_staff", True)
        fields.setdefault("is_superuser", True)
        fields.setdefault("email_verified", True)
        return self.create_user(email, password, **fields)


class User(AbstractBaseUser, PermissionsMixin):
    """An account: e-mail is the login; `type` is the portal role."""

    email = models.EmailField("e-mail address", max_length=254, unique=True)
    name = models.CharField(max_length=150)
    type = models.CharField(
        max_length=16, choices=AccountType.choices, default=AccountType.DEVELOPER, db_index=True
    )
    email_verified = models.BooleanField("e-mail verified", default=False)
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(
        "staff status", default=False, help_text="May log in to the admin site."
    )
    date_joined = models.DateTimeField(default=timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS = ["name"]

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(email=Lower("email")), name="accounts_user_email_lowercase"
            ),
        ]

    def __str__(self) -> str:
        return self.email

    def clean(self) -> None:
        super().clean()
        self.email = normalize_email(self.email)

    def save(self, *args, **kwargs) -> None:
        self.email = normalize_email(self.email)
        super().save(*args, **kwargs)

    @property
    def is_partner(self) -> bool:
        """Resellers and agencies: sub-clients, unlimited licences, API keys, webhooks."""
        return self.type in PARTNER_TYPES

    def get_full_name(self) -> str:
        return self.name

    def get_short_name(self) -> str:
        return self.name


class OneTimeToken(models.Model):
    """A token sent by e-mail (verify the address, reset the password). Only its hash is kept."""

    class Purpose(models.TextChoices):
        VERIFY_EMAIL = "verify_email", "Verify e-mail"
        RESET_PASSWORD = "reset_password", "Reset password"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="one_time_tokens")
    purpose = models.CharField(max_length=20, choices=Purpose.choices)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(db_index=True)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "purpose"])]

    def __str__(self) -> str:
        return f"{self.get_purpose_display()} for {self.user_id}"


class ApiKey(models.Model):
    """A reseller's or agency's API key. The key is shown once; only its SHA-256 is stored."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, unique=True, help_text="Lookup prefix, not secret.")
    key_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class AppPassword(models.Model):
    """An application password for HTTP Basic on the store API. Only its SHA-256 is stored."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="app_passwords")
    name = models.CharField(max_length=100)
    password_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    last_used_ip = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "application password"

    def __str__(self) -> str:
        return f"{self.name} ({self.user.email})"


class LoginLimit(models.Model):
    """Failed log-ins of one e-mail address or one client address (accounts.services).

    Every surface that takes a password (the portal, the checkout, the admin, application
    passwords over HTTP Basic: the store API and the MCP endpoint) counts here, in
    the database, so a lock holds across surfaces, processes and cache outages. An e-mail
    address counts whether or not an account has it, so a lock tells nothing about accounts.
    """

    class Kind(models.TextChoices):
        ACCOUNT = "account", "E-mail address"
        ADDRESS = "address", "Client address"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    key = models.CharField(max_length=64, help_text="SHA-256 of the kind and the subject.")
    subject = models.CharField(max_length=254, help_text="The e-mail address or client address.")
    failures = models.PositiveIntegerField(
        default=0, help_text="Failed (or still running) log-ins in the current window."
    )
    window_started_at = models.DateTimeField(default=timezone.now)
    locked_until = models.DateTimeField(null=True, blank=True)
    locks = models.PositiveIntegerField(
        default=0, help_text="Locks in a row; each lasts twice the one before."
    )
    last_attempt_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        verbose_name = "log-in limit"
        ordering = ["-last_attempt_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "key"], name="accounts_loginlimit_unique")
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.subject}"
