"""Input serializers (validate only) and output serializers (shape only) of the licence API."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from licensing.models import LicenseSource, LicenseStatus, Tier
from licensing.services.licenses import MAX_BULK_CREATE
from licensing.services.rules import MAX_BULK_IDS

# --- Output: portal ---------------------------------------------------------------------------


class ProductRefSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()


class ActivationSerializer(serializers.Serializer):
    domain = serializers.CharField()
    activated_at = serializers.DateTimeField()


class EffectiveStatusField(serializers.ChoiceField):
    """An active licence past its expiry reads as expired, before the expiry task runs."""

    def __init__(self, **kwargs):
        super().__init__(choices=LicenseStatus.choices, source="*", **kwargs)

    def to_representation(self, license):
        return license.effective_status(self.context.get("now"))


class ClientLicenseSerializer(serializers.Serializer):
    """A licence in the client-licences answer: without source, customer_id, created_at."""

    id = IdField()
    license_key = serializers.CharField(help_text="EMP- then five groups of four letters.")
    product = ProductRefSerializer()
    tier = serializers.ChoiceField(choices=Tier.choices)
    status = EffectiveStatusField()
    expires_at = serializers.DateTimeField()
    activations = ActivationSerializer(many=True)


class LicenseSerializer(ClientLicenseSerializer):
    source = serializers.ChoiceField(choices=LicenseSource.choices)
    customer_id = IdField(allow_null=True, help_text="The sub-client the licence is assigned to.")
    created_at = serializers.DateTimeField()

    class Meta:
        fields = [
            "id",
            "license_key",
            "product",
            "tier",
            "status",
            "source",
            "expires_at",
            "activations",
            "customer_id",
            "created_at",
        ]

    def to_representation(self, instance):
        data = super().to_representation(instance)
        return {name: data[name] for name in self.Meta.fields}


class LicenseCreatedSerializer(serializers.Serializer):
    id = IdField()
    license_key = serializers.CharField()
    tier = serializers.ChoiceField(choices=Tier.choices)
    status = serializers.ChoiceField(choices=LicenseStatus.choices)
    expires_at = serializers.DateTimeField()


class BulkCreatedSerializer(serializers.Serializer):
    count = IntegerField()
    license_keys = serializers.ListField(child=serializers.CharField())
    pack_credits_remaining = IntegerField()


class SuccessSerializer(serializers.Serializer):
    success = serializers.BooleanField()
    message = serializers.CharField()


class TierChangeSerializer(SuccessSerializer):
    old_tier = serializers.ChoiceField(choices=Tier.choices)
    new_tier = serializers.ChoiceField(choices=Tier.choices)


class RevokedCountSerializer(serializers.Serializer):
    revoked = IntegerField(help_text="How many licences this call revoked.")


class DeletedCountSerializer(serializers.Serializer):
    deleted = IntegerField(help_text="How many licences this call deleted.")


class UsageSerializer(serializers.Serializer):
    total_licenses = IntegerField(help_text="Every licence but nfr ones.")
    limit = IntegerField(help_text="-1: unlimited (resellers and agencies).")
    remaining = IntegerField(help_text="-1 when unlimited.")


class PackSerializer(serializers.Serializer):
    pack_id = IdField()
    pack_size = IntegerField()
    bundle = serializers.CharField()
    used = IntegerField()
    remaining = IntegerField()
    status = serializers.CharField()


class PackCreditsSerializer(serializers.Serializer):
    total_credits = IntegerField()
    packs = PackSerializer(many=True)


class TierPriceSerializer(serializers.Serializer):
    tier = serializers.ChoiceField(choices=Tier.choices)
    yearly_price = serializers.DecimalField(max_digits=10, decimal_places=2)
    max_domains = IntegerField(help_text="Domains a licence may be active on.")


class ProductSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()
    description = serializers.CharField()
    tiers = serializers.SerializerMethodField()

    def get_tiers(self, product) -> TierPriceSerializer(many=True):
        from licensing.selectors import product_tiers

        return TierPriceSerializer(product_tiers(product), many=True).data


class RenewalItemSerializer(serializers.Serializer):
    license_id = IdField(allow_null=True)
    license_key = serializers.CharField()
    product_slug = serializers.CharField(source="product.slug")
    tier = serializers.ChoiceField(choices=Tier.choices)
    price = serializers.DecimalField(max_digits=10, decimal_places=2)
    previous_expires_at = serializers.DateTimeField(help_text="Expiry when the order was made.")
    new_expires_at = serializers.DateTimeField(
        allow_null=True, help_text="Set when the payment is confirmed."
    )


class RenewalOrderSerializer(serializers.Serializer):
    order_code = serializers.CharField(source="code")
    status = serializers.CharField(help_text="pending or paid")
    checkout_url = serializers.CharField(help_text="Send the payer here.")
    amount = serializers.DecimalField(max_digits=12, decimal_places=2)
    currency = serializers.CharField()
    provider = serializers.CharField()
    transaction_id = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    paid_at = serializers.DateTimeField(allow_null=True)
    licenses = RenewalItemSerializer(many=True, source="items.all")


class PriceSerializer(serializers.Serializer):
    product_id = IdField()
    product_slug = serializers.CharField()
    product_name = serializers.CharField()
    tier = serializers.ChoiceField(choices=Tier.choices)
    yearly_price = serializers.DecimalField(max_digits=10, decimal_places=2)


class ExpiringLicenseSerializer(serializers.Serializer):
    id = IdField()
    license_key = serializers.CharField()
    product = ProductRefSerializer()
    tier = serializers.ChoiceField(choices=Tier.choices)
    status = serializers.ChoiceField(choices=LicenseStatus.choices)
    expires_at = serializers.DateTimeField()
    days_left = IntegerField(help_text="Negative once expired.")
    renewal_price = serializers.DecimalField(max_digits=10, decimal_places=2)


class RenewalInfoSerializer(serializers.Serializer):
    currency = serializers.CharField()
    renewal_period = serializers.CharField()
    window_days = IntegerField()
    prices = PriceSerializer(many=True)
    expiring_licenses = ExpiringLicenseSerializer(many=True)


# --- Input: portal ----------------------------------------------------------------------------


class LicenseListQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=LicenseStatus.choices, required=False)
    source = serializers.ChoiceField(choices=LicenseSource.choices, required=False)
    search = serializers.CharField(required=False, max_length=200, allow_blank=True)


class LicenseCreateInputSerializer(serializers.Serializer):
    product_id = IdField(min_value=1)
    tier = serializers.ChoiceField(choices=Tier.choices, default=Tier.STARTER)
    expires_at = serializers.DateTimeField(
        required=False, allow_null=True, help_text="Default: one year from now."
    )
    customer_id = IdField(
        required=False, allow_null=True, min_value=1, help_text="Reseller and agency only."
    )


class BulkCreateInputSerializer(LicenseCreateInputSerializer):
    count = IntegerField(min_value=1, max_value=MAX_BULK_CREATE)


class TierInputSerializer(serializers.Serializer):
    tier = serializers.ChoiceField(choices=Tier.choices)


class IdsInputSerializer(serializers.Serializer):
    ids = serializers.ListField(child=IdField(), max_length=MAX_BULK_IDS, allow_empty=True)


class RenewInputSerializer(serializers.Serializer):
    license_ids = serializers.ListField(child=IdField(), min_length=1, max_length=MAX_BULK_IDS)


class RenewConfirmInputSerializer(serializers.Serializer):
    transaction_id = serializers.CharField(max_length=255)
    order_code = serializers.CharField(max_length=32)


# --- Public licence API -----------------------------------------------------------------------


class LicenseKeyInputSerializer(serializers.Serializer):
    license_key = serializers.CharField(max_length=100)


class DomainInputSerializer(LicenseKeyInputSerializer):
    domain = serializers.CharField(
        max_length=2000, help_text="Host name or URL; normalised (docs/api/portal.md)."
    )
    product = serializers.SlugField(
        required=False, help_text="The product's slug: refused when the key is for another."
    )


class PublicLicenseSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=LicenseStatus.choices)
    tier = serializers.ChoiceField(choices=Tier.choices)
    expires_at = serializers.DateTimeField()
    product = ProductRefSerializer()


class ActivateOutputSerializer(serializers.Serializer):
    success = serializers.BooleanField()
    result = serializers.ChoiceField(choices=["activated", "already_activated"])
    license_key = serializers.CharField()
    domain = serializers.CharField(help_text="As normalised and stored.")
    development_host = serializers.BooleanField(help_text="Not counted against the limit.")
    activated_at = serializers.DateTimeField()
    activations_used = IntegerField()
    activations_limit = IntegerField()
    activations_left = IntegerField()
    license = PublicLicenseSerializer()


class DeactivateOutputSerializer(serializers.Serializer):
    success = serializers.BooleanField()
    message = serializers.CharField()
    license_key = serializers.CharField()
    domain = serializers.CharField()


class SignedBlockSerializer(serializers.Serializer):
    algorithm = serializers.CharField(help_text="ed25519")
    key_id = serializers.CharField()
    payload = serializers.CharField(help_text="Base64 of the canonical JSON of the verdict.")
    signature = serializers.CharField(help_text="Base64 Ed25519 signature of the payload bytes.")


class VerifyOutputSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    result = serializers.ChoiceField(
        choices=[
            "valid",
            "not_found",
            "product_mismatch",
            "revoked",
            "expired",
            "domain_not_activated",
            "too_many_domains",
        ]
    )
    license_key = serializers.CharField()
    domain = serializers.CharField()
    status = serializers.CharField(allow_null=True)
    tier = serializers.CharField(allow_null=True)
    expires_at = serializers.CharField(allow_null=True)
    product = ProductRefSerializer(allow_null=True)
    activated_at = serializers.CharField(allow_null=True)
    development_host = serializers.BooleanField()
    issued_at = serializers.CharField()
    valid_until = serializers.CharField(help_text="Trust a cached copy of this answer until then.")
    signed = SignedBlockSerializer()


class PublicKeySerializer(serializers.Serializer):
    algorithm = serializers.CharField()
    key_id = serializers.CharField()
    public_key = serializers.CharField(help_text="Base64 of the 32-byte raw public key.")
    public_key_pem = serializers.CharField()


class UpdateCheckInputSerializer(LicenseKeyInputSerializer):
    version = serializers.CharField(max_length=50, help_text="The installed version.")


class UpdateInfoInputSerializer(LicenseKeyInputSerializer):
    version = serializers.CharField(max_length=50, required=False)


class UpdateCheckOutputSerializer(serializers.Serializer):
    update_available = serializers.BooleanField()
    installed_version = serializers.CharField()
    latest_version = serializers.CharField(allow_null=True)
    released_at = serializers.DateTimeField(allow_null=True)
    changelog = serializers.CharField(allow_null=True)
    license_status = serializers.ChoiceField(choices=LicenseStatus.choices)
    download_allowed = serializers.BooleanField(
        help_text="False for a revoked or expired licence: renew to download."
    )


class ReleaseNoteSerializer(serializers.Serializer):
    version = serializers.CharField()
    released_at = serializers.DateTimeField()
    changelog = serializers.CharField()


class UpdateInfoOutputSerializer(serializers.Serializer):
    product = ProductRefSerializer()
    latest_version = serializers.CharField(allow_null=True)
    released_at = serializers.DateTimeField(allow_null=True)
    file_size = IntegerField(column="BigIntegerField", allow_null=True)
    sha256 = serializers.CharField(allow_null=True)
    changelog = serializers.CharField(allow_null=True)
    releases = ReleaseNoteSerializer(
        many=True, help_text="Newer than the installed version (all without one), newest first."
    )


class DownloadInputSerializer(LicenseKeyInputSerializer):
    domain = serializers.CharField(max_length=2000, help_text="An activated domain.")
    version = serializers.CharField(max_length=50, required=False, help_text="Default: latest.")


class ComponentDownloadInputSerializer(LicenseKeyInputSerializer):
    domain = serializers.CharField(max_length=2000, help_text="An activated domain.")
    slug = serializers.SlugField()


class DownloadOutputSerializer(serializers.Serializer):
    url = serializers.CharField(help_text="Signed; works until expires_at.")
    expires_at = serializers.DateTimeField()
    filename = serializers.CharField()
    version = serializers.CharField()
    file_size = IntegerField(column="BigIntegerField")
    sha256 = serializers.CharField()


class ComponentSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    version = serializers.CharField()
    min_tier = serializers.ChoiceField(choices=Tier.choices)
    available = serializers.BooleanField(help_text="The licence's tier includes it.")
    file_size = IntegerField(column="BigIntegerField")
    updated_at = serializers.DateTimeField()


class ComponentListOutputSerializer(serializers.Serializer):
    product = ProductRefSerializer()
    tier = serializers.ChoiceField(choices=Tier.choices)
    license_status = serializers.ChoiceField(choices=LicenseStatus.choices)
    components = ComponentSerializer(many=True)


class ComponentCheckInputSerializer(LicenseKeyInputSerializer):
    components = serializers.DictField(
        child=serializers.CharField(max_length=50),
        allow_empty=False,
        help_text="Installed components: {slug: version}.",
    )

    def validate_components(self, value):
        if len(value) > 200:
            raise serializers.ValidationError("At most 200 components.")
        return value


class ComponentCheckItemSerializer(serializers.Serializer):
    slug = serializers.CharField()
    installed_version = serializers.CharField()
    latest_version = serializers.CharField()
    update_available = serializers.BooleanField()
    available = serializers.BooleanField()


class ComponentCheckOutputSerializer(serializers.Serializer):
    components = ComponentCheckItemSerializer(many=True)
    unknown = serializers.ListField(
        child=serializers.CharField(), help_text="Slugs this product has no component for."
    )
