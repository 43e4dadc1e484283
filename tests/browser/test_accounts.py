"""Registering and resetting a password as a person does: the portal's API called from a page of
the site, the link followed from the e-mail, the page's button pressed in Chromium.

The pages' forms post with the browser's own Origin and Referer, which their Referrer-Policy
decides: under `no-referrer` Chromium posts `Origin: null` and CSRF refuses the form (403).
"""

import re

from django.core import mail

from accounts.models import User
from tests.accounts.factories import PASSWORD, UserFactory
from tests.browser.conftest import origin_of
from tests.fixtures.waiting import wait_until

NEW_PASSWORD = "Another-Sturdy-Phrase-77"


def emailed_link(to: str) -> str:
    """The `?token=` link of the last e-mail to `to`, once it is sent."""
    wait_until(
        lambda: any(to in message.to for message in mail.outbox),
        timeout=10,
        what=f"an e-mail to {to}",
        details=lambda: str([message.to for message in mail.outbox]),
    )
    body = [message for message in mail.outbox if to in message.to][-1].body
    return re.search(r"^(https?://\S+\?token=\S+)$", body, re.MULTILINE)[1]


def log_in(browser, email: str, password: str) -> int:
    answer = browser.fetch(
        "POST", "/api/v1/portal/auth/login", {"email": email, "password": password}
    )
    return answer["status"]


def assert_posted_from_the_page(browser, path: str, link: str) -> None:
    """The form's POST carried the page's origin and address, and every answer of the page
    (the form, the result) the same-origin policy."""
    posted = browser.received("POST", path)
    assert posted.origin == origin_of(browser.base_url)
    assert posted.referer == link  # same origin: the whole address
    pages = [a for a in browser.answers() if a.kind == "Document" and path in a.url]
    assert [a.status for a in pages] == [200, 200]  # the form, then its result
    assert {a.headers.get("referrer-policy") for a in pages} == {"same-origin"}


def test_register_then_verify_with_the_emailed_link(browser):
    browser.open("/")  # a page of the site, whose scripts call the API
    created = browser.fetch(
        "POST",
        "/api/v1/portal/auth/register",
        {"email": "new@example.com", "password": PASSWORD, "name": "New Person"},
    )
    assert created["status"] == 201, created
    link = emailed_link("new@example.com")
    assert link.startswith(f"{browser.base_url}/verify-email?token=")
    assert log_in(browser, "new@example.com", PASSWORD) == 403  # not verified yet

    browser.open(link)
    browser.click("form button[type=submit]", text="Verify my e-mail address")
    browser.wait_for("#result", text="new@example.com is verified. You can log in now.")

    assert_posted_from_the_page(browser, "/verify-email", link)
    assert User.objects.get(email="new@example.com").email_verified
    assert log_in(browser, "new@example.com", PASSWORD) == 200


def test_forgot_password_then_set_a_new_one_with_the_emailed_link(browser):
    UserFactory(email="dev@example.com")
    browser.open("/")
    asked = browser.fetch(
        "POST", "/api/v1/portal/auth/forgot-password", {"email": "dev@example.com"}
    )
    assert asked["status"] == 200, asked
    link = emailed_link("dev@example.com")
    assert link.startswith(f"{browser.base_url}/reset-password?token=")

    browser.open(link)
    browser.wait_for("p", text="For the account dev@example.com.")
    browser.fill("input[name=password]", NEW_PASSWORD)
    browser.fill("input[name=password_again]", NEW_PASSWORD)
    browser.click("form button[type=submit]", text="Set the new password")
    browser.wait_for("#result", text="Your password is changed.")

    assert_posted_from_the_page(browser, "/reset-password", link)
    assert log_in(browser, "dev@example.com", NEW_PASSWORD) == 200
    assert log_in(browser, "dev@example.com", PASSWORD) == 401
