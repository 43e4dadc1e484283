"""Every link of every e-mail type the store sends leads to a page that exists: each is
followed (as the recipient's browser would) and must answer 200."""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from accounts import services as account_services
from store.customers.services import customer_for_user
from store.emails.models import SentEmail
from store.settings import services as settings_services
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API
from tests.store.checkout.helpers import Shop, complete, started
from tests.store.emails.helpers import ALL_TYPES, EMAILS, ORDER_TYPES, TEMPLATES, an_order

pytestmark = pytest.mark.django_db

URL = re.compile(r"https?://[^\s\"'<>)]+")


def links(message) -> set[str]:
    found = set(URL.findall(message.body))
    for alternative, _kind in message.alternatives:
        found |= {html.unescape(url) for url in URL.findall(alternative)}
    return found


def follow(url: str, *, staff_user=None) -> int:
    """The status of the page at `url`; an admin page as a logged-in member of staff."""
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == settings.FRONTEND_URL, url
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    browser = Client()
    if path.startswith("/admin/"):
        browser.force_login(staff_user or UserFactory(is_staff=True, is_superuser=True))
    return browser.get(path).status_code


def test_every_link_of_every_type_leads_to_a_page(
    anon, staff, admin_user, django_capture_on_commit_callbacks
):
    settings_services.settings_update(section="general", values={"store_email": "shop@example.com"})
    seen: dict[str, set[str]] = {}

    def collect(start: int = 0) -> None:
        for message in mail.outbox[start:]:
            seen.setdefault(message.subject, set()).update(links(message))

    # The checkout: confirmation and notice.
    shop = Shop()
    checkout = started(anon, shop)
    with django_capture_on_commit_callbacks(execute=True):
        complete(anon, checkout["id"])
    # Every order e-mail of an order.
    order = an_order("processing")
    with django_capture_on_commit_callbacks(execute=True):
        for slug in ORDER_TYPES:
            response = staff.post(f"{EMAILS}/resend/{order.pk}", {"type": slug})
            assert response.status_code == 202, response.content
    # The account e-mails, sent the ways the store sends them.
    shopper = APIClient()
    with django_capture_on_commit_callbacks(execute=True):
        started(shopper, shop, lamps=0, mugs=1, email="")
        response = shopper.post(
            f"{API}/checkout/create-account",
            {"email": "new@example.com", "password": "Sturdy-Passphrase-2026"},
            format="json",
        )
        assert response.status_code == 201, response.content
    buyer = UserFactory(email="buyer@example.com", email_verified=True)
    customer_for_user(user=buyer)
    with django_capture_on_commit_callbacks(execute=True):
        account_services.password_reset_request(email="buyer@example.com")
    buyer.email_verified = False
    buyer.save()
    with django_capture_on_commit_callbacks(execute=True):
        account_services.verification_resend(email="buyer@example.com")
    collect()

    assert set(SentEmail.objects.values_list("type", flat=True)) == set(ALL_TYPES)
    every = set().union(*seen.values())
    assert every, seen
    for subject, urls in seen.items():
        assert urls, f"{subject!r} carries no link"
        for url in urls:
            assert follow(url, staff_user=admin_user) == 200, (subject, url)


@pytest.mark.parametrize("slug", ALL_TYPES)
def test_sample_links_lead_to_existing_pages(staff, slug):
    """Previews and tests use made-up data: their links name pages that exist (the made-up
    order is refused by its page, 403, as any unknown order is; a made-up token likewise)."""
    body = staff.get(f"{TEMPLATES}/{slug}/preview").json()
    urls = set(URL.findall(body["text"])) | {html.unescape(u) for u in URL.findall(body["html"])}
    assert urls
    for url in urls:
        assert follow(url) in (200, 302, 400, 403), url
