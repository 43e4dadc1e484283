"""The tax routes: classes and rates (staff, ec_manage_tax), the calculation (public: the cart's
rule, the EU reverse charge), stats, the EU VAT rates and the countries."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client

from store.settings import services as settings_services
from store.tax.models import TaxClass, TaxRate
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error, grant
from tests.store.cart.helpers import CART, add, cart_of, max_sql_queries
from tests.store.catalog.factories import make_product
from tests.store.checkout.helpers import ADDRESS, CHECKOUT, Shop, complete, started
from tests.store.tax.factories import make_rate, set_product_class

pytestmark = pytest.mark.django_db

TAX = f"{API}/tax"
DE_VAT = "DE136695976"  # valid per python-stdnum (another member state than the store's GR)
GR_VAT = "EL094259216"  # valid, the store's own country


@pytest.fixture
def staff(store_client):
    return store_client(grant(UserFactory(email="tax@example.com"), "ec_manage_tax"))


def tax_settings(**values):
    settings_services.settings_update(section="tax", values=values)


def calc(client, body):
    return client.post(f"{TAX}/calculate", body, format="json")


# --- Access --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/tax/classes", "/tax/rates", "/tax/stats", "/tax/classes/standard"]
)
def test_staff_routes_need_the_tax_capability(anon, customer_client, manager_client, path):
    assert anon.get(f"{API}{path}").status_code == 401
    error(customer_client.get(f"{API}{path}"), 403)
    error(manager_client.get(f"{API}{path}"), 403)  # shop managers do not manage tax
    error(anon.post(f"{TAX}/rates", {"rate": 5}, format="json"), 401)


def test_public_routes(anon):
    assert anon.get(f"{TAX}/eu-vat-rates").status_code == 200
    assert anon.get(f"{TAX}/countries").status_code == 200
    assert calc(anon, {"lines": [{"amount": "10.00"}]}).status_code == 200


# --- Classes -------------------------------------------------------------------------------------


def test_list_and_read_classes(staff):
    rate = make_rate(24, country="GR")
    set_product_class(make_product(title="Book"), "reduced-rate")
    body = staff.get(f"{TAX}/classes").json()
    assert (body["total"], body["page"], body["total_pages"]) == (3, 1, 1)
    standard, reduced, zero = body["classes"]
    assert standard["slug"] == "standard"
    assert standard["is_default"] is True
    assert (standard["rates"], standard["enabled_rates"], standard["products"]) == (1, 1, 0)
    assert (reduced["products"], zero["rates"]) == (1, 0)
    assert staff.get(f"{TAX}/classes/standard").json()["id"] == rate.tax_class_id
    assert staff.get(f"{TAX}/classes/{rate.tax_class_id}").json()["slug"] == "standard"
    error(staff.get(f"{TAX}/classes/nope"), 404, "tax_class_not_found")
    error(staff.get(f"{TAX}/classes/999999"), 404, "tax_class_not_found")
    assert staff.get(f"{TAX}/classes", {"search": "zero"}).json()["total"] == 1


def test_create_update_delete_a_class(staff):
    response = staff.post(f"{TAX}/classes", {"name": "Children's clothes"}, format="json")
    assert response.status_code == 201, response.content
    made = response.json()
    assert (made["slug"], made["rates"], made["is_default"]) == ("childrens-clothes", 0, False)
    error(
        staff.post(f"{TAX}/classes", {"name": "X", "slug": "childrens-clothes"}, format="json"),
        409,
        "tax_class_exists",
    )
    error(staff.post(f"{TAX}/classes", {"name": "X", "slug": "123"}, format="json"), 400)
    error(staff.post(f"{TAX}/classes", {"slug": "x"}, format="json"), 400, "invalid_param")
    url = f"{TAX}/classes/{made['id']}"
    changed = staff.patch(url, {"name": "Kids", "slug": "kids", "sort_order": 9}, format="json")
    assert changed.status_code == 200, changed.content
    assert (changed.json()["name"], changed.json()["slug"]) == ("Kids", "kids")
    assert staff.put(f"{TAX}/classes/kids", {"sort_order": 3}, format="json").status_code == 200
    assert staff.delete(f"{TAX}/classes/kids").status_code == 204
    assert not TaxClass.objects.filter(slug="kids").exists()
    error(staff.delete(f"{TAX}/classes/kids"), 404, "tax_class_not_found")


def test_protected_and_used_classes_are_not_deleted(staff):
    error(staff.delete(f"{TAX}/classes/standard"), 409, "tax_class_protected")
    error(
        staff.patch(f"{TAX}/classes/standard", {"slug": "normal"}, format="json"),
        409,
        "tax_class_protected",
    )
    make_rate(13, country="GR", tax_class_slug="reduced-rate")
    body = error(staff.delete(f"{TAX}/classes/reduced-rate"), 409, "tax_class_in_use")
    assert "1 rate(s)" in body["message"]
    set_product_class(make_product(title="Bread"), "zero-rate")
    error(staff.delete(f"{TAX}/classes/zero-rate"), 409, "tax_class_in_use")
    tax_settings(shipping_tax_class="reduced-rate")
    TaxRate.objects.all().delete()
    error(staff.delete(f"{TAX}/classes/reduced-rate"), 409, "tax_class_protected")
    assert TaxClass.objects.count() == 3


# --- Rates ---------------------------------------------------------------------------------------


def rate_body(**fields):
    return {"country": "GR", "rate": "24", "name": "VAT", **fields}


def test_create_read_update_delete_a_rate(staff):
    response = staff.post(f"{TAX}/rates", rate_body(region="gr-i", postcodes="104*, 105*"))
    assert response.status_code == 201, response.content
    made = response.json()
    assert {k: made[k] for k in ("tax_class", "country", "region", "postcodes", "rate")} == {
        "tax_class": "standard",
        "country": "GR",
        "region": "I",
        "postcodes": ["104*", "105*"],
        "rate": "24",
    }
    assert (made["priority"], made["enabled"], made["source"]) == (1, True, "")
    url = f"{TAX}/rates/{made['id']}"
    assert staff.get(url).json() == made
    changed = staff.patch(url, {"rate": "25.5", "tax_class": "reduced-rate"}, format="json")
    assert changed.status_code == 200, changed.content
    assert (changed.json()["rate"], changed.json()["tax_class"]) == ("25.5", "reduced-rate")
    assert staff.put(url, {"name": "MwSt"}, format="json").json()["name"] == "MwSt"
    assert staff.delete(url).status_code == 204
    error(staff.get(url), 404, "tax_rate_not_found")
    error(staff.delete(url), 404, "tax_rate_not_found")
    error(staff.patch(url, {"rate": 1}, format="json"), 404, "tax_rate_not_found")


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"rate": "100.01"}, "rate"),
        ({"rate": -1}, "rate"),
        ({"rate": "1.00001"}, "rate"),
        ({"rate": "NaN"}, "rate"),
        ({"rate": True}, "rate"),
        ({"country": "XX"}, "country"),
        ({"country": "GR", "region": "ZZ"}, "region"),
        ({"country": "", "region": "I"}, "region"),
        ({"postcodes": "1*2"}, "postcodes"),
        ({"postcodes": "200...100"}, "postcodes"),
        ({"tax_class": "luxury"}, "tax_class"),
        ({"priority": 0}, "priority"),
        ({"name": "x" * 101}, "name"),
        ({"name": "a\x00b"}, "name"),
    ],
)
def test_rate_refusals(staff, fields, param):
    body = error(staff.post(f"{TAX}/rates", rate_body(**fields), format="json"), 400)
    # a NUL byte is refused when the body is read, before any field is looked at
    assert param in body["data"].get("params", {}) or body["code"] == "parse_error", body
    assert not TaxRate.objects.exists()


def test_a_rate_is_required(staff):
    body = error(staff.post(f"{TAX}/rates", {"country": "GR"}, format="json"), 400)
    assert "rate" in body["data"]["params"]


def test_duplicate_rates_are_refused(staff):
    first = staff.post(f"{TAX}/rates", rate_body(), format="json").json()
    error(staff.post(f"{TAX}/rates", rate_body(rate=23), format="json"), 409, "tax_rate_exists")
    # another priority adds up: allowed; another class or place too
    assert staff.post(f"{TAX}/rates", rate_body(priority=2), format="json").status_code == 201
    other = staff.post(f"{TAX}/rates", rate_body(region="I"), format="json").json()
    error(
        staff.patch(f"{TAX}/rates/{other['id']}", {"region": ""}, format="json"),
        409,
        "tax_rate_exists",
    )
    assert TaxRate.objects.get(pk=first["id"]).rate == Decimal(24)


def test_list_rates_with_filters_and_pages(staff):
    make_rate(24, country="GR")
    make_rate(13, country="GR", tax_class_slug="reduced-rate")
    make_rate(19, country="DE", enabled=False)
    make_rate(5)  # everywhere
    listing = staff.get(f"{TAX}/rates").json()
    assert listing["total"] == 4
    assert len(listing["rates"]) == 4

    def ids(**query):
        return [r["rate"] for r in staff.get(f"{TAX}/rates", query).json()["rates"]]

    assert sorted(ids(country="gr")) == ["13", "24"]
    assert ids(country="*") == ["5"]
    assert ids(tax_class="reduced-rate") == ["13"]
    assert ids(enabled="false") == ["19"]
    assert ids(country="GR", tax_class="standard", enabled="true") == ["24"]
    page = staff.get(f"{TAX}/rates", {"per_page": 3, "page": 2}).json()
    assert (page["total"], page["total_pages"], len(page["rates"])) == (4, 2, 1)
    assert staff.get(f"{TAX}/rates", {"per_page": 5000}).json()["per_page"] == 100
    error(staff.get(f"{TAX}/rates", {"page": 0}), 400)
    error(staff.get(f"{TAX}/rates", {"enabled": "maybe"}), 400)


def test_rate_and_class_lists_do_not_grow_with_rows(staff):
    def queries(url):
        with max_sql_queries(50) as context:
            assert staff.get(url).status_code == 200
        return len(context.captured_queries)

    make_rate(24, country="GR")
    urls = (f"{TAX}/rates", f"{TAX}/classes", f"{TAX}/stats")
    for url in urls:  # warm: the account's capabilities and the settings are cached
        queries(url)
    few = tuple(queries(url) for url in urls)
    for code in ("DE", "FR", "IT", "ES", "AT", "BE", "NL", "PT", "IE", "FI"):
        make_rate(20, country=code)
        make_rate(10, country=code, tax_class_slug="reduced-rate")
        TaxClass.objects.create(name=f"Class {code}", slug=f"class-{code.lower()}")
    for url in urls:
        queries(url)
    many = tuple(queries(url) for url in urls)
    assert many == few


def test_toggle_a_rate(staff):
    rate = make_rate(24, country="GR")
    url = f"{TAX}/rates/{rate.pk}/toggle"
    assert staff.post(url, format="json").json()["enabled"] is False
    assert staff.post(url, {}, format="json").json()["enabled"] is True
    assert staff.post(url, {"enabled": True}, format="json").json()["enabled"] is True
    assert staff.post(url, {"enabled": False}, format="json").json()["enabled"] is False
    error(staff.post(url, {"enabled": "yes please"}, format="json"), 400)
    error(staff.post(f"{TAX}/rates/999999/toggle", format="json"), 404, "tax_rate_not_found")
    # a disabled rate no longer taxes
    body = calc(staff, {"address": {"country": "GR"}, "lines": [{"amount": "10"}]}).json()
    assert body["tax"] == "0.00"


def test_a_loaded_eu_rate_changed_by_staff_becomes_theirs(staff):
    from store.tax import services

    services.eu_vat_rates_load()
    rate = TaxRate.objects.get(country="GR", tax_class__slug="standard")
    url = f"{TAX}/rates/{rate.pk}"
    assert staff.post(f"{url}/toggle", format="json").json()["source"] == "eu_vat"
    assert staff.patch(url, {"rate": 23}, format="json").json()["source"] == ""
    report = services.eu_vat_rates_load()
    assert (report.created, report.kept) == ([], ["GR standard 24% (staff's rate 23% kept)"])
    assert TaxRate.objects.get(pk=rate.pk).rate == Decimal(23)


# --- Calculate -----------------------------------------------------------------------------------


@pytest.fixture
def greece():
    make_rate(24, country="GR")
    make_rate(13, country="GR", tax_class_slug="reduced-rate")
    make_rate(19, country="DE")
    make_rate(7, country="DE", tax_class_slug="reduced-rate")


def test_calculate_products_and_amounts(anon, greece):
    lamp = make_product(title="Lamp", regular_price="10.00")
    book = make_product(title="Book", regular_price="7.99")
    set_product_class(book, "reduced-rate")
    body = calc(
        anon,
        {
            "address": {"country": "GR", "state": "I", "postcode": "104 31"},
            "lines": [
                {"product_id": lamp.pk, "quantity": 3},
                {"product_id": book.pk},
                {"amount": "0.99", "tax_class": "zero-rate", "quantity": 2},
            ],
            "shipping": "5.00",
        },
    )
    assert body.status_code == 200, body.content
    body = body.json()
    assert body["location"] == {"country": "GR", "region": "I", "postcode": "10431"}
    assert (body["reverse_charge"], body["prices_include_tax"]) == (False, False)
    lamp_line, book_line, other = body["lines"]
    assert {k: lamp_line[k] for k in ("tax_class", "unit", "amount", "net", "tax", "gross")} == {
        "tax_class": "standard",
        "unit": "10.00",
        "amount": "30.00",
        "net": "30.00",
        "tax": "7.20",
        "gross": "37.20",
    }
    assert lamp_line["rates"] == [
        {"rate_id": TaxRate.objects.get(rate=24).pk, "label": "VAT", "rate": "24", "amount": "7.20"}
    ]
    assert (book_line["tax"], book_line["tax_class"]) == ("1.04", "reduced-rate")  # 13% of 7.99
    assert (other["tax"], other["rates"]) == ("0.00", [])
    assert body["shipping"]["tax"] == "1.20"
    assert (body["subtotal"], body["subtotal_tax"], body["shipping_tax"]) == (
        "39.97",
        "8.24",
        "1.20",
    )
    assert (body["tax"], body["total"]) == ("9.44", "54.41")
    assert [(t["rate"], t["amount"]) for t in body["tax_lines"]] == [("24", "8.40"), ("13", "1.04")]


def test_calculate_with_prices_including_tax(anon, greece):
    tax_settings(prices_include_tax=True)
    body = calc(anon, {"address": {"country": "DE"}, "lines": [{"amount": "11.90"}]}).json()
    assert body["prices_include_tax"] is True
    line = body["lines"][0]
    assert (line["amount"], line["net"], line["tax"], line["gross"]) == (
        "11.90",
        "10.00",
        "1.90",
        "11.90",
    )


def test_calculate_without_an_address_uses_the_store_country(anon, greece):
    body = calc(anon, {"lines": [{"amount": "10"}]}).json()
    assert (body["location"]["country"], body["tax"]) == ("GR", "2.40")
    tax_settings(tax_based_on="base")
    body = calc(anon, {"address": {"country": "DE"}, "lines": [{"amount": "10"}]}).json()
    assert body["tax"] == "2.40"


def test_eu_reverse_charge(anon, greece):
    lines = {"address": {"country": "DE"}, "lines": [{"amount": "100"}], "shipping": "5"}
    # the setting off: a VAT number changes nothing
    body = calc(anon, {**lines, "vat_number": DE_VAT}).json()
    assert (body["reverse_charge"], body["tax"], body["vat_number"]) == (False, "19.95", DE_VAT)
    tax_settings(eu_reverse_charge=True)
    body = calc(anon, {**lines, "vat_number": "de 136 695 976"}).json()
    assert (body["reverse_charge"], body["tax"], body["total"]) == (True, "0.00", "105.00")
    assert body["tax_lines"] == []
    assert body["lines"][0]["rates"] == []
    # the store's own country: domestic, taxed
    body = calc(anon, {**lines, "vat_number": GR_VAT}).json()
    assert (body["reverse_charge"], body["tax"]) == (False, "19.95")
    # no number: taxed
    assert calc(anon, lines).json()["reverse_charge"] is False
    # a store outside the EU: no reverse charge
    settings_services.settings_update(section="general", values={"store_country": "US"})
    assert calc(anon, {**lines, "vat_number": DE_VAT}).json()["reverse_charge"] is False


@pytest.mark.parametrize("number", ["DE136695977", "XX123", "123456789", "EL", "DE 1"])
def test_an_invalid_vat_number_is_a_clear_400(anon, number):
    body = error(
        calc(anon, {"lines": [{"amount": "1"}], "vat_number": number}), 400, "invalid_vat_number"
    )
    assert "vat_number" in body["data"]["params"]


def test_calculate_refusals(anon, greece):
    draft = make_product(title="Draft", regular_price="5.00", status="draft")
    cases = [
        ({"lines": []}, "lines"),
        ({"lines": [{}]}, "lines"),
        ({"lines": [{"product_id": 1, "amount": "1"}]}, "lines"),
        ({"lines": [{"product_id": draft.pk}]}, "lines.0.product_id"),
        ({"lines": [{"product_id": 999999}]}, "lines.0.product_id"),
        ({"lines": [{"amount": "1", "tax_class": "luxury"}]}, "lines.0.tax_class"),
        ({"lines": [{"amount": "-1"}]}, "lines"),
        ({"lines": [{"amount": "1", "quantity": 0}]}, "lines"),
        ({"lines": [{"amount": "1"}], "address": {"country": "XX"}}, "address"),
        ({"lines": [{"amount": "1"}], "address": {"country": "GR", "state": "ZZ"}}, "address"),
        ({"lines": [{"amount": "1"}] * 101}, "lines"),
    ]
    for body, param in cases:
        answer = error(calc(anon, body), 400)
        assert any(name.startswith(param) for name in answer["data"]["params"]), (body, answer)


def test_variable_products(anon, greece):
    from tests.store.catalog.factories import TermFactory, make_variant

    product = make_product(title="Shirt", type="variable", regular_price="25.00")
    variant = make_variant(product, TermFactory(name="Blue"), regular_price="27.50")
    variant.refresh_from_db()
    body = calc(anon, {"lines": [{"product_id": product.pk, "variant_id": variant.pk}]})
    assert body.status_code == 200, body.content
    assert body.json()["lines"][0]["unit"] == format(variant.price, "f")
    error(calc(anon, {"lines": [{"product_id": product.pk}]}), 400)
    simple = make_product(title="Simple")
    error(calc(anon, {"lines": [{"product_id": simple.pk, "variant_id": variant.pk}]}), 400)


@pytest.mark.parametrize(
    "raw",
    [
        "[]",
        '"lines"',
        '{"lines": {"amount": "1"}}',
        '{"lines": [{"amount": "1"}], "address": []}',
        '{"lines": [{"amount": "1"}], "vat_number": "DE\\u0000136695976"}',
        '{"lines": [{"amount": "1"}], "vat_number": "\\ud800"}',
        '{"lines": [{"amount": "1", "tax_class": "\\ud800"}]}',
        '{"lines": [{"product_id": 99999999999999999999999}]}',
        '{"lines": [{"amount": 1e400}]}',
        '{"lines": [{"amount": "1", "quantity": 10000000000000}]}',
        '{"lines": [{"amount": "1"}], "shipping": [1]}',
        '{"lines": [{"amount": "1"}], "vat_number": 12}',
        '{"lines": ' + "[" * 200 + "]" * 200 + "}",
    ],
)
def test_hostile_input_is_refused_cleanly(anon, raw):
    response = anon.post(f"{TAX}/calculate", raw, content_type="application/json")
    assert response.status_code in (400, 422), response.content
    assert set(response.json()) == {"code", "message", "data"}


def test_hostile_input_on_staff_writes(staff):
    for raw in ('{"rate": "\\ud800"}', '{"country": ["GR"], "rate": 1}', "[1]", '{"rate": 1e999}'):
        response = staff.post(f"{TAX}/rates", raw, content_type="application/json")
        assert response.status_code in (400, 422), (raw, response.content)
    for raw in ('{"name": "\\u0000"}', '{"name": {"a": 1}}', '{"name": "A", "sort_order": 1e99}'):
        response = staff.post(f"{TAX}/classes", raw, content_type="application/json")
        assert response.status_code in (400, 422), (raw, response.content)
    error(staff.get(f"{TAX}/classes/{'x' * 5000}"), 404)


def test_posts_with_csrf_checks_answer_json(greece):
    browser = Client(enforce_csrf_checks=True)
    response = browser.post(
        f"{TAX}/calculate", {"lines": [{"amount": "10"}]}, content_type="application/json"
    )
    assert response.status_code == 200
    assert response.json()["tax"] == "2.40"
    user = grant(UserFactory(email="browser@example.com"), "ec_manage_tax")
    browser.force_login(user)
    # a browser session writes only with the nonce: a JSON refusal, never a CSRF page
    response = browser.post(f"{TAX}/rates", rate_body(), content_type="application/json")
    error(response, 401)
    nonce = browser.get(f"{API}/auth/nonce").json()["nonce"]
    response = browser.post(
        f"{TAX}/rates",
        rate_body(country="FR", rate=20),
        content_type="application/json",
        HTTP_X_PLATFORM_NONCE=nonce,
    )
    assert response.status_code == 201, response.content
    response = browser.post(
        f"{TAX}/rates/{response.json()['id']}/toggle",
        content_type="application/json",
        HTTP_X_PLATFORM_NONCE=nonce,
    )
    assert response.json()["enabled"] is False


def test_idempotency_key_on_creating_posts(staff):
    headers = {"HTTP_IDEMPOTENCY_KEY": "rate-create-1"}
    first = staff.post(f"{TAX}/rates", rate_body(), format="json", **headers)
    again = staff.post(f"{TAX}/rates", rate_body(), format="json", **headers)
    assert (first.status_code, again.status_code) == (201, 201)
    assert first.json()["id"] == again.json()["id"]
    assert TaxRate.objects.count() == 1


# --- The cart's tax is /tax/calculate's ----------------------------------------------------------


def cart_lines_of(cart: dict) -> list[dict]:
    return [
        {"product_id": item["product_id"], "quantity": item["quantity"]} for item in cart["items"]
    ]


@pytest.mark.parametrize("inclusive", [False, True])
def test_the_carts_tax_equals_calculate(anon, greece, inclusive):
    from tests.store.shipping.factories import make_method, make_zone

    tax_settings(prices_include_tax=inclusive)
    make_method(make_zone("All", fallback=True), title="Courier", cost="4.99")
    lamp = make_product(title="Lamp", regular_price="19.99")
    book = make_product(title="Book", regular_price="8.45")
    set_product_class(book, "reduced-rate")
    add(anon, lamp.pk, 3)
    add(anon, book.pk, 2)
    anon.post(f"{CART}/shipping-address", {"country": "DE", "postcode": "10115"}, format="json")
    cart = cart_of(anon)
    body = calc(
        anon,
        {
            "address": {"country": "DE", "postcode": "10115"},
            "lines": cart_lines_of(cart),
            "shipping": "4.99",
        },
    ).json()
    for key in ("subtotal", "subtotal_tax", "shipping_tax", "tax", "total"):
        assert body[key] == cart[key], key
    assert body["tax_lines"] == cart["tax_lines"]


def test_reverse_charge_reaches_the_cart_and_the_order(anon):
    shop = Shop()
    tax_settings(eu_reverse_charge=True)
    make_rate(19, country="DE")
    from tests.store.shipping.factories import make_method, make_zone

    make_method(make_zone("Germany", countries=["DE"]), "flat_rate", "Courier DE", cost="5.00")
    berlin = {**ADDRESS, "country": "DE", "region": "", "postcode": "10115", "city": "Berlin"}
    checkout = started(anon, shop, billing_address=berlin, vat_number=DE_VAT)
    error(
        anon.patch(f"{CHECKOUT}/{checkout['id']}", {"vat_number": "DE1"}, format="json"),
        400,
        "invalid_vat_number",
    )
    cart = cart_of(anon)
    assert (cart["tax"], cart["tax_lines"]) == ("0.00", [])
    quote = calc(
        anon,
        {
            "address": {"country": "DE", "postcode": "10115"},
            "lines": cart_lines_of(cart),
            "shipping": cart["shipping"],
            "vat_number": DE_VAT,
        },
    ).json()
    assert quote["reverse_charge"] is True
    assert (quote["tax"], quote["total"]) == (cart["tax"], cart["total"])
    # removing the number brings the tax back
    patched = anon.patch(f"{CHECKOUT}/{checkout['id']}", {"vat_number": ""}, format="json")
    assert patched.status_code == 200, patched.content
    assert cart_of(anon)["tax"] != "0.00"
    anon.patch(f"{CHECKOUT}/{checkout['id']}", {"vat_number": DE_VAT}, format="json")
    answer = complete(anon, checkout["id"])
    assert answer.status_code == 200, answer.content
    from store.orders.models import Order

    order = Order.objects.get()
    assert (order.tax_total, order.shipping_tax) == (Decimal(0), Decimal(0))
    assert all(item.tax == 0 for item in order.items.all())


# --- Stats, EU VAT rates, countries --------------------------------------------------------------


def test_stats(staff, greece):
    set_product_class(make_product(title="Book"), "reduced-rate")
    TaxRate.objects.filter(country="DE", tax_class__slug="reduced-rate").update(enabled=False)
    body = staff.get(f"{TAX}/stats").json()
    assert body["classes"] == 3
    assert body["rates"] == {
        "total": 4,
        "enabled": 3,
        "disabled": 1,
        "eu_vat": 0,
        "by_staff": 4,
        "worldwide": 0,
    }
    assert body["countries_with_rates"] == 2
    assert body["products_with_class"] == 1
    reduced = next(c for c in body["by_class"] if c["slug"] == "reduced-rate")
    assert (reduced["rates"], reduced["enabled_rates"], reduced["products"]) == (2, 1, 1)
    assert body["settings"]["eu_reverse_charge"] is False
    assert body["store_country"] == "GR"
    assert body["eu_vat_data"]["as_of"]


def test_eu_vat_rates(anon):
    body = anon.get(f"{TAX}/eu-vat-rates").json()
    assert body["as_of"]
    assert "eu-vat-rates-data" in body["source"]
    by_country = {entry["country"]: entry for entry in body["countries"]}
    assert len(by_country) == 27
    assert by_country["GR"]["standard"] == "24"
    assert by_country["GR"]["reduced"] == ["13", "6"]  # the islands' 17% left out
    assert by_country["DK"]["reduced"] == []
    assert by_country["FI"]["standard"] == "25.5"


def test_countries(anon, greece):
    make_rate(8, country="CH")
    body = anon.get(f"{TAX}/countries").json()["countries"]
    by_code = {c["code"]: c for c in body}
    assert len(by_code) == 28  # the 27 member states and Switzerland
    assert by_code["CH"] == {
        "code": "CH",
        "name": "Switzerland",
        "eu": False,
        "rates": 1,
        "enabled_rates": 1,
    }
    assert (by_code["GR"]["eu"], by_code["GR"]["rates"]) == (True, 2)
    assert by_code["SE"]["rates"] == 0
    assert [c["code"] for c in body] == sorted(by_code)
