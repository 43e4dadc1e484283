"""The storefront operations are described (drf-spectacular, the store's schema class) without
warnings or errors, with every status they answer (the theme namespace's own description
is tested beside it)."""

import pytest
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.plumbing import _load_enum_name_overrides
from drf_spectacular.settings import patched_settings

PREFIX = f"/{settings.REST_ROOT}/{settings.THEME_NS}/v1/"


def only_storefront_paths(endpoints):
    return [
        endpoint
        for endpoint in endpoints
        if endpoint[0].startswith(PREFIX)
        and endpoint[3].cls.__module__.startswith("theme.storefront")
    ]


def generate() -> dict:
    conf = {
        **settings.STORE_SPECTACULAR_SETTINGS,
        "TITLE": "Theme storefront",
        "SCHEMA_PATH_PREFIX": PREFIX.rstrip("/"),
        "SERVERS": [{"url": PREFIX.rstrip("/")}],
        "PREPROCESSING_HOOKS": [f"{__name__}.only_storefront_paths"],
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
        ("/settings", "get", {"200"}),
        ("/settings", "patch", {"200", "400", "401", "403"}),
        ("/settings", "put", {"200", "400", "401", "403"}),
        ("/menus/{location}", "get", {"200", "404"}),
        ("/search", "get", {"200", "400"}),
        ("/cart/totals", "get", {"200"}),
        ("/wishlist", "post", {"200", "201", "400", "404"}),
        ("/wishlist/{product_id}", "delete", {"200", "404"}),
        ("/validate-vat", "post", {"200", "400", "429", "502", "503"}),
        ("/validate-vat", "get", {"200", "400", "429", "502", "503"}),
        ("/newsletter/subscribe", "post", {"202", "400", "429"}),
        ("/newsletter/confirm/{token}", "get", {"200", "400"}),
        ("/icons", "get", {"200", "304"}),
    ],
)
def test_each_operation_documents_its_statuses(path, method, statuses, capsys):
    schema = generate()
    assert "warning" not in capsys.readouterr().err.lower()
    operation = schema["paths"][path][method]
    assert statuses <= set(operation["responses"]), sorted(operation["responses"])
