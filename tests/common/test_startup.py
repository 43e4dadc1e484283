"""A process that loads the app (a web or Celery worker, a management command) does not load
the libraries only some features use: reportlab (PDFs), xmlschema (feed validation), the
Stripe SDK, jsonschema (the page builder's blocks) and the MCP SDK (the AI tool endpoint).
Each loads with its feature's first use; together they were more than a second of every
process's start-up (a third of it)."""

import ast

import pytest

from tests.common.test_settings_env import _python

FEATURE_LIBRARIES = ["reportlab", "xmlschema", "stripe", "jsonschema", "mcp"]


@pytest.mark.sqlite_only  # a fresh process in a clean environment: the same in every pass
def test_loading_the_app_and_its_urls_leaves_the_feature_libraries_unloaded(tmp_path):
    script = (
        "import sys, django; django.setup();"
        " from django.urls import get_resolver; get_resolver().url_patterns;"
        f" print(repr(sorted(name for name in {FEATURE_LIBRARIES!r} if name in sys.modules)))"
    )
    result = _python(
        ["-c", script],
        {"DJANGO_SETTINGS_MODULE": "config.settings"},
        tmp_path,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert ast.literal_eval(result.stdout.strip().splitlines()[-1]) == []


def test_each_feature_still_finds_its_library():
    """What is loaded late is loaded at all: each feature's entry point imports its library."""
    from common import pdf
    from store.feeds import validation
    from theme.builder import blocks

    assert pdf.font() in {pdf.FONT_NAME, "Helvetica"}  # reportlab
    assert type(validation.load_xsd("skroutz.xsd")).__module__.startswith("xmlschema")
    assert type(blocks.validator("heading")).__module__.startswith("jsonschema")
