"""What is done in the admin shows in Django's own History (each row's History page and the
index's "Recent actions"): a change form's save, a bulk action's changes (one entry per row it
changed, none for a row it refused), an order's status move, a copy an action made, and the
deletions a service really carried out."""

import pytest
from django.contrib import admin
from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse

from common.admin import ActionsInHistory, _may_change
from common.errors import Conflict
from store.catalog.models import Product
from store.feeds import services as feeds
from store.orders.models import Order
from store.tax import services as tax_services
from store.tax.models import TaxClass, TaxRate
from tests.admin_forms import csrf_client, post_action, post_form
from tests.store.orders.factories import line, make_order, on_commit, stocked
from tests.store.tax.factories import make_rate

pytestmark = pytest.mark.django_db

ORDERS = "admin:store_orders_order_changelist"


def entries_of(obj) -> list[tuple[int, str]]:
    """The History entries of `obj`, oldest first, as (flag, message)."""
    rows = LogEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(type(obj)), object_id=str(obj.pk)
    ).order_by("pk")
    return [(entry.action_flag, entry.get_change_message()) for entry in rows]


def csrf_of(client, url: str) -> dict:
    client.get(url)
    return {"csrfmiddlewaretoken": client.cookies["csrftoken"].value}


@pytest.fixture
def browser(admin_user):
    return csrf_client(admin_user)


@pytest.fixture
def lamp():
    return stocked(title="Desk lamp", sku="LAMP-A", stock=10)


def test_a_change_form_save_is_in_the_history(browser, lamp):
    order = make_order(line(lamp, 1))
    url = reverse("admin:store_orders_order_change", args=[order.pk])
    assert post_form(browser, url, admin_note="Checked by phone").status_code == 302
    assert entries_of(order) == [(CHANGE, "Changed Admin note.")]


def test_an_order_status_move_in_the_admin_is_on_its_history_page(browser, admin_user, lamp):
    order = make_order(line(lamp, 1))
    with on_commit():
        response = post_action(browser, reverse(ORDERS), "mark_cancelled", [order.pk])
    assert response.status_code == 302
    order.refresh_from_db()
    assert order.status == "cancelled"
    [(flag, message)] = entries_of(order)
    assert flag == CHANGE
    assert message.startswith("Mark as cancelled (with its stock effect): Status: Pending")
    assert "→ Cancelled" in message
    entry = LogEntry.objects.get()
    assert (entry.user, entry.object_repr) == (admin_user, str(order))

    history = browser.get(reverse("admin:store_orders_order_history", args=[order.pk]))
    assert history.status_code == 200
    assert "Mark as cancelled (with its stock effect): Status: Pending" in history.content.decode()
    index = browser.get(reverse("admin:index")).content.decode()
    assert order.order_number in index.split('id="recent-actions-module"', 1)[1]


def test_a_refused_status_move_writes_no_entry(browser, lamp):
    order = make_order(line(lamp, 1))
    with on_commit():
        post_action(browser, reverse(ORDERS), "mark_cancelled", [order.pk])
    response = post_action(browser, reverse(ORDERS), "mark_completed", [order.pk])
    assert response.status_code == 302
    order.refresh_from_db()
    assert order.status == "cancelled"
    assert len(entries_of(order)) == 1  # the cancellation only


def test_a_bulk_action_writes_an_entry_per_row_it_changed(browser):
    on = make_rate("21.00", country="NL", enabled=True)
    also_on = make_rate("19.00", country="DE", enabled=True)
    off = make_rate("20.00", country="FR", enabled=False)
    url = reverse("admin:store_tax_taxrate_changelist")
    assert post_action(browser, url, "disable", [on.pk, also_on.pk, off.pk]).status_code == 302
    assert not TaxRate.objects.filter(enabled=True).exists()
    for rate in (on, also_on):  # changed by one UPDATE: no signal, still recorded
        assert entries_of(rate) == [(CHANGE, "Disable: Enabled: yes → no.")]
    assert entries_of(off) == []  # already off: nothing changed, nothing recorded


def test_a_row_an_action_creates_is_recorded_as_added(browser):
    original = stocked(title="Desk lamp", sku="LAMP-A", stock=3)
    url = reverse("admin:store_catalog_product_changelist")
    assert post_action(browser, url, "duplicate", [original.pk]).status_code == 302
    copy = Product.objects.exclude(pk=original.pk).get()
    assert entries_of(copy) == [(ADDITION, "Duplicate as drafts.")]
    assert entries_of(original) == []


def test_the_delete_action_records_only_what_was_deleted(browser, monkeypatch):
    spare = TaxClass.objects.create(name="Spare", slug="spare")
    kept = TaxClass.objects.create(name="Kept", slug="kept")
    delete = tax_services.tax_class_delete

    def refuse_kept(*, ref):  # as when a rate is added to it meanwhile
        if ref == kept.pk:
            raise Conflict("The 'kept' class is in use.")
        delete(ref=ref)

    monkeypatch.setattr(tax_services, "tax_class_delete", refuse_kept)
    url = reverse("admin:store_tax_taxclass_changelist")
    response = post_action(browser, url, "delete_selected", [spare.pk, kept.pk], post="yes")
    assert response.status_code == 302
    assert list(TaxClass.objects.filter(slug__in=["spare", "kept"]).values_list("slug")) == [
        ("kept",)
    ]
    assert entries_of(spare) == [(DELETION, "Delete selected tax classes.")]
    assert entries_of(kept) == []


def test_a_single_delete_is_recorded_by_django_as_before(browser):
    spare = TaxClass.objects.create(name="Spare", slug="spare")
    url = reverse("admin:store_tax_taxclass_delete", args=[spare.pk])
    assert browser.post(url, {"post": "yes", **csrf_of(browser, url)}).status_code == 302
    assert entries_of(spare) == [(DELETION, "")]


def test_a_history_entry_names_but_never_shows_a_text_field(browser):
    """A key or a token changed by an action is named, its value kept out of History."""
    feed = feeds.feed_ensure("google")
    before = feed.token
    url = reverse("admin:store_feeds_feed_changelist")
    assert post_action(browser, url, "rotate_token", [feed.pk]).status_code == 302
    feed.refresh_from_db()
    assert feed.token != before
    [(flag, message)] = entries_of(feed)
    assert flag == CHANGE
    assert "Token changed" in message
    assert before not in message
    assert feed.token not in message


def test_every_admin_whose_actions_change_rows_records_them():
    """A new admin with an action of its own (or its own bulk delete) must be an
    ActionsInHistory, or what its actions do would be missing from History."""
    missing = []
    for model_admin in admin.site._registry.values():
        if type(model_admin).__module__.startswith(("django.", "rest_framework")):
            continue
        own = [
            name
            for func, name, _ in model_admin._get_base_actions()
            if _may_change(func) and name != "delete_selected"
        ]
        own_delete = type(model_admin).delete_queryset is not admin.ModelAdmin.delete_queryset
        if (own or own_delete) and not isinstance(model_admin, ActionsInHistory):
            missing.append(type(model_admin).__name__)
    assert missing == []


def test_a_view_only_export_is_left_as_it_is(admin_client):
    model_admin = admin.site._registry[Order]
    request = admin_client.get(reverse(ORDERS)).wsgi_request
    actions = model_admin.get_actions(request)
    export = next(func for name, (func, *_) in actions.items() if "csv" in name)
    cancel = actions["mark_cancelled"][0]
    assert getattr(export, "__wrapped__", None) is None
    assert cancel.__wrapped__.__name__ == "mark_cancelled"
