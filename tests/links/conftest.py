"""The link tests run with a FRONTEND_URL no request ever comes in on (the test client calls
`testserver`): a link built from a request's host or port, or from a default, shows."""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.accounts.factories import UserFactory

SITE = "http://shop.test:8123"
# The host and port the tests' requests come in on: neither FRONTEND_URL's nor testserver.
ELSEWHERE = "internal.example:9999"
URL = re.compile(r"https?://[^\s\"'<>]+")
# Answers that say "log in first" (the link exists; its reader logs in).
LOGIN_NEEDED = (302, 401, 403)


@pytest.fixture(autouse=True)
def site(settings) -> str:
    settings.FRONTEND_URL = SITE
    return SITE


@pytest.fixture
def elsewhere(settings) -> APIClient:
    """A client whose requests come in on ELSEWHERE."""
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, ELSEWHERE.split(":")[0]]
    return APIClient(HTTP_HOST=ELSEWHERE)


def links_in(text: str, *, is_html: bool = False) -> set[str]:
    found = URL.findall(text)
    if is_html:
        found = [html.unescape(url) for url in found]
    return {url.rstrip(".,;:") for url in found}


def links_of(message) -> set[str]:
    """Every http(s) link of an e-mail: its text body and its HTML alternatives."""
    found = links_in(message.body, is_html=message.content_subtype == "html")
    for content, _mimetype in getattr(message, "alternatives", []):
        found |= links_in(content, is_html=True)
    return found


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def follow(url: str) -> tuple[int, int | None]:
    """Open the link's path on this site, as its reader: anonymously, then (when that answers
    "log in first") as a member of staff. Answers both statuses (None: not needed)."""
    path = path_of(url)
    anonymous = Client().get(path).status_code
    if anonymous not in LOGIN_NEEDED:
        return anonymous, None
    staff = Client()
    staff.force_login(UserFactory(is_staff=True, is_superuser=True))
    return anonymous, staff.get(path).status_code


def assert_on_site_and_answers(url: str, *, what: str) -> None:
    """The link starts with FRONTEND_URL and its page exists: 200, or "log in first" and 200
    once logged in."""
    assert url.startswith(f"{SITE}/"), f"{what}: {url} does not start with FRONTEND_URL"
    anonymous, logged_in = follow(url)
    assert anonymous == 200 or (anonymous in LOGIN_NEEDED and logged_in == 200), (
        what,
        url,
        anonymous,
        logged_in,
    )
