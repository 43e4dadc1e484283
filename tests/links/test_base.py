"""common.links: the one place absolute links are built, and the check on FRONTEND_URL."""

from __future__ import annotations

import pytest
from django.core.checks import Error
from django.core.checks.registry import registry

from common.checks import frontend_url_is_a_base
from common.links import absolute_url, base_url_problem, site_url

pytestmark = pytest.mark.django_db


def test_a_path_goes_on_frontend_url_with_its_query():
    assert site_url() == "http://shop.test:8123"
    assert absolute_url("/order-received/7?key=k") == "http://shop.test:8123/order-received/7?key=k"
    assert absolute_url("verify-email?token=t") == "http://shop.test:8123/verify-email?token=t"
    assert absolute_url("/") == "http://shop.test:8123/"


def test_a_path_prefix_of_frontend_url_is_kept(settings):
    settings.FRONTEND_URL = "https://example.com/shop/"
    assert site_url() == "https://example.com/shop"
    assert absolute_url("/media/a.jpg") == "https://example.com/shop/media/a.jpg"


@pytest.mark.parametrize(
    "url", ["https://cdn.example/a.jpg", "//cdn.example/a.jpg", "http://other.example:81/x?y=1"]
)
def test_a_url_with_its_own_host_is_kept(url):
    assert absolute_url(url) == url


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("shop.example.com", "it does not start with http:// or https://"),
        ("ftp://shop.example.com", "it does not start with http:// or https://"),
        ("http://", "it names no host"),
        ("http://shop.example.com:port", "it is not a URL"),
        ("http://shop.example.com:0", "its port is 0"),
        ("https://shop.example.com/?a=1", "it has a query or a fragment"),
        ("https://shop.example.com/#top", "it has a query or a fragment"),
    ],
)
def test_what_cannot_start_a_link(url, problem):
    assert base_url_problem(url).startswith(problem)


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8000", "https://shop.example.com", "https://example.com/shop"]
)
def test_what_can_start_a_link(url):
    assert base_url_problem(url) == ""


def test_a_frontend_url_that_cannot_start_a_link_stops_every_command(settings):
    """The check is not a deploy check: runserver and migrate refuse to start too."""
    assert frontend_url_is_a_base in registry.get_checks(include_deployment_checks=False)
    settings.FRONTEND_URL = "shop.example.com"
    [found] = frontend_url_is_a_base(None)
    assert isinstance(found, Error)
    assert found.id == "common.E005"
    assert "shop.example.com" in found.msg
    settings.FRONTEND_URL = "http://127.0.0.1:8123"
    assert frontend_url_is_a_base(None) == []
