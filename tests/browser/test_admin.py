"""The Django admin in Chromium: logging in through its form, the lists a back office reads, a
status moved by a bulk action and found in the order's history, a CSV export downloaded.

Each test builds the few rows it reads (milliseconds, through the services); the log-in form
is the subject of one test, the others give the browser a session made on the server.
"""

import csv

from selenium.webdriver.support.ui import Select

from erp.core import services as erp_services
from erp.invoicing import services as invoicing_services
from store.orders.models import Order
from tests.browser.conftest import origin_of
from tests.erp.conftest import store_licence
from tests.erp.invoicing.helpers import BILLING, configure
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked

ADMIN = "/admin"
ORDERS = f"{ADMIN}/store_orders/order/"


def two_orders() -> list[Order]:
    """Two pending orders of one customer (the store's side of the back office)."""
    lamp = stocked("Lamp", price="10.00")
    customer = CustomerFactory(email="eleni@example.com", first_name="Eleni")
    return [
        make_order(line(lamp, quantity), customer=customer, billing_address=BILLING)
        for quantity in (1, 2)
    ]


def run_action(browser, label: str, *pks: int) -> None:
    """Tick the rows `pks` of the list on screen, pick the action `label`, press Go."""
    for pk in pks:
        browser.click(f"input.action-select[value='{pk}']")
    Select(browser.wait_for("select[name=action]")).select_by_visible_text(label)
    browser.click("button[name=index]")


def test_log_in_then_read_the_licence_order_customer_and_invoice_lists(browser, admin_user):
    licence = store_licence()
    erp_services.erp_activate(license_key=licence.license_key)
    configure()
    orders = two_orders()
    invoice, _created = invoicing_services.invoice_from_order(order_id=orders[0].pk)

    browser.open(f"{ADMIN}/")  # not logged in: the log-in page
    browser.fill("#id_username", admin_user.email)
    browser.fill("#id_password", "password")
    browser.click("input[type=submit]")
    browser.wait_for("#user-tools", text=admin_user.email)  # logged in, on the index
    posted = browser.received("POST", f"{ADMIN}/login/")
    assert posted.origin == origin_of(browser.base_url)
    form = browser.page_answer(f"{ADMIN}/login/")  # the form page, as the browser got it
    assert form.headers.get("referrer-policy") == "same-origin"

    expected = {
        f"{ADMIN}/licensing/license/": licence.license_key,
        ORDERS: orders[1].order_number,
        f"{ADMIN}/store_customers/customer/": "eleni@example.com",
        f"{ADMIN}/erp_invoicing/invoice/": str(invoice),
    }
    for path, row in expected.items():
        browser.open(path)
        browser.wait_for("#result_list tbody", text=row)
        assert browser.page_answer(path).status == 200


def test_a_bulk_status_change_shows_in_the_orders_history(browser, admin_user):
    first, second = two_orders()
    browser.log_in_as(admin_user)
    browser.open(ORDERS)
    run_action(browser, "Mark as processing (with its stock effect)", first.pk, second.pk)
    browser.wait_for("ul.messagelist", text="2 order(s) processing.")
    assert set(Order.objects.values_list("status", flat=True)) == {"processing"}

    # The order's page: its status history inline (what the customer's API shows too).
    browser.open(f"{ORDERS}{first.pk}/change/")
    history = next(
        group
        for group in browser.find_all("div.inline-group")
        if "status history" in group.text.lower()
    )
    assert any(
        "pending" in row.text and "processing" in row.text
        for row in history.find_elements("css selector", "tbody tr")
    ), history.text

    # The admin's History page of the order lists the change, by whom.
    browser.click("a.historylink")
    browser.wait_for("#content h1", text="Change history")
    rows = [row.text for row in browser.find_all("#change-history tbody tr")]
    assert any(
        admin_user.email in row and "status" in row.lower() and "processing" in row.lower()
        for row in rows
    ), rows or browser.text("#content")


def test_orders_export_to_a_csv_download(browser, admin_user):
    orders = two_orders()
    browser.log_in_as(admin_user)
    browser.open(ORDERS)
    before = browser.downloads_now()
    run_action(browser, "Export selected to CSV", *(order.pk for order in orders))
    download = browser.downloaded(before, suffix=".csv")

    assert download.name.startswith("orders-")
    with download.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted((row["order_number"], row["status"], row["total"]) for row in rows) == sorted(
        (order.order_number, "pending", f"{order.total}") for order in orders
    )
    assert {row["customer_email"] for row in rows} == {"eleni@example.com"}
