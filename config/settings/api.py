"""The REST framework: rate limits, error styles, idempotency, and the OpenAPI descriptions
(drf-spectacular) of the portal, the store (ec/v1), the theme and the core namespaces, with the
one table of enum names they share."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from config.env import env_int, env_str
from config.settings.base import CORE_NS, NONCE_HEADER, REST_ROOT, THEME_NS

# --- Rate limits ------------------------------------------------------------------------------


def _rate(scope: str, default: str) -> str:
    return env_str(f"THROTTLE_RATE_{scope.upper()}", default)


# Each scope's default rate; THROTTLE_RATE_<SCOPE> overrides it.
THROTTLE_DEFAULTS = {
    # Accounts.
    "login": "5/min",
    "register": "5/min",
    "forgot_password": "3/min",
    "resend_verification": "3/min",
    "refresh": "10/min",
    "verify_email": "10/min",
    "reset_password": "10/min",
    # Licensing: the public licence API used by installed copies (spec: Limits), counted per
    # client address. `download_file` (fetching a signed download URL) is ours, not the spec's.
    "license_activate": "10/min",
    "license_deactivate": "10/min",
    "license_verify": "30/min",
    "update_check": "30/min",
    "update_info": "30/min",
    "download": "5/min",
    "component_list": "30/min",
    "component_available": "30/min",
    "component_check": "30/min",
    "component_download": "100/min",
    "download_file": "60/min",
    # Webhooks: test pings and redeliveries send at once; limited per account.
    "webhook_send": "30/min",
    # Coupon codes can be guessed: applying and validating them is rate limited per client
    # address (or account).
    "coupon_validate": "30/min",
    # Completing a checkout, order-received lookups, e-mail checks (they tell whether an account
    # exists) and the checkout's log-in and sign-up get their own stricter limits, per client
    # address (or account).
    "checkout_complete": "10/min",
    "order_received": "20/min",
    "checkout_check_email": "10/min",
    "checkout_login": "5/min",
    "checkout_create_account": "5/min",
    # Stock hoarding: starting a checkout holds stock, so it is limited per client address (or
    # account); every other cart write (items, clear, address, shipping method, coupon removal,
    # checkout updates and validation) shares a looser limit. Coupon apply keeps
    # coupon_validate.
    "checkout_start": "20/hour",
    "cart_write": "60/min",
    # Store e-mails: a test e-mail goes to any address, so staff send a few an hour.
    "email_test": "10/hour",
    # The theme's storefront: newsletter sign-ups and VAT-number checks.
    "newsletter_subscribe": "5/hour",
    "vat_validate": "30/min",
    # The core namespace: /debug/js-log, per client address.
    "debug_js_log": "30/min",
    # The theme's quotes module: requests for quote.
    "quote_request": "5/hour",
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.BearerTokenAuthentication",
        "accounts.authentication.ApiKeyAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["common.api.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "common.api.negotiation.JSONOnlyContentNegotiation",
    "EXCEPTION_HANDLER": "common.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {
        scope: _rate(scope, rate) for scope, rate in THROTTLE_DEFAULTS.items()
    },
    "NUM_PROXIES": env_int("NUM_PROXIES", 0, minimum=0),
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DATETIME_FORMAT": "iso-8601",
    "COERCE_DECIMAL_TO_STRING": True,
}

# --- Errors and idempotency -------------------------------------------------------------------

# Error body styles by path prefix (the longest wins); the portal style serves /api/. Store
# errors: {"code", "message", "data": {"status", "params"?}}; invalid parameters are 400.
API_ERROR_STYLES: dict[str, str] = {
    f"/{REST_ROOT}/": "store.common.errors.StoreErrorStyle",
}

IDEMPOTENCY_KEY_TTL = timedelta(hours=24)
# An in-progress request older than this is taken to have died; its key may be reused.
IDEMPOTENCY_LOCK_TIMEOUT = timedelta(minutes=5)

# --- OpenAPI: enum names ----------------------------------------------------------------------

# One OpenAPI enum per choice set, whatever the field's name (tier, min_tier, old_tier, ...).
# The portal's: the licence's choices.
_PORTAL_ENUM_NAME_OVERRIDES = {
    "LicenseTierEnum": "licensing.models.Tier",
    "LicenseStatusEnum": "licensing.models.LicenseStatus",
    "LicenseSourceEnum": "licensing.models.LicenseSource",
}
# The store's, the ERP's and the theme's (the theme's description names these too).
_SHARED_ENUM_NAME_OVERRIDES = {
    # Catalog and reviews.
    "ProductStatusEnum": "store.catalog.choices.ProductStatus",
    "ProductTypeEnum": "store.catalog.choices.ProductType",
    "StockStatusEnum": "store.catalog.choices.StockStatus",
    "ProductConditionEnum": "store.catalog.choices.ProductCondition",
    "AttributeTypeEnum": "store.catalog.choices.AttributeType",
    "ReviewStatusEnum": "store.reviews.models.ReviewStatus",
    # Orders: the order, payment and shipment statuses.
    **{
        f"{name}Enum": f"store.orders.choices.{name}"
        for name in (
            "OrderStatus",
            "PaymentStatus",
            "FulfillmentStatus",
            "PaymentKind",
            "PaymentRecordStatus",
            "ShipmentStatus",
            "HistoryField",
            "OrderSource",
        )
    },
    # Coupons and shipping.
    "DiscountTypeEnum": "store.coupons.models.DiscountType",
    "ShippingMethodTypeEnum": "store.shipping.models.MethodType",
    # Customers: the saved addresses' type (billing, shipping).
    "AddressTypeEnum": "store.customers.models.AddressType",
    # Checkout.
    "CheckoutStatusEnum": "store.checkout.models.CheckoutStatus",
    # Store e-mails.
    "EmailTypeEnum": "store.emails.types.EMAIL_TYPE_CHOICES",
    "OrderEmailTypeEnum": "store.emails.types.ORDER_EMAIL_TYPE_CHOICES",
    # Two fields named "provider" (a payment provider, a courier).
    "PaymentProviderEnum": "store.payments.models.Provider",
    "CourierProviderEnum": "store.courier.providers.PROVIDER_NAMES",
    # ERP invoicing: its statuses and the tax authorities.
    "InvoiceStatusEnum": "erp.invoicing.choices.InvoiceStatus",
    "InvoiceTransmissionStatusEnum": "erp.invoicing.choices.TransmissionStatus",
    "InvoicingProviderEnum": "erp.invoicing.choices.Provider",
    "InvoiceDocumentTypeEnum": "erp.invoicing.choices.DocumentType",
    "InvoiceVatExemptionEnum": "erp.invoicing.choices.VatExemption",
    "InvoiceVatCategoryEnum": "erp.invoicing.choices.VatCategory",
    "InvoicePaymentMethodEnum": "erp.invoicing.choices.PaymentMethod",
    # ERP HR and the labor registry.
    "HrEmploymentTypeEnum": "erp.hr.choices.EmploymentType",
    "HrLeaveStatusEnum": "erp.hr.choices.LeaveStatus",
    "HrDocumentKindEnum": "erp.hr.choices.DocumentKind",
    "HrTerminationReasonEnum": "erp.hr.choices.TerminationReason",
    "LaborSubmissionKindEnum": "erp.hr.choices.SubmissionKind",
    "LaborSubmissionStatusEnum": "erp.hr.choices.SubmissionStatus",
    "LaborRegistryProviderEnum": "erp.hr.choices.RegistryProvider",
    "LaborErganiEnvironmentEnum": "erp.hr.choices.ErganiEnvironment",
    # ERP CRM: lead stages and sources, activity kinds, segment targets, RFM labels.
    "CrmLeadStageEnum": "erp.crm.choices.LeadStage",
    "CrmLeadSourceEnum": "erp.crm.choices.LeadSource",
    "CrmActivityKindEnum": "erp.crm.choices.ActivityKind",
    "CrmSegmentTargetEnum": "erp.crm.choices.SegmentTarget",
    "CrmRfmSegmentEnum": "erp.crm.choices.RfmLabel",
    # ERP accounting: its account types and roles, statuses and kinds.
    "AccountingAccountTypeEnum": "erp.accounting.choices.AccountType",
    "AccountingAccountRoleEnum": "erp.accounting.choices.AccountRole",
    "AccountingFiscalYearStatusEnum": "erp.accounting.choices.FiscalYearStatus",
    "AccountingEntryStatusEnum": "erp.accounting.choices.EntryStatus",
    "AccountingEntryKindEnum": "erp.accounting.choices.EntryKind",
    "AccountingPartnerTypeEnum": "erp.accounting.choices.PartnerType",
    "AccountingSourceTypeEnum": "erp.accounting.choices.SourceType",
    "AccountingAgeingBucketEnum": "erp.accounting.selectors.BUCKETS",
    # Theme page builder: a layout's status.
    "ThemeLayoutStatusEnum": "theme.builder.models.LayoutStatus",
    # Theme modules.
    "ThemePointsKindEnum": "theme.modules.points.models.PointsKind",
    "ThemePromotionKindEnum": "theme.modules.promotions.models.PromotionKind",
    "ThemeQuoteStatusEnum": "theme.modules.quotes.models.QuoteStatus",
}
# The store's alone: marketplace sync and feeds (they have no theme routes).
_STORE_ENUM_NAME_OVERRIDES = {
    **_SHARED_ENUM_NAME_OVERRIDES,
    "MarketplaceNameEnum": "store.marketplace.providers.MARKETPLACE_NAMES",
    "MarketplaceImportStatusEnum": "store.marketplace.models.ImportStatus",
    "MarketplaceEventStatusEnum": "store.marketplace.models.EventStatus",
    "FeedMarketplaceEnum": "store.feeds.models.Marketplace",
    "FeedStatusEnum": "store.feeds.models.FeedStatus",
}
_THEME_ENUM_NAME_OVERRIDES = dict(_SHARED_ENUM_NAME_OVERRIDES)
_CORE_ENUM_NAME_OVERRIDES = {
    "DebugLevelEnum": "debugtools.api.serializers.LEVEL_NAMES",
    "DebugJsLevelEnum": "debugtools.api.serializers.JS_LEVELS",
}

# --- OpenAPI: the descriptions ----------------------------------------------------------------

# `<id:...>` path ids (common.api.fields.IdPathConverter): a bigint from 1.
ID_PATH_CONVERTER_OVERRIDES = {"id": {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}}
SPECTACULAR_SETTINGS = {
    "TITLE": "Emporion License Portal API",
    "DESCRIPTION": (
        "The License Portal (accounts, licences, sub-clients, webhooks) and the public licence "
        "API used by installed copies. Errors are JSON objects with a `detail` string, a "
        "machine-readable `code` and, for invalid fields, an `errors` object."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_AUTHENTICATION": [],
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SCHEMA_PATH_PREFIX_TRIM": False,
    "PREPROCESSING_HOOKS": ["common.api.schema.only_portal_paths"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "common.api.schema.rate_limit_headers",
    ],
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "PATH_CONVERTER_OVERRIDES": ID_PATH_CONVERTER_OVERRIDES,
    "ENUM_NAME_OVERRIDES": _PORTAL_ENUM_NAME_OVERRIDES,
}
# The ec/v1 OpenAPI description: its own drf-spectacular settings (the portal's stay portal-only).
STORE_SPECTACULAR_SETTINGS: dict[str, Any] = {
    "TITLE": "Emporion Commerce Store API (ec/v1)",
    "DESCRIPTION": (
        "The store's REST API. Errors are `{code, message, data: {status}}`; invalid "
        "parameters answer 400 and are named in `data.params`. Authenticate with the session "
        f"cookie plus the `{NONCE_HEADER}` header (same origin) or with an application "
        "password over HTTP Basic (external clients)."
    ),
    "VERSION": "1.0.0",
    "SCHEMA_PATH_PREFIX": rf"/{REST_ROOT}/ec/v1",
    "SCHEMA_PATH_PREFIX_TRIM": True,
    "SERVERS": [{"url": f"/{REST_ROOT}/ec/v1"}],
    "PATH_CONVERTER_OVERRIDES": ID_PATH_CONVERTER_OVERRIDES,
    "PREPROCESSING_HOOKS": ["store.common.schema.only_store_paths"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "common.api.schema.rate_limit_headers",
    ],
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": _STORE_ENUM_NAME_OVERRIDES,
}

# Each namespace has its own description, with the store's schema class, errors and security
# schemes (store.docs.schema): ec/v1 stays ec/v1 only. GET .../docs/openapi.json of each, for
# manage_options with the store setting developer.api_docs_enabled on, as the store's.
_NAMESPACE_SPECTACULAR_BASE = {
    key: value
    for key, value in STORE_SPECTACULAR_SETTINGS.items()
    if key not in ("TITLE", "DESCRIPTION", "SCHEMA_PATH_PREFIX", "SERVERS", "PREPROCESSING_HOOKS")
}
THEME_SPECTACULAR_SETTINGS = {
    **_NAMESPACE_SPECTACULAR_BASE,
    "TITLE": f"Emporion Commerce Theme API ({THEME_NS}/v1)",
    "DESCRIPTION": (
        "The storefront theme's REST API: storefront reads (public), the wishlist (the "
        "shopper's or the cart session's), the page builder (edit_posts/edit_post), the "
        "modules (each behind its setting: a module that is off answers 404) and the AI tool "
        "endpoint (MCP, application passwords). Errors are `{code, message, data: {status}}` "
        "as in ec/v1 (the MCP endpoint answers JSON-RPC errors)."
    ),
    "SCHEMA_PATH_PREFIX": rf"/{REST_ROOT}/{THEME_NS}/v1",
    "SERVERS": [{"url": f"/{REST_ROOT}/{THEME_NS}/v1"}],
    "PREPROCESSING_HOOKS": ["theme.docs.schema.only_theme_paths"],
    "POSTPROCESSING_HOOKS": [
        *STORE_SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"],
        "theme.docs.schema.add_mcp_operation",
    ],
    "ENUM_NAME_OVERRIDES": _THEME_ENUM_NAME_OVERRIDES,
}
CORE_SPECTACULAR_SETTINGS = {
    **_NAMESPACE_SPECTACULAR_BASE,
    "TITLE": f"Emporion Core API ({CORE_NS}/v1)",
    "DESCRIPTION": (
        "The service's debug tools: recorded log entries, their settings, downloads, "
        "diagnostics and cache resets (manage_options), and a public, rate-limited sink for "
        "client-side log entries. Errors are `{code, message, data: {status}}` as in ec/v1."
    ),
    "SCHEMA_PATH_PREFIX": rf"/{REST_ROOT}/{CORE_NS}/v1",
    "SERVERS": [{"url": f"/{REST_ROOT}/{CORE_NS}/v1"}],
    "PREPROCESSING_HOOKS": ["debugtools.api.schema.only_core_paths"],
    "ENUM_NAME_OVERRIDES": _CORE_ENUM_NAME_OVERRIDES,
}
