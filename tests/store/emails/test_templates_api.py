"""/emails/templates and /emails/templates/{type}: read, change, reset; the sandbox."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from store.emails.models import EmailTemplate
from store.settings.models import SettingsSection
from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, error, grant
from tests.store.emails.helpers import (
    ACCOUNT_TYPES,
    ALL_TYPES,
    TEMPLATES,
    csrf_client,
    send,
)

pytestmark = pytest.mark.django_db

CONFIRMATION = f"{TEMPLATES}/order_confirmation"


def stored(slug: str = "order_confirmation") -> tuple[str, str, str]:
    row = EmailTemplate.objects.filter(type=slug).first()
    return (row.subject, row.body_html, row.body_text) if row else ("", "", "")


def test_the_list_names_every_type_with_its_state_and_variables(
    staff, django_assert_max_num_queries
):
    with django_assert_max_num_queries(6):
        response = staff.get(TEMPLATES)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["total"] == len(ALL_TYPES) == len(body["templates"])
    assert [t["type"] for t in body["templates"]] == ALL_TYPES
    first = body["templates"][0]
    assert first["subject"].startswith("{% if payment.paid %}Your {{ store.name }} order")
    assert (first["enabled"], first["customised"], first["can_disable"]) == (True, False, True)
    assert first["recipient"] == "customer"
    names = {v["name"] for v in first["variables"]}
    assert {"order.number", "order.items", "order.url", "payment.instructions"} <= names
    account = {t["type"]: t for t in body["templates"]}["customer_password_reset"]
    assert {v["name"] for v in account["variables"]} >= {"link", "token", "account.email"}
    assert (account["about_order"], account["can_disable"]) == (False, False)


def test_the_list_costs_the_same_with_every_type_customised(staff, django_assert_max_num_queries):
    for slug in ALL_TYPES:
        assert staff.patch(f"{TEMPLATES}/{slug}", {"subject": f"S {slug}"}).status_code == 200
    with django_assert_max_num_queries(6):
        body = staff.get(TEMPLATES).json()
    assert all(t["customised"] for t in body["templates"])
    assert body["templates"][1]["subject"] == "S new_order"


def test_read_one_template(staff):
    body = staff.get(CONFIRMATION).json()
    assert body["type"] == "order_confirmation"
    assert "{% for item in order.items %}" in body["body_html"]
    assert "Your order, at any time: {{ order.url }}" in body["body_text"]
    assert body["customised_parts"] == {"subject": False, "body_html": False, "body_text": False}
    assert body["defaults"]["body_html"] == body["body_html"]
    assert body["updated_at"] is None


def test_change_some_parts_and_reset(staff, mail_manager):
    response = staff.patch(
        CONFIRMATION,
        {"subject": "Order {{ order.number }} at {{ store.name }}", "body_html": "<p>Hi</p>"},
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["subject"] == "Order {{ order.number }} at {{ store.name }}"
    assert body["customised_parts"] == {"subject": True, "body_html": True, "body_text": False}
    assert body["customised"] is True
    assert body["updated_at"] is not None
    assert body["defaults"]["subject"] != body["subject"]
    assert EmailTemplate.objects.get(type="order_confirmation").updated_by == mail_manager
    # PUT is the same partial update; null is the default again.
    response = staff.put(CONFIRMATION, {"subject": None, "body_text": "Plain {{ order.total }}"})
    assert response.status_code == 200, response.content
    assert stored() == ("", "<p>Hi</p>", "Plain {{ order.total }}")
    # DELETE resets every part.
    response = staff.delete(CONFIRMATION)
    assert response.status_code == 204
    assert stored() == ("", "", "")
    assert staff.get(CONFIRMATION).json()["customised"] is False


def test_enabled_switches_the_type_through_the_settings(staff):
    response = staff.patch(f"{TEMPLATES}/order_completed", {"enabled": False})
    assert response.status_code == 200, response.content
    assert response.json()["enabled"] is False
    assert SettingsSection.objects.get(name="emails").values["disabled_types"] == [
        "order_completed"
    ]
    assert staff.patch(f"{TEMPLATES}/order_completed", {"enabled": True}).json()["enabled"]
    for slug in ACCOUNT_TYPES:
        error(staff.patch(f"{TEMPLATES}/{slug}", {"enabled": False}), 400, "email_type_required")
    assert SettingsSection.objects.get(name="emails").values["disabled_types"] == []


@pytest.mark.parametrize(
    ("part", "source", "words"),
    [
        ("body_html", "{% for item in order.items %}", "Syntax error on line 1"),
        ("subject", "{{ order.number ", "Syntax error"),
        ("body_text", "{{ ordr.number }}", "Unknown variable(s): ordr"),
        ("body_text", "{{ order.numbr }}", "no attribute 'numbr'"),
        ("body_html", "{{ order.__class__ }}", "Not allowed"),
        ("body_html", "{{ ''.__class__.__mro__ }}", "Not allowed"),
        ("body_html", "{{ order.items.__class__.__base__.__subclasses__() }}", "Not allowed"),
        ("body_text", "{{ order.number.upper() }}", "Not allowed"),
        ("body_text", "{{ '{0.__class__}'.format(order) }}", "Not allowed"),
        ("body_text", "{{ order.items.append(1) }}", "Not allowed"),
        ("body_text", "{{ order|attr('__class__') }}", "No filter named 'attr'"),
        ("body_text", "{{ range(10) }}", "Unknown variable(s): range"),
        ("body_text", "{{ lipsum() }}", "Unknown variable(s): lipsum"),
        ("body_text", "{{ config }}", "Unknown variable(s): config"),
        ("body_text", "{{ 'x' * 100000000 }}", "too long"),
        ("body_text", "{{ 2 ** 1000 }}", "powers are limited"),
        ("body_text", "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", "macros"),
        ("body_text", "{% include 'admin/base.html' %}", "include"),
        ("body_text", "{% extends 'admin/base.html' %}", "extends"),
        ("body_text", "{% import 'x' as y %}", "import"),
        (
            "body_text",
            "{% for a in order.items %}{% for b in order.items %}{% for c in order.items %}"
            "{% endfor %}{% endfor %}{% endfor %}",
            "Loops nest at most 2 deep",
        ),
        ("body_text", "{% for a in order.items recursive %}{{ loop(a) }}{% endfor %}", "recursive"),
        ("body_text", "{{ order.number|replace('', 'x' * 200000) }}", "too long"),
        (
            "subject",
            "{% for i in order.items %}{{ order.customer_note }}{% endfor %}" * 40,
            "longer",
        ),
        ("body_text", "{{ account.email }}", "Unknown variable(s): account"),
    ],
)
def test_a_bad_template_is_refused_naming_the_problem(staff, part, source, words):
    body = error(staff.patch(CONFIRMATION, {part: source}), 400, "invalid_template")
    assert words in body["data"]["params"][part], body
    assert stored() == ("", "", "")


def test_every_bad_part_is_named_and_nothing_is_saved(staff):
    body = error(
        staff.patch(
            CONFIRMATION,
            {"subject": "{{ x }}", "body_html": "<p>{{ order.number }}</p>", "enabled": False},
        ),
        400,
        "invalid_template",
    )
    assert set(body["data"]["params"]) == {"subject"}
    assert stored() == ("", "", "")
    assert staff.get(CONFIRMATION).json()["enabled"] is True


def test_account_templates_know_their_own_variables(staff):
    path = f"{TEMPLATES}/customer_password_reset"
    ok = staff.patch(path, {"body_text": "{{ account.name }}: {{ link }} ({{ lifetime }})"})
    assert ok.status_code == 200, ok.content
    body = error(staff.patch(path, {"body_text": "{{ order.number }}"}), 400, "invalid_template")
    assert "Unknown variable(s): order" in body["data"]["params"]["body_text"]


def test_html_bodies_are_autoescaped_and_safe_is_not_offered(staff):
    error(staff.patch(CONFIRMATION, {"body_html": "{{ order.customer_note|safe }}"}), 400)
    response = staff.post(
        f"{CONFIRMATION}/preview", {"body_html": "<p>{{ order.billing_address.first_name }}</p>"}
    )
    assert response.status_code == 200, response.content
    assert "<p>Ana</p>" in response.json()["html"]


@pytest.mark.parametrize(
    "body",
    [
        ["subject"],
        "subject",
        {"subject": 12},
        {"subject": ["a"]},
        {"subject": {"a": 1}},
        {"subject": "a\x00b"},
        {"enabled": "yes"},
        {"enabled": 1},
        {"body_html": "x" * 100_001},
    ],
)
def test_malformed_bodies_are_400(staff, body):
    response = staff.patch(CONFIRMATION, body, format="json")
    assert response.status_code == 400, response.content
    assert stored() == ("", "", "")


def test_a_raw_lone_surrogate_and_a_nul_in_the_json_are_400(staff):
    for raw in (b'{"subject": "\\ud800"}', b'{"subject": "a\\u0000"}', b'{"subject": '):
        response = staff.generic("PATCH", CONFIRMATION, raw, content_type="application/json")
        assert response.status_code == 400, (raw, response.content)
    assert stored() == ("", "", "")


@pytest.mark.parametrize("path", ["nope", "order-confirmation", "ORDER_CONFIRMATION", "x" * 80])
def test_unknown_types_are_404(staff, path):
    response = staff.get(f"{TEMPLATES}/{path}")
    assert response.status_code == 404
    assert response.json()["code"] in {"email_type_not_found", "no_route"}
    assert staff.patch(f"{TEMPLATES}/{path}", {"subject": "x"}).status_code == 404
    assert staff.delete(f"{TEMPLATES}/{path}").status_code == 404


def test_who_may_read_and_change_templates(anon, customer_client, manager_client, admin_client_api):
    error(anon.get(TEMPLATES), 401)
    error(anon.patch(CONFIRMATION, {"subject": "x"}), 401)
    for client in (customer_client, manager_client):  # a shop manager lacks ec_manage_emails
        error(client.get(TEMPLATES), 403, "insufficient_capability")
        error(client.get(CONFIRMATION), 403, "insufficient_capability")
        error(client.patch(CONFIRMATION, {"subject": "x"}), 403, "insufficient_capability")
        error(client.delete(CONFIRMATION), 403, "insufficient_capability")
    assert stored() == ("", "", "")
    # manage_options holds every capability.
    assert admin_client_api.patch(CONFIRMATION, {"subject": "x"}).status_code == 200
    settings_admin = grant(UserFactory(email="set@example.com"), "ec_manage_settings")
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=basic_auth(settings_admin))
    error(other.get(TEMPLATES), 403, "insufficient_capability")


def test_a_browser_session_needs_the_nonce_for_unsafe_methods(mail_manager):
    browser = csrf_client()
    browser.force_login(mail_manager)
    assert browser.get(TEMPLATES).status_code == 401  # a cookie alone is not enough
    for method in ("patch", "put", "delete"):
        response = send(browser, method, CONFIRMATION, {"subject": "x"})
        assert response.status_code in (401, 403), (method, response.content)
    assert stored() == ("", "", "")
    nonce = browser.get(f"{TEMPLATES[: TEMPLATES.index('/emails')]}/auth/nonce").json()["nonce"]
    ok = send(browser, "patch", CONFIRMATION, {"subject": "x"}, **{"X-Platform-Nonce": nonce})
    assert ok.status_code == 200, ok.content
    assert stored()[0] == "x"
