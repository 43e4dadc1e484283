import pytest
from openapi_spec_validator import validate

pytestmark = pytest.mark.django_db

BODY_METHODS = {"post", "put", "patch"}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from rest_framework.test import APIClient

    with django_db_blocker.unblock():
        response = APIClient().get("/api/v1/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in {"get", "post", "put", "patch", "delete"}:
                yield path, method, operation


def test_schema_is_valid_openapi(schema):
    validate(schema)
    assert schema["openapi"].startswith("3.")


def test_schema_covers_the_portal_auth_and_key_routes(schema):
    assert {
        "/api/v1/portal/auth/login",
        "/api/v1/portal/auth/refresh",
        "/api/v1/portal/auth/logout",
        "/api/v1/portal/auth/me",
        "/api/v1/portal/auth/register",
        "/api/v1/portal/auth/verify-email",
        "/api/v1/portal/auth/resend-verification",
        "/api/v1/portal/auth/forgot-password",
        "/api/v1/portal/auth/reset-password",
        "/api/v1/portal/api-keys",
        "/api/v1/portal/api-keys/{key_id}",
    } <= set(schema["paths"])
    assert all(path.startswith("/api/v1/") for path in schema["paths"])


def test_every_operation_declares_its_request_answer_and_errors(schema):
    for path, method, operation in operations(schema):
        where = f"{method.upper()} {path}"
        assert operation.get("summary"), where
        statuses = set(operation["responses"])
        success = [s for s in statuses if s.startswith("2")]
        assert success, f"{where}: no success answer"
        for status in success:
            if status != "204":
                assert operation["responses"][status].get("content"), f"{where} {status}: no body"
        errors = [s for s in statuses if s.startswith("4")]
        assert errors, f"{where}: no error answers"
        for status in errors:
            content = operation["responses"][status]["content"]["application/json"]
            assert content["schema"] == {"$ref": "#/components/schemas/Error"}, where
        if method in BODY_METHODS and "requestBody" in operation:
            assert {"400", "415", "422"} <= statuses, where


def test_public_endpoints_need_no_credentials_and_others_do(schema):
    login = schema["paths"]["/api/v1/portal/auth/login"]["post"]
    assert login.get("security") in (None, [], [{}])
    me = schema["paths"]["/api/v1/portal/auth/me"]["get"]
    assert me["security"] == [{"bearerAuth": []}]
    assert "401" in me["responses"]


def test_swagger_ui_renders_from_local_assets(client):
    response = client.get("/api/v1/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    assert "cdn.jsdelivr.net" not in html
    assert "/api/v1/schema/" in html
