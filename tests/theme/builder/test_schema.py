"""The page builder's operations are described (drf-spectacular, the store's schema class)
without warnings or errors, with every status they answer (as tests/theme/storefront/
test_schema.py for the storefront's)."""

import pytest
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.plumbing import _load_enum_name_overrides
from drf_spectacular.settings import patched_settings

PREFIX = f"/{settings.REST_ROOT}/{settings.THEME_NS}/v1/"


def only_builder_paths(endpoints):
    return [
        endpoint
        for endpoint in endpoints
        if endpoint[0].startswith(PREFIX) and endpoint[3].cls.__module__.startswith("theme.builder")
    ]


def generate() -> dict:
    conf = {
        **settings.STORE_SPECTACULAR_SETTINGS,
        "TITLE": "Theme page builder",
        "SCHEMA_PATH_PREFIX": PREFIX.rstrip("/"),
        "SERVERS": [{"url": PREFIX.rstrip("/")}],
        "PREPROCESSING_HOOKS": [f"{__name__}.only_builder_paths"],
    }
    _load_enum_name_overrides.cache_clear()
    try:
        with patched_settings(conf):
            return SchemaGenerator().get_schema(request=None, public=True)
    finally:
        _load_enum_name_overrides.cache_clear()


@pytest.fixture(scope="module")
def described():
    return generate()


def test_no_warnings(capsys):
    generate()
    assert "warning" not in capsys.readouterr().err.lower()


@pytest.mark.parametrize(
    ("path", "method", "statuses"),
    [
        ("/builder/layout/{page_id}", "get", {"200", "404"}),
        ("/builder/layout/{page_id}", "post", {"200", "201", "400", "401", "403", "409", "422"}),
        ("/builder/preview/{page_id}", "get", {"200", "401", "403", "404"}),
        ("/builder/preview/{page_id}", "post", {"200", "400", "401", "403"}),
        ("/builder/blocks", "get", {"200", "401", "403"}),
        ("/builder/render", "post", {"200", "400", "401", "403"}),
        ("/builder/templates", "get", {"200", "400", "401", "403"}),
        ("/builder/templates", "post", {"201", "400", "401", "403"}),
        ("/builder/templates/{template_id}", "get", {"200", "401", "403", "404"}),
        ("/builder/templates/{template_id}", "put", {"200", "400", "403", "404", "409"}),
        ("/builder/templates/{template_id}", "patch", {"200", "400", "403", "404", "409"}),
        ("/builder/templates/{template_id}", "delete", {"200", "403", "404"}),
        ("/presets", "get", {"200", "400"}),
        ("/presets/{category}/{slug}", "get", {"200", "404"}),
    ],
)
def test_each_operation_documents_its_statuses(described, path, method, statuses):
    operation = described["paths"][path][method]
    assert statuses <= set(operation["responses"]), sorted(operation["responses"])
    assert operation["tags"] == ["Theme page builder"]


def test_the_block_tree_is_described(described):
    body = described["paths"]["/builder/render"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    ref = schema["$ref"].rsplit("/", 1)[-1]
    blocks = described["components"]["schemas"][ref]["properties"]["blocks"]
    assert blocks["type"] == "array"
    assert blocks["items"]["required"] == ["type"]
