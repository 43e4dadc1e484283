"""The pages the verification and password-reset e-mails link to, followed from the e-mail."""

import re
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client

from accounts.models import User
from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "Another-Sturdy-Phrase-77"


@pytest.fixture
def sent(django_capture_on_commit_callbacks):
    """POST to the portal (sending its e-mail at once); answers the link the e-mail carries."""

    def run(path: str, body: dict) -> str:
        with django_capture_on_commit_callbacks(execute=True):
            response = Client(enforce_csrf_checks=True).post(
                f"/api/v1/portal/auth/{path}", body, content_type="application/json"
            )
        assert response.status_code in (200, 201), response.content
        link = re.search(r"^(https?://\S+\?token=\S+)$", mail.outbox[-1].body, re.MULTILINE)[1]
        assert link.startswith(f"{settings.FRONTEND_URL}/")
        parts = urlsplit(link)
        return f"{parts.path}?{parts.query}"

    return run


def form_of(response) -> dict:
    """The hidden fields of the page's form (the CSRF token and the e-mail's token)."""
    html = response.content.decode()
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', html))


def referrer_meta(response) -> str | None:
    """The policy of the page's `<meta name="referrer">`, which a browser applies over the
    Referrer-Policy header; None without one."""
    found = re.search(r'<meta name="referrer" content="([^"]*)"', response.content.decode())
    return found[1] if found else None


def log_in(email: str, password: str) -> int:
    return (
        Client()
        .post(
            "/api/v1/portal/auth/login",
            {"email": email, "password": password},
            content_type="application/json",
        )
        .status_code
    )


# --- Verify the e-mail address ----------------------------------------------------------------


def test_the_verification_link_opens_a_page_that_verifies(sent):
    link = sent(
        "register", {"email": "new@example.com", "password": PASSWORD, "name": "New Person"}
    )
    assert log_in("new@example.com", PASSWORD) == 403  # not verified yet
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(link)
    assert page.status_code == 200
    assert "no-store" in page["Cache-Control"]
    assert page["Referrer-Policy"] == "same-origin"
    assert referrer_meta(page) in (None, "same-origin")  # a <meta> would override the header
    assert "Verify my e-mail address" in page.content.decode()
    assert not User.objects.get(email="new@example.com").email_verified  # opening is not enough

    done = browser.post(link.split("?")[0], form_of(page))
    assert done.status_code == 200
    assert "new@example.com is verified" in done.content.decode()
    assert User.objects.get(email="new@example.com").email_verified
    assert log_in("new@example.com", PASSWORD) == 200

    again = browser.post(link.split("?")[0], form_of(page))
    assert again.status_code == 400
    assert "invalid or has expired" in again.content.decode()


def test_the_verification_page_refuses_without_csrf_and_without_a_token(sent):
    link = sent("register", {"email": "new@example.com", "password": PASSWORD, "name": "N"})
    token = link.split("token=")[1]
    forged = Client(enforce_csrf_checks=True).post("/verify-email", {"token": token})
    assert forged.status_code == 403
    assert not User.objects.get(email="new@example.com").email_verified
    assert Client().get("/verify-email").status_code == 400


def test_the_verification_page_has_the_api_rate_limit(sent, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "verify_email": "1/min",
        },
    }
    browser = Client(enforce_csrf_checks=True)
    page = browser.get("/verify-email?token=wrong")
    assert browser.post("/verify-email", form_of(page)).status_code == 400
    limited = browser.post("/verify-email", form_of(page))
    assert limited.status_code == 429
    assert int(limited["Retry-After"]) >= 1


# --- Set a new password -----------------------------------------------------------------------


def test_the_reset_link_opens_a_page_that_sets_the_password(sent, client_for):
    user = UserFactory(email="dev@example.com")
    old_session = client_for(user)
    link = sent("forgot-password", {"email": "dev@example.com"})
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(link)
    assert page.status_code == 200
    assert "For the account dev@example.com." in page.content.decode()
    hidden = form_of(page)
    path = link.split("?")[0]

    weak = browser.post(path, {**hidden, "password": "12345678", "password_again": "12345678"})
    assert weak.status_code == 422
    assert "This password is too common." in weak.content.decode()
    differ = browser.post(
        path, {**hidden, "password": NEW_PASSWORD, "password_again": NEW_PASSWORD + "x"}
    )
    assert differ.status_code == 422
    assert "The two passwords differ." in differ.content.decode()
    assert log_in("dev@example.com", PASSWORD) == 200  # nothing changed so far

    done = browser.post(path, {**hidden, "password": NEW_PASSWORD, "password_again": NEW_PASSWORD})
    assert done.status_code == 200
    assert "Your password is changed." in done.content.decode()
    assert log_in("dev@example.com", NEW_PASSWORD) == 200
    assert log_in("dev@example.com", PASSWORD) == 401
    assert old_session.get("/api/v1/portal/auth/me").status_code == 401  # logged out everywhere

    spent = browser.get(link)
    assert spent.status_code == 400
    assert "invalid or has expired" in spent.content.decode()


def test_the_reset_page_refuses_an_unknown_token_and_a_forged_post():
    user = UserFactory(email="dev@example.com")
    assert Client().get("/reset-password?token=nope").status_code == 400
    assert Client().get("/reset-password").status_code == 400
    forged = Client(enforce_csrf_checks=True).post(
        "/reset-password",
        {"token": "nope", "password": NEW_PASSWORD, "password_again": NEW_PASSWORD},
    )
    assert forged.status_code == 403
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


# --- The Origin a browser sends ---------------------------------------------------------------
#
# A browser posts a page's form with the page's Origin and address (Referer) when the page's
# Referrer-Policy is same-origin, and with `Origin: null` and no Referer under no-referrer, which
# CSRF refuses whatever the token. tests/browser follows the same forms in Chromium; these pin
# the rule without a browser.


def test_the_verification_form_takes_the_sites_origin_and_refuses_origin_null(sent):
    link = sent("register", {"email": "new@example.com", "password": PASSWORD, "name": "N"})
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(link)
    path = link.split("?")[0]

    refused = browser.post(path, form_of(page), HTTP_ORIGIN="null")
    assert refused.status_code == 403
    assert not User.objects.get(email="new@example.com").email_verified
    elsewhere = browser.post(
        path,
        form_of(page),
        HTTP_ORIGIN="https://evil.example",
        HTTP_REFERER="https://evil.example/",
    )
    assert elsewhere.status_code == 403
    assert not User.objects.get(email="new@example.com").email_verified

    done = browser.post(
        path,
        form_of(page),
        HTTP_ORIGIN="http://testserver",
        HTTP_REFERER=f"http://testserver{link}",
    )
    assert done.status_code == 200
    assert User.objects.get(email="new@example.com").email_verified


def test_the_reset_form_takes_the_sites_origin_and_refuses_origin_null(sent):
    UserFactory(email="dev@example.com")
    link = sent("forgot-password", {"email": "dev@example.com"})
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(link)
    body = {**form_of(page), "password": NEW_PASSWORD, "password_again": NEW_PASSWORD}
    path = link.split("?")[0]

    refused = browser.post(path, body, HTTP_ORIGIN="null")
    assert refused.status_code == 403
    assert log_in("dev@example.com", PASSWORD) == 200  # unchanged

    done = browser.post(
        path, body, HTTP_ORIGIN="http://testserver", HTTP_REFERER=f"http://testserver{link}"
    )
    assert done.status_code == 200
    assert "Your password is changed." in done.content.decode()
    assert log_in("dev@example.com", NEW_PASSWORD) == 200
