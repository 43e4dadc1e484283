"""The ec/v1 OpenAPI description and its playground."""

import pytest
from django.test import Client
from openapi_spec_validator import validate

from store.docs.schema import generate, store_schema_document
from store.settings import services as settings_services
from tests.fixtures.store import API, error

pytestmark = pytest.mark.django_db

DOCS = f"{API}/docs/openapi.json"
BODY_METHODS = {"post", "put", "patch"}
# Cart and coupons.
CART_AND_COUPON_PATHS = {
    "/cart",
    "/cart/items",
    "/cart/items/{item_id}",
    "/cart/clear",
    "/cart/summary",
    "/cart/shipping-address",
    "/cart/shipping-methods",
    "/cart/shipping-method",
    "/coupons/apply",
    "/coupons/remove",
    "/coupons/applied",
    "/coupons/validate",
    "/admin/coupons",
    "/admin/coupons/{coupon_id}",
}
# The Checkout group.
CHECKOUT_PATHS = {
    "/checkout",
    "/checkout/settings",
    "/checkout/payment-methods",
    "/checkout/check-email",
    "/checkout/login",
    "/checkout/create-account",
    "/checkout/{checkout_id}",
    "/checkout/{checkout_id}/validate",
    "/checkout/{checkout_id}/complete",
}
# The Emails group.
EMAIL_PATHS = {
    "/emails/templates",
    "/emails/templates/{email_type}",
    "/emails/templates/{email_type}/preview",
    "/emails/test",
    "/emails/resend/{order_id}",
    "/emails/settings",
}

# Customers and my account.
# The Courier group and an order's courier routes.
COURIER_PATHS = {
    "/courier/{provider}/test-connection",
    "/courier/{provider}/create-voucher",
    "/courier/{provider}/label/{voucher}",
    "/courier/{provider}/cancel/{voucher}",
    "/courier/{provider}/track/{voucher}",
    "/courier/pickup-list",
    "/courier/settings",
    "/orders/{order_id}/courier/create-voucher",
    "/orders/{order_id}/courier/label/{shipment_id}",
    "/orders/{order_id}/courier/track/{shipment_id}",
    "/orders/{order_id}/courier/cancel/{shipment_id}",
}
CUSTOMER_PATHS = {
    "/customers",
    "/customers/{customer_id}",
    "/customers/stats",
    "/customers/find-by-email",
    "/customers-with-stats",
    "/customers/{customer_id}/orders",
    "/customers/{customer_id}/stats",
    "/customers/{customer_id}/profile",
    "/customers/{customer_id}/top-products",
    "/customers/{customer_id}/spending-history",
    "/customers/{customer_id}/addresses",
    "/addresses/{address_id}",
    "/account",
    "/account/addresses",
    "/account/addresses/{address_type}",
    "/account/details",
    "/account/password",
}

# Payments and gateway config.
PAYMENT_PATHS = {
    "/payment/methods",
    "/payment/gateways",
    "/payment/gateways/{gateway_id}",
    "/payment/refund/{order_id}",
    "/webhooks/payment/{gateway_id}",
    "/payment/callback/{gateway_id}",
    "/payment/stripe/intent",
    "/payment/paypal/orders",
    "/payment/paypal/orders/{paypal_order_id}/capture",
    "/payment/bank-redirect/{order_id}",
    "/payment/gateway-config",
    "/payment/gateway-config/{config_id}",
    "/payment/gateway-config/{config_id}/test",
}

# Managers (RBAC) and the dashboard.
MANAGERS_AND_DASHBOARD_PATHS = {
    "/managers",
    "/managers/{user_id}",
    "/managers/roles",
    "/managers/roles/{slug}",
    "/managers/capabilities",
    "/dashboard/stats",
}
# Tax.
TAX_PATHS = {
    "/tax/classes",
    "/tax/classes/{class_ref}",
    "/tax/rates",
    "/tax/rates/{rate_id}",
    "/tax/rates/{rate_id}/toggle",
    "/tax/calculate",
    "/tax/stats",
    "/tax/eu-vat-rates",
    "/tax/countries",
}

# Shipping zones, methods, the calculation.
# The ERP (erp/), mounted beside the store.
ERP_PATHS = {
    "/erp/status",
    "/erp/activate",
    "/erp/deactivate",
    "/erp/users",
    "/erp/users/{user_id}",
    "/erp/roles",
    "/erp/roles/{slug}",
    "/erp/migrate-data/start",
    "/erp/migrate-data/status",
    "/erp/migrate-data/cancel",
    "/erp/migrate-data/{job_id}",
    "/erp/inventory/backfill/start",
    "/erp/inventory/backfill/status",
    "/erp/inventory/backfill/cancel",
    "/erp/onboarding/checklist",
    "/erp/portal-settings",
}

# The ERP's inventory (erp/inventory), on the store's ledger.
ERP_INVENTORY_PATHS = {
    "/warehouses",
    "/warehouses/{warehouse_id}",
    "/warehouses/{warehouse_id}/set-default",
    "/warehouses/{warehouse_id}/activate",
    "/warehouses/{warehouse_id}/deactivate",
    "/stock/levels",
    "/stock/levels/{level_id}",
    "/stock/adjust",
    "/stock/transfer",
    "/stock/stocktake",
    "/stock/movements",
    "/stock/stats",
}

# ERP invoicing.
INVOICING_PATHS = {
    "/invoices",
    "/invoices/{invoice_id}",
    "/invoices/{invoice_id}/issue",
    "/invoices/{invoice_id}/cancel",
    "/invoices/{invoice_id}/transmit",
    "/invoices/{invoice_id}/cancel-transmission",
    "/invoices/{invoice_id}/pdf",
    "/invoices/from-order/{order_id}",
    "/invoices/settings",
    "/invoices/reference-data",
    "/invoices/transmission/test",
    "/invoice-series",
    "/invoice-series/{series_id}",
}

# ERP purchasing.
PURCHASING_PATHS = {
    "/suppliers",
    "/suppliers/{supplier_id}",
    "/suppliers/{supplier_id}/prices",
    "/supplier-prices",
    "/supplier-prices/{price_id}",
    "/purchase-orders",
    "/purchase-orders/auto-reorder",
    "/purchase-orders/{order_id}",
    "/purchase-orders/{order_id}/send",
    "/purchase-orders/{order_id}/receive",
    "/purchase-orders/{order_id}/cancel",
    "/purchase-orders/{order_id}/pdf",
    "/goods-received",
    "/goods-received/{note_id}",
}

CRM_PATHS = {
    "/contacts",
    "/contacts/import-customers",
    "/contacts/{contact_id}",
    "/leads",
    "/leads/pipeline",
    "/leads/{lead_id}",
    "/leads/{lead_id}/move-stage",
    "/leads/{lead_id}/convert",
    "/activities",
    "/activities/upcoming",
    "/activities/overdue",
    "/activities/{activity_id}",
    "/crm/dashboard",
    "/crm/segments",
    "/crm/segments/{segment_id}",
    "/crm/segments/{segment_id}/members",
    "/crm/rfm",
}

# Store webhooks (integrations.store_webhooks).
STORE_WEBHOOK_PATHS = {
    "/webhooks",
    "/webhooks/{webhook_id}",
    "/webhooks/{webhook_id}/test",
    "/webhooks/{webhook_id}/rotate-secret",
    "/webhooks/{webhook_id}/deliveries",
    "/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver",
}

# ERP accounting.
ACCOUNTING_PATHS = {
    "/accounts",
    "/accounts/tree",
    "/accounts/{account_id}",
    "/fiscal-years",
    "/fiscal-years/{year_id}",
    "/fiscal-years/{year_id}/close",
    "/journal-entries",
    "/journal-entries/{entry_id}",
    "/journal-entries/{entry_id}/post",
    "/journal-entries/{entry_id}/reverse",
    "/reports/trial-balance",
    "/reports/profit-loss",
    "/reports/balance-sheet",
    "/reports/vat-return",
    "/reports/accounts-receivable",
    "/reports/accounts-payable",
}

# ERP HR and the labor registry.
HR_PATHS = {
    "/departments",
    "/departments/{department_id}",
    "/employees",
    "/employees/{employee_id}",
    "/employees/{employee_id}/leave-balances",
    "/leave-types",
    "/leave-types/{leave_type_id}",
    "/leave-requests",
    "/leave-requests/{request_id}",
    "/leave-requests/{request_id}/approve",
    "/leave-requests/{request_id}/reject",
    "/leave-requests/{request_id}/cancel",
    "/time-entries",
    "/time-entries/{entry_id}",
    "/employee-documents",
    "/employee-documents/{document_id}",
    "/employee-documents/{document_id}/download",
    "/hr/dashboard",
    "/hr/who-is-out",
    "/hr/me",
    "/hr/me/leave",
    "/hr/me/time-entries",
    "/hr/me/documents",
    "/hr/me/documents/{document_id}/download",
    "/labor-registry/settings",
    "/labor-registry/test-connection",
    "/labor-registry/submissions",
    "/labor-registry/submissions/{submission_id}",
    "/labor-registry/submissions/{submission_id}/retry",
}

SHIPPING_PATHS = {
    "/shipping/zones",
    "/shipping/zones/{zone_id}",
    "/shipping/zones/reorder",
    "/shipping/zones/{zone_id}/methods",
    "/shipping/methods/{method_id}",
    "/shipping/calculate",
    "/shipping/countries",
    "/shipping/stats",
    "/shipping/method-types",
}

# Marketplace sync (store.marketplace).
MARKETPLACE_PATHS = {
    "/marketplace/webhook/{marketplace}",
    "/marketplace/orders",
    "/marketplace/orders/{order_id}",
    "/marketplace/orders/{order_id}/acknowledge",
    "/marketplace/orders/{order_id}/reject",
    "/marketplace/orders/{order_id}/ship",
    "/marketplace/orders/{order_id}/import",
    "/marketplace/settings",
}

# Marketplace feeds and the category mapping (store.feeds).
FEED_PATHS = {
    "/marketplace/feeds",
    "/marketplace/feeds/{marketplace}",
    "/marketplace/feeds/{marketplace}/generate",
    "/marketplace/feeds/{marketplace}/rotate-token",
    "/marketplace/feeds/{marketplace}/skipped",
    "/marketplace/feeds/{marketplace}/feed.xml",
    "/marketplace/feeds/{marketplace}/feed.xml.gz",
    "/marketplace/categories/mapping/{marketplace}",
}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return store_schema_document()


def enable(**values):
    settings_services.settings_update(section="developer", values=values)


def test_403_without_manage_options(anon, manager_client, customer_client):
    enable(api_docs_enabled=True)
    for client in (anon, customer_client, manager_client):  # spec: 403, logged in or not
        error(client.get(DOCS), 403, "insufficient_capability")


def test_403_without_manage_options_also_while_docs_are_off(anon, manager_client):
    error(anon.get(DOCS), 403, "insufficient_capability")
    error(manager_client.get(DOCS), 403, "insufficient_capability")


def test_403_while_api_docs_are_off(admin_client_api):
    error(admin_client_api.get(DOCS), 403, "api_docs_disabled")


def test_the_description_for_an_administrator(admin_client_api):
    enable(api_docs_enabled=True)
    response = admin_client_api.get(DOCS)
    assert response.status_code == 200
    body = response.json()
    validate(body)
    assert body["openapi"].startswith("3.")
    assert body["servers"] == [{"url": "/rest/ec/v1"}]


def test_the_description_covers_ec_v1_only(schema):
    assert (
        {
            "/products",
            "/products/{product_id}",
            "/products/slug/{slug}",
            "/products/lookup",
            "/products/{product_id}/duplicate",
            "/products/facets",
            "/search",
            "/products/{product_id}/variants",
            "/products/{product_id}/variants/reorder",
            "/variants/{variant_id}",
            "/categories",
            "/categories/tree",
            "/categories/bulk",
            "/categories/{category_id}",
            "/attributes",
            "/attributes/{attribute_id}",
            "/attributes-with-terms",
            "/attributes/{attribute_id}/terms",
            "/attributes/terms/{term_id}",
            "/brands",
            "/brands/{brand_id}",
            "/brands/search",
            "/products/{product_id}/reviews",
            "/products/{product_id}/rating",
            "/reviews",
            "/reviews/{review_id}",
            "/reviews/{review_id}/helpful",
            "/settings",
            "/settings/{section}",
            "/settings/{section}/reset",
            "/settings/options/currencies",
            "/settings/options/countries",
            "/media",
            "/media/{media_id}",
            "/auth/nonce",
            # Orders
            "/orders",
            "/orders/{order_id}",
            "/orders/{order_id}/status",
            "/orders/{order_id}/payment-status",
            "/orders/{order_id}/fulfillment-status",
            "/orders/bulk",
            "/orders/stats",
            "/orders/statuses",
            "/orders/{order_id}/items",
            "/orders/{order_id}/items/{item_id}",
            "/orders/{order_id}/payments",
            "/payments/{payment_id}",
            "/orders/{order_id}/shipments",
            "/shipments/{shipment_id}",
            "/account/orders",
            "/account/orders/{order_id}",
            "/order-received/{order_id}",
        }
        | CART_AND_COUPON_PATHS
        | CHECKOUT_PATHS
        | CUSTOMER_PATHS
        | COURIER_PATHS
        | EMAIL_PATHS
        | MANAGERS_AND_DASHBOARD_PATHS
        | SHIPPING_PATHS
        | ERP_PATHS
        | ERP_INVENTORY_PATHS
        | INVOICING_PATHS
        | PURCHASING_PATHS
        | CRM_PATHS
        | STORE_WEBHOOK_PATHS
        | ACCOUNTING_PATHS
        | HR_PATHS
        | PAYMENT_PATHS
        | TAX_PATHS
        | MARKETPLACE_PATHS
        | FEED_PATHS
        == set(schema["paths"])
    )
    assert not any(path.startswith("/docs") for path in schema["paths"])


def test_the_portal_description_stays_portal_only(client):
    body = client.get("/api/v1/schema/?format=json").json()
    assert all(path.startswith("/api/v1/") for path in body["paths"])
    assert "StoreError" not in body["components"]["schemas"]


def test_every_operation_declares_its_answers_and_errors(schema):
    assert_well_described(schema)


def assert_well_described(schema, *, skip=frozenset()):
    """Every operation (but the `skip` paths) has a summary, a described success body, 401 and
    403, the store error body for each 4xx, 404 where the path names something, and 400/415
    where it takes a body (the theme and core descriptions are held to the same)."""
    for path, item in schema["paths"].items():
        if path in skip:
            continue
        for method, operation in item.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            where = f"{method.upper()} {path}"
            assert operation.get("summary"), where
            statuses = set(operation["responses"])
            success = [s for s in statuses if s.startswith("2")]
            assert success, where
            for status in success:
                if status != "204":
                    assert operation["responses"][status].get("content"), where
            assert {"401", "403"} <= statuses, where
            for status in (s for s in statuses if s[0] == "4"):
                content = operation["responses"][status]["content"]["application/json"]
                assert content["schema"] == {"$ref": "#/components/schemas/StoreError"}, where
            if "{" in path:
                assert "404" in statuses, where
            if method in BODY_METHODS and "requestBody" in operation:
                assert {"400", "415"} <= statuses, where


def test_public_operations_need_no_credentials(schema):
    products = schema["paths"]["/products"]
    assert {} in products["get"]["security"]
    assert {} not in products["post"]["security"]
    assert {"sessionCookie": [], "restNonce": []} in products["post"]["security"]
    assert {"appPasswordAuth": []} in products["post"]["security"]


def test_the_list_documents_every_query_parameter(schema):
    names = {p["name"] for p in schema["paths"]["/products"]["get"]["parameters"]}
    assert names >= {
        "page",
        "per_page",
        "q",
        "search",
        "status",
        "type",
        "category",
        "category_id",
        "brand_id",
        "brand_ids",
        "min_price",
        "max_price",
        "on_sale",
        "min_rating",
        "stock_status",
        "attr_{slug}",
        "filter_logic",
        "orderby",
        "order",
    }


def test_the_schema_generates_without_warnings(capsys):
    from drf_spectacular.drainage import GENERATOR_STATS

    GENERATOR_STATS.reset()
    generate()
    assert not GENERATOR_STATS._warn_cache, GENERATOR_STATS._warn_cache
    assert not GENERATOR_STATS._error_cache, GENERATOR_STATS._error_cache


def test_the_playground_needs_both_settings_and_an_admin_session(admin_user, manager):
    browser = Client()
    browser.force_login(admin_user)
    path = f"{API}/docs/playground"
    error(browser.get(path), 403, "api_docs_disabled")
    enable(api_docs_enabled=True)
    error(browser.get(path), 403, "api_playground_disabled")
    enable(api_playground_enabled=True)
    response = browser.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    assert f"{API}/docs/openapi.json" in html
    assert "X-Platform-Nonce" in html
    assert "cdn.jsdelivr.net" not in html
    nonce = browser.get(f"{API}/auth/nonce").json()["nonce"]
    assert nonce in html
    # The page's requests (cookie + nonce) may read the description.
    assert browser.get(f"{API}/docs/openapi.json", HTTP_X_PLATFORM_NONCE=nonce).status_code == 200
    manager_browser = Client()
    manager_browser.force_login(manager)
    error(manager_browser.get(path), 403, "insufficient_capability")
    error(Client().get(path), 403, "insufficient_capability")


def test_the_email_operations(schema):
    paths = schema["paths"]
    assert set(paths["/emails/templates/{email_type}"]) >= {"get", "patch", "put", "delete"}
    assert set(paths["/emails/templates/{email_type}/preview"]) >= {"get", "post"}
    assert set(paths["/emails/settings"]) >= {"get", "patch", "put"}
    assert "429" in paths["/emails/test"]["post"]["responses"]
    assert "404" in paths["/emails/test"]["post"]["responses"]  # an unknown order_id
    assert "409" in paths["/emails/resend/{order_id}"]["post"]["responses"]
    parameter = paths["/emails/templates/{email_type}"]["get"]["parameters"][0]
    assert parameter["name"] == "email_type"
    assert "order_confirmation" in parameter["schema"]["enum"]


def test_the_vat_number_and_restock_fields(schema):
    """The VAT number and the reverse charge in the cart, checkout and
    order bodies; the refund's restock of some lines."""
    shapes = schema["components"]["schemas"]
    for name in ("CartSummary", "Cart", "Checkout", "Order", "CustomerOrder"):
        assert {"vat_number", "reverse_charge"} <= set(shapes[name]["properties"]), name
    assert "vat_number" in shapes["OrderCreateRequest"]["properties"]
    assert "restocked" in shapes["OrderItem"]["properties"]
    assert "items" in shapes["RefundWriteRequest"]["properties"]
    assert "restocked_items" in shapes["Refund"]["properties"]
    refund = schema["paths"]["/payment/refund/{order_id}"]["post"]["responses"]
    assert {"400", "409"} <= set(refund)


# --- Answers as described -------------------------------------------------------------------------


def _closed(schema):
    """`schema` with every object that lists its properties closed to others: an answer with
    a field the description does not name fails, as one missing a required field does."""
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {key: _closed(value) for key, value in schema.items()}
    if "properties" in closed and "additionalProperties" not in closed:
        closed["additionalProperties"] = False
    return closed


def assert_answer_described(document, path: str, method: str, response) -> None:
    """A real answer validates against the schema `document` gives its path, method and status
    (OpenAPI 3.0 rules, the description's own components, no undescribed field)."""
    from openapi_schema_validator import OAS30ReadValidator

    operation = document["paths"][path][method]
    described = operation["responses"].get(str(response.status_code))
    assert described is not None, f"{method.upper()} {path}: {response.status_code} undescribed"
    schema = described["content"]["application/json"]["schema"]
    validator = OAS30ReadValidator(_closed({**schema, "components": document["components"]}))
    problems = [
        f"{'/'.join(map(str, problem.absolute_path)) or '(body)'}: {problem.validator} "
        f"{str(problem.validator_value)[:100]}, got {str(problem.instance)[:100]}"
        for problem in validator.iter_errors(response.json())
    ]
    assert not problems, (f"{method.upper()} {path}", problems)


def test_the_media_list_answers_as_described(schema, manager_client):
    from tests.store.media.factories import media_row

    media_row(title="Red")
    media_row(title="Blue")
    response = manager_client.get(f"{API}/media", {"per_page": 1})
    assert response.status_code == 200
    assert set(response.json()) == {"data", "meta"}
    assert_answer_described(schema, "/media", "get", response)
    response = manager_client.get(f"{API}/media/{response.json()['data'][0]['id']}")
    assert_answer_described(schema, "/media/{media_id}", "get", response)
    assert_answer_described(schema, "/media", "get", manager_client.get(f"{API}/media?page=x"))
