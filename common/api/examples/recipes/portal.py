"""The portal's and the public licence API's recipes."""

from __future__ import annotations

import re

from common.api.examples.recipes.shared import PORTAL, demo_password
from common.api.examples.recorder import (
    ACTION,
    CREATE,
    FIRST,
    LAST,
    Recipe,
    Recorder,
    RecordingError,
)

INSTALLED_DOMAIN = "shop.example.com"


def theme_licence(rec: Recorder, *_args) -> str:
    """The reseller's Business licence of the theme (the product with releases and
    components)."""
    if "theme_licence" not in rec.values:
        licences = rec.call_json("reseller", "GET", f"{PORTAL}/licenses")
        rec.values["theme_licence"] = next(
            licence["license_key"]
            for licence in licences
            if licence["product"]["slug"] == "emporion-theme" and licence["tier"] == "business"
        )
    return rec.values["theme_licence"]


def new_licence(rec: Recorder, *, revoked: bool = False) -> int:
    made = rec.create("portal", f"POST {PORTAL}/licenses")
    if revoked:
        rec.call_json("reseller", "DELETE", f"{PORTAL}/licenses/{made['id']}")
    return made["id"]


def tokens(rec: Recorder) -> dict:
    """A fresh log-in of the demo developer (its refresh token is spent by the call)."""
    return rec.call_json(
        "anonymous",
        "POST",
        f"{PORTAL}/auth/login",
        {"email": "developer@example.com", "password": demo_password()},
    )


def registered_email_token(rec: Recorder, kind: str) -> str:
    token = rec.outbox_token(rf"{kind}:\s+(\S+)")
    if token is None:
        raise RecordingError(f"no {kind} token in the e-mails sent")
    return token


def forgot_password(rec: Recorder) -> None:
    rec.call_json(
        "anonymous", "POST", f"{PORTAL}/auth/forgot-password", {"email": REGISTERED_EMAIL}
    )


def paid_renewal(rec: Recorder, *_args) -> dict:
    """A renewal of the reseller's theme licence, paid on the sandbox's checkout page."""
    licences = rec.call_json("reseller", "GET", f"{PORTAL}/licenses")
    theme = next(lic for lic in licences if lic["product"]["slug"] == "emporion-theme")
    renewal = rec.call_json(
        "reseller", "POST", f"{PORTAL}/licenses/bulk-renew", {"license_ids": [theme["id"]]}
    )
    token = renewal["checkout_url"].rstrip("/").rsplit("/", 1)[-1]
    page = rec.client("anonymous").post(f"/pay/sandbox/{token}", {"action": "pay"})
    found = re.search(r'id="transaction-id">([^<]+)<', page.content.decode())
    if found is None:
        raise RecordingError(f"the sandbox checkout page answered {page.status_code}")
    return {"transaction_id": found.group(1), "order_code": renewal["order_code"]}


REGISTERED_EMAIL = "maria.papadopoulou@example.com"

PORTAL_RECIPES = {
    "portal_auth_login_create": Recipe(
        body=lambda rec, _p: {"email": "developer@example.com", "password": demo_password()},
        error=lambda rec, _p: {
            "body": {"email": "developer@example.com", "password": "not-my-password"}
        },
    ),
    "portal_auth_refresh_create": Recipe(
        body=lambda rec, _p: {"refresh_token": tokens(rec)["refresh_token"]},
        error={"body": {"refresh_token": "eyJhbGciOiJIUzI1NiJ9.expired.token"}},
    ),
    "portal_auth_logout_create": Recipe(
        body=lambda rec, _p: {"refresh_token": tokens(rec)["refresh_token"]},
        error={"body": {"refresh_token": "eyJhbGciOiJIUzI1NiJ9.expired.token"}},
    ),
    "portal_auth_register_create": Recipe(
        phase=FIRST,
        body={
            "email": REGISTERED_EMAIL,
            "password": "Aegean-Sunset-42",
            "name": "Maria Papadopoulou",
        },
        error={"body": {"email": "maria@example", "password": "Aegean-Sunset-42", "name": "Maria"}},
    ),
    "portal_auth_verify_email_create": Recipe(
        phase=CREATE + 1,
        body=lambda rec, _p: {"token": registered_email_token(rec, "verify-email")},
        error={"body": {"token": "expired-or-used-token"}},
    ),
    "portal_auth_resend_verification_create": Recipe(body={"email": REGISTERED_EMAIL}),
    "portal_auth_forgot_password_create": Recipe(body={"email": REGISTERED_EMAIL}),
    "portal_auth_reset_password_create": Recipe(
        phase=CREATE + 1,
        before=forgot_password,
        body=lambda rec, _p: {
            "token": registered_email_token(rec, "reset-password"),
            "password": "Olive-Grove-2027",
        },
        error={"body": {"token": "expired-or-used-token", "password": "Olive-Grove-2027"}},
    ),
    "portal_api_keys_create": Recipe(body={"name": "Billing system"}),
    "portal_clients_create": Recipe(
        body={"email": "it@acme-studio.example", "name": "Alex Doe", "company": "Acme Studio"},
        error={"body": {"email": "ops@northwind.example", "name": "Nora Northwind"}},
    ),
    "portal_licenses_create": Recipe(
        body=lambda rec, _p: {
            "product_id": next(
                p["id"]
                for p in rec.call_json("reseller", "GET", f"{PORTAL}/products")
                if p["slug"] == "emporion-theme"
            ),
            "tier": "business",
            "customer_id": next(
                c["id"]
                for c in rec.call_json("reseller", "GET", f"{PORTAL}/clients")
                if c["email"] == "ops@northwind.example"
            ),
        },
    ),
    "portal_licenses_bulk_create": Recipe(
        body=lambda rec, _p: {
            "product_id": next(
                p["id"]
                for p in rec.call_json("reseller", "GET", f"{PORTAL}/products")
                if p["slug"] == "emporion-seo"
            ),
            "count": 3,
            "tier": "starter",
        },
    ),
    "portal_licenses_partial_update": Recipe(body={"tier": "starter"}),
    "portal_licenses_reactivate_create": Recipe(
        params={"license_id": lambda rec, _p: new_licence(rec, revoked=True)},
        error=lambda rec, _p: {"params": {"license_id": new_licence(rec)}},
    ),
    "portal_licenses_permanent_destroy": Recipe(
        params={"license_id": lambda rec, _p: new_licence(rec, revoked=True)},
        error=lambda rec, _p: {"params": {"license_id": new_licence(rec)}},
    ),
    "portal_licenses_bulk_revoke_create": Recipe(
        phase=ACTION,
        body=lambda rec, _p: {"ids": [new_licence(rec), new_licence(rec)]},
    ),
    "portal_licenses_bulk_delete_create": Recipe(
        phase=ACTION,
        body=lambda rec, _p: {
            "ids": [new_licence(rec, revoked=True), new_licence(rec, revoked=True)]
        },
    ),
    "portal_licenses_bulk_renew_create": Recipe(
        body=lambda rec, _p: {
            "license_ids": [
                lic["id"]
                for lic in rec.call_json("reseller", "GET", f"{PORTAL}/licenses")
                if lic["product"]["slug"] == "emporion-theme"
            ][:1]
        },
    ),
    "portal_licenses_bulk_renew_confirm_create": Recipe(
        phase=ACTION,
        body=paid_renewal,
        error=lambda rec, _p: {
            "body": {"transaction_id": "sbx_unknown", "order_code": "RN-0000000000"}
        },
    ),
    "portal_webhooks_create": Recipe(
        body={
            "url": "https://hooks.acme-studio.example/emporion",
            "events": ["license.created", "license.revoked"],
            "description": "Provisioning for Acme Studio",
        },
    ),
    "portal_webhooks_partial_update": Recipe(
        body={"events": ["license.created", "license.activated", "license.revoked"]}
    ),
    "portal_clients_licenses_list": Recipe(
        params={
            "client_id": lambda rec, _p: next(
                c["id"]
                for c in rec.call_json("reseller", "GET", f"{PORTAL}/clients")
                if c["email"] == "ops@northwind.example"
            )
        }
    ),
    "portal_webhooks_test_create": Recipe(phase=ACTION - 2),
    "portal_webhooks_deliveries_list": Recipe(phase=ACTION - 1, query={"limit": 10}),
    "portal_webhooks_deliveries_redeliver_create": Recipe(phase=ACTION),
    # The public licence API, as an installed copy calls it.
    "licenses_activate_create": Recipe(
        phase=FIRST,
        body=lambda rec, _p: {
            "license_key": theme_licence(rec),
            "domain": INSTALLED_DOMAIN,
            "product": "emporion-theme",
        },
    ),
    "licenses_verify_create": Recipe(
        body=lambda rec, _p: {"license_key": theme_licence(rec), "domain": INSTALLED_DOMAIN}
    ),
    "licenses_deactivate_create": Recipe(
        phase=LAST,
        body=lambda rec, _p: {"license_key": theme_licence(rec), "domain": INSTALLED_DOMAIN},
    ),
    "updates_check_create": Recipe(
        body=lambda rec, _p: {"license_key": theme_licence(rec), "version": "1.0.0"}
    ),
    "updates_info_create": Recipe(
        body=lambda rec, _p: {"license_key": theme_licence(rec), "version": "1.0.0"}
    ),
    "updates_download_create": Recipe(
        body=lambda rec, _p: {"license_key": theme_licence(rec), "domain": INSTALLED_DOMAIN}
    ),
    "downloads_retrieve": Recipe(
        params={
            "token": lambda rec, _p: (
                rec.value("portal", "updates_download_create", "url").rstrip("/").rsplit("/", 1)[-1]
            )
        }
    ),
    "components_list_create": Recipe(body=lambda rec, _p: {"license_key": theme_licence(rec)}),
    "components_available_create": Recipe(body=lambda rec, _p: {"license_key": theme_licence(rec)}),
    "components_check_create": Recipe(
        body=lambda rec, _p: {
            "license_key": theme_licence(rec),
            "components": {"slider": "1.1.0", "b2b-pricing": "1.0.1"},
        }
    ),
    "components_download_create": Recipe(
        body=lambda rec, _p: {
            "license_key": theme_licence(rec),
            "domain": INSTALLED_DOMAIN,
            "slug": "slider",
        }
    ),
}
