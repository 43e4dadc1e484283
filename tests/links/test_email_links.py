"""Every link of every kind of e-mail starts with FRONTEND_URL and leads to a page.

Each kind is sent the way the project sends it (through the API where a caller can, else
through its service or task), with FRONTEND_URL set to an address no request comes in on; every
http(s) link of its text and HTML bodies must start with it, and its path, opened with the test
client, must answer 200 (or "log in first", and 200 once logged in as staff). The kinds tested
are the kinds the code sends (tests/links/registry.py): a new kind fails here until it has a
trigger below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone
from rest_framework.test import APIClient

from erp.purchasing import services as purchasing
from store.cart.models import Cart
from store.customers.services import customer_for_user
from store.emails.models import SentEmail
from store.settings import services as settings_services
from tests.accounts.factories import PASSWORD, UserFactory
from tests.erp.purchasing.conftest import make_order as draft_purchase_order
from tests.erp.purchasing.conftest import make_supplier
from tests.erp.purchasing.conftest import product as purchasable
from tests.fixtures.store import API, api_as, shop_manager
from tests.links.conftest import SITE, assert_on_site_and_answers, links_of
from tests.links.registry import CARRIERS, carriers_found, email_kinds
from tests.store.cart.helpers import add
from tests.store.catalog.factories import make_product
from tests.store.checkout.helpers import Shop, complete, started
from tests.store.emails.helpers import an_order
from tests.webhooks.factories import WebhookFactory
from theme.modules.recover_cart import tasks as module_tasks
from webhooks import sender
from webhooks import services as webhook_services
from webhooks.models import DeliveryAttempt

pytestmark = pytest.mark.django_db

SHOPPER = "ana@example.com"  # the checkout's and an_order's billing address
STORE_EMAIL = "orders@shop.test"
PORTAL = "/api/v1/portal/auth"


@dataclass
class Sent:
    """The messages of one kind, and the links in them that are not this site's (data the
    e-mail reports, e.g. a webhook's receiver)."""

    messages: list
    foreign: set[str] = field(default_factory=set)


class Run:
    """Sends, running the on-commit work (the outbox's tasks, eagerly) at the end of each
    block; answers the e-mails sent meanwhile."""

    def __init__(self, capture, monkeypatch=None) -> None:
        self.capture = capture
        self.monkeypatch = monkeypatch

    def __call__(self, send: Callable[[], object]) -> list:
        start = len(mail.outbox)
        with self.capture(execute=True):
            send()
        return mail.outbox[start:]


def to(messages: list, address: str) -> list:
    return [m for m in messages if m.to == [address]]


def answered(response, status: int = 200):
    assert response.status_code == status, response.content
    return response


# --- The triggers -------------------------------------------------------------------------------


def checkout_emails(run: Run) -> list:
    """Complete a checkout through the store API (card): the confirmation and the notice."""
    settings_services.settings_update(section="general", values={"store_email": STORE_EMAIL})
    shop, shopper = Shop(), APIClient()
    checkout = started(shopper, shop)
    return run(lambda: answered(complete(shopper, checkout["id"])))


def order_confirmation(run: Run) -> Sent:
    return Sent(to(checkout_emails(run), SHOPPER))


def new_order(run: Run) -> Sent:
    return Sent(to(checkout_emails(run), STORE_EMAIL))


def status_email(status: str) -> Callable[[Run], Sent]:
    """A member of staff moves an order to `status` through the store API."""

    def trigger(run: Run) -> Sent:
        order = an_order("pending")
        staff = api_as(shop_manager())
        url = f"{API}/orders/{order.pk}/status"
        return Sent(
            to(run(lambda: answered(staff.patch(url, {"status": status}, format="json"))), SHOPPER)
        )

    return trigger


def customer_new_account(run: Run) -> Sent:
    """A guest creates an account at the checkout."""
    shop, shopper = Shop(), APIClient()
    started(shopper, shop, lamps=0, mugs=1, email="")
    body = {"email": "new@example.com", "password": "Sturdy-Passphrase-2026"}
    return Sent(
        run(
            lambda: answered(
                shopper.post(f"{API}/checkout/create-account", body, format="json"), 201
            )
        )
    )


def store_customer(*, verified: bool):
    user = UserFactory(email="buyer@example.com", email_verified=True)
    customer_for_user(user=user)
    if not verified:
        user.email_verified = False
        user.save(update_fields=["email_verified"])
    return user


def portal(path: str, body: dict) -> Callable[[], object]:
    return lambda: answered(APIClient().post(f"{PORTAL}/{path}", body, format="json"))


def customer_verify_email(run: Run) -> Sent:
    user = store_customer(verified=False)
    return Sent(run(portal("resend-verification", {"email": user.email})))


def customer_password_reset(run: Run) -> Sent:
    user = store_customer(verified=True)
    return Sent(run(portal("forgot-password", {"email": user.email})))


def portal_verify_email(run: Run) -> Sent:
    body = {"email": "dev@example.com", "password": PASSWORD, "name": "Dev"}
    return Sent(run(lambda: answered(APIClient().post(f"{PORTAL}/register", body), 201)))


def portal_password_reset(run: Run) -> Sent:
    user = UserFactory(email="dev@example.com")
    return Sent(run(portal("forgot-password", {"email": user.email})))


def webhook_disabled(run: Run) -> Sent:
    """A licence event's delivery meets a receiver that answers 410 Gone: the webhook is
    disabled and its owner told. The receiver's URL is reported, not linked to."""
    hook = WebhookFactory(url="https://receiver.example/hooks")
    gone = sender.Result(outcome=DeliveryAttempt.Outcome.HTTP_ERROR, status_code=410)
    run.monkeypatch.setattr(sender, "send", lambda **_kwargs: gone)
    event = {"license_id": 1, "license_key": "EMP-ABCD-EFGH-IJKL", "tier": "starter"}
    messages = run(lambda: webhook_services.emit(hook.account, "license.created", event))
    hook.refresh_from_db()
    assert hook.is_active is False
    return Sent(messages, foreign={hook.url})


def cart_recovery(run: Run) -> Sent:
    """The beat's task e-mails the shopper of an idle cart."""
    customer = UserFactory(email="idle@example.com")
    lamp = make_product(title="Lamp", regular_price="12.00")
    answered(add(api_as(customer), lamp.pk, 2))
    Cart.objects.filter(user=customer).update(updated_at=timezone.now() - timedelta(hours=5))
    return Sent(run(module_tasks.recover_abandoned_carts))


def newsletter_confirm(run: Run) -> Sent:
    body = {"email": "reader@example.com"}
    path = "/rest/theme/v1/newsletter/subscribe"
    return Sent(run(lambda: answered(APIClient().post(path, body, format="json"), 202)))


def purchase_order(run: Run) -> Sent:
    """The ERP sends a purchase order (its PDF attached) to the supplier."""
    order = draft_purchase_order(make_supplier(), (purchasable(), 3, "4.50"))
    return Sent(run(lambda: purchasing.purchase_order_send(order_id=order.pk)))


TRIGGERS: dict[str, Callable[[Run], Sent]] = {
    "store:order_confirmation": order_confirmation,
    "store:new_order": new_order,
    "store:order_on_hold": status_email("on_hold"),
    "store:order_processing": status_email("processing"),
    "store:order_completed": status_email("completed"),
    "store:order_cancelled": status_email("cancelled"),
    "store:order_refunded": status_email("refunded"),
    "store:customer_new_account": customer_new_account,
    "store:customer_verify_email": customer_verify_email,
    "store:customer_password_reset": customer_password_reset,
    "store:cart_recovery": cart_recovery,
    "store:newsletter_confirm": newsletter_confirm,
    "template:accounts/verify_email": portal_verify_email,
    "template:accounts/password_reset": portal_password_reset,
    "template:webhooks/webhook_disabled": webhook_disabled,
    "direct:erp.purchase_order_email_deliver": purchase_order,
}
# Kinds whose e-mail links to nothing on this site (what they say needs no page).
WITHOUT_SITE_LINKS = {
    "template:webhooks/webhook_disabled",
    "direct:erp.purchase_order_email_deliver",
}


def test_every_kind_of_email_the_code_sends_has_a_trigger():
    assert set(TRIGGERS) == email_kinds()
    assert carriers_found() == set(CARRIERS)


@pytest.mark.parametrize("kind", sorted(TRIGGERS))
def test_every_link_starts_with_frontend_url_and_leads_to_a_page(
    kind, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.THEME_MODULES = list(settings.THEME_MODULES_ALL)  # the cart recovery's module on
    sent = TRIGGERS[kind](Run(django_capture_on_commit_callbacks, monkeypatch))

    assert len(sent.messages) == 1, [m.subject for m in sent.messages]
    [message] = sent.messages
    if kind.startswith("store:"):  # the store's log names the type of what was sent
        slug = kind.removeprefix("store:")
        assert SentEmail.objects.filter(
            type=slug, subject=message.subject, recipient=message.to[0], status="sent"
        ).exists(), (slug, message.subject)
    links = links_of(message)
    assert sent.foreign <= links
    own = links - sent.foreign
    if kind in WITHOUT_SITE_LINKS:
        assert own == set(), own
    else:
        assert own, f"the {kind} e-mail links to nothing"
    for url in sorted(own):
        assert_on_site_and_answers(url, what=kind)


def test_a_checkout_request_on_another_host_does_not_change_the_links(
    elsewhere, django_capture_on_commit_callbacks
):
    """The checkout's e-mails (sent in the shopper's request) and a status e-mail (sent by a
    task) link to the same site, whatever host and port the request came in on."""
    settings_services.settings_update(section="general", values={"store_email": STORE_EMAIL})
    shop = Shop()
    shopper = elsewhere
    checkout = started(shopper, shop)
    run = Run(django_capture_on_commit_callbacks)
    placed = run(lambda: answered(complete(shopper, checkout["id"])))
    staff = api_as(shop_manager())
    order_id = SentEmail.objects.filter(type="order_confirmation").get().order_id
    moved = run(
        lambda: answered(
            staff.patch(f"{API}/orders/{order_id}/status", {"status": "completed"}, format="json")
        )
    )
    links = set().union(*(links_of(m) for m in placed + moved))
    assert len(placed) == 2
    assert len(moved) == 1
    assert {url.split("/", 3)[2] for url in links} == {SITE.split("/", 3)[2]}
