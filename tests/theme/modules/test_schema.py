"""The module operations are described (drf-spectacular, the store's schema class) without
warnings or errors, with every status they answer: 404 everywhere (a module that is off)."""

import pytest
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.plumbing import _load_enum_name_overrides
from drf_spectacular.settings import patched_settings

PREFIX = f"/{settings.REST_ROOT}/{settings.THEME_NS}/v1/"


def only_module_paths(endpoints):
    return [
        endpoint
        for endpoint in endpoints
        if endpoint[0].startswith(PREFIX) and endpoint[3].cls.__module__.startswith("theme.modules")
    ]


@pytest.fixture(scope="module")
def schema():
    conf = {
        **settings.STORE_SPECTACULAR_SETTINGS,
        "TITLE": "Theme modules",
        "SCHEMA_PATH_PREFIX": PREFIX.rstrip("/"),
        "SERVERS": [{"url": PREFIX.rstrip("/")}],
        "PREPROCESSING_HOOKS": [f"{__name__}.only_module_paths"],
    }
    _load_enum_name_overrides.cache_clear()
    try:
        with patched_settings(conf):
            return SchemaGenerator().get_schema(request=None, public=True)
    finally:
        _load_enum_name_overrides.cache_clear()


@pytest.mark.parametrize(
    ("path", "method", "statuses"),
    [
        ("/recently-viewed", "get", {"200", "404"}),
        ("/recently-viewed", "post", {"201", "400", "404", "429"}),
        ("/recently-viewed", "delete", {"200", "404"}),
        ("/bundles", "get", {"200", "400", "404"}),
        ("/points/balance", "get", {"200", "401", "404"}),
        ("/points/transactions", "get", {"200", "400", "401", "404"}),
        ("/promotions", "get", {"200", "404"}),
        ("/promotions/cart", "get", {"200", "404"}),
        ("/quotes", "get", {"200", "400", "401", "403", "404"}),
        ("/quotes", "post", {"201", "400", "404", "429"}),
        ("/products/names", "get", {"200", "400", "404"}),
        ("/labels/product/{product_id}", "get", {"200", "404"}),
        ("/b2b/groups", "get", {"200", "401", "403", "404"}),
        ("/b2b/groups", "post", {"201", "400", "401", "403", "404", "409"}),
        ("/b2b/groups/{group_id}", "patch", {"200", "400", "404", "409"}),
        ("/b2b/groups/{group_id}", "delete", {"200", "404"}),
        ("/b2b/my-group", "get", {"200", "401", "404"}),
        ("/recover-cart/{token}", "get", {"200", "400", "404", "410"}),
    ],
)
def test_each_operation_documents_its_statuses(schema, path, method, statuses):
    operation = schema["paths"][path][method]
    assert statuses <= set(operation["responses"]), sorted(operation["responses"])


def test_no_warnings(capsys):
    conf = {
        **settings.STORE_SPECTACULAR_SETTINGS,
        "SCHEMA_PATH_PREFIX": PREFIX.rstrip("/"),
        "PREPROCESSING_HOOKS": [f"{__name__}.only_module_paths"],
    }
    _load_enum_name_overrides.cache_clear()
    try:
        with patched_settings(conf):
            SchemaGenerator().get_schema(request=None, public=True)
    finally:
        _load_enum_name_overrides.cache_clear()
    err = capsys.readouterr().err.lower()
    assert "warning" not in err, err[:2000]
    assert "error" not in err, err[:2000]
