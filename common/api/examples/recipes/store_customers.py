"""The customers' recipes (the staff's customer routes) and the demo customer's own account."""

from __future__ import annotations

import io
import json

from django.core.management import call_command

from common.api.examples.recipes.shared import demo_password
from common.api.examples.recipes.store_shared import ADDRESS, customer, recorded_id, store_prefix
from common.api.examples.recorder import ACTION, CREATE, UPDATE, Recipe, Recorder, RecordingError


def store_session(rec: Recorder) -> None:
    """A browser session of the demo customer, logged in at the checkout."""
    if "session" in rec.clients:
        return
    client = rec.client("anonymous")
    response = client.post(
        store_prefix(rec) + "/checkout/login",
        data=json.dumps({"email": "developer@example.com", "password": demo_password()}),
        content_type="application/json",
    )
    if response.status_code != 200:
        raise RecordingError(f"the checkout log-in answered {response.status_code}")
    rec.add_client("session", client)


def password_changer(rec: Recorder) -> None:
    """An account of its own for the password changes (no demo login's password changes)."""
    if "nikos" in rec.clients:
        return
    call_command(
        "createaccount",
        "sofia.antoniou@example.com",
        password="Blue-Harbour-77",  # noqa: S106 - an account of the throwaway database
        name="Sofia Antoniou",
        stdout=io.StringIO(),
    )
    rec.app_password("nikos", "sofia.antoniou@example.com")


CUSTOMER_RECIPES: dict[str, Recipe] = {
    # Customers.
    "customer_list_post": Recipe(
        body={
            "email": "katerina.vlachou@example.com",
            "first_name": "Katerina",
            "last_name": "Vlachou",
            "company": "Vlachou Interiors",
            "phone": "+30 2310 222 333",
            "note": "Wholesale enquiries.",
        }
    ),
    "customer_orders_get": Recipe(params={"customer_id": lambda rec, _p: customer(rec)}),
    "customer_profile_get": Recipe(params={"customer_id": lambda rec, _p: customer(rec)}),
    "customer_stats_get": Recipe(params={"customer_id": lambda rec, _p: customer(rec)}),
    "customer_top_products_get": Recipe(params={"customer_id": lambda rec, _p: customer(rec)}),
    "customer_spending_history_get": Recipe(params={"customer_id": lambda rec, _p: customer(rec)}),
    "customer_find_by_email_get": Recipe(query={"email": "developer@example.com"}),
    "customer_addresses_post": Recipe(
        params={"customer_id": lambda rec, _p: customer(rec)},
        body={
            **ADDRESS,
            "first_name": "Dev",
            "last_name": "Eloper",
            "type": "shipping",
            "is_default": True,
        },
    ),
    "customer_addresses_get": Recipe(
        phase=ACTION + 1, params={"customer_id": lambda rec, _p: customer(rec)}
    ),
    "address_detail_get": Recipe(
        phase=ACTION + 1, params={"address_id": recorded_id("customer_addresses_post")}
    ),
    "address_detail_put": Recipe(
        phase=ACTION + 2,
        params={"address_id": recorded_id("customer_addresses_post")},
        body={"address_2": "3rd floor", "phone": "+30 210 765 4321"},
    ),
    "address_detail_patch": Recipe(
        phase=ACTION + 2,
        params={"address_id": recorded_id("customer_addresses_post")},
        body={"company": "Eloper Web Studio"},
    ),
    "address_detail_delete": Recipe(params={"address_id": recorded_id("customer_addresses_post")}),
    "customer_detail_patch": Recipe(body={"note": "Prefers delivery after 17:00."}),
    # My account: the demo customer.
    "account_address_put": Recipe(params={"address_type": "billing"}, body=dict(ADDRESS)),
    "account_address_get": Recipe(phase=UPDATE + 1, params={"address_type": "billing"}),
    "account_details_put": Recipe(
        body={
            "first_name": "Dev",
            "last_name": "Eloper",
            "company": "Eloper Web Studio",
            "phone": "+30 210 765 4321",
        }
    ),
    "account_details_patch": Recipe(body={"phone": "+30 210 765 4321"}),
    "account_password_post": Recipe(
        actor="nikos",
        before=password_changer,
        body={"current_password": "Blue-Harbour-77", "new_password": "Blue-Harbour-78"},
        error={"body": {"current_password": "not-my-password", "new_password": "Blue-Harbour-79"}},
    ),
    "account_password_put": Recipe(
        actor="nikos",
        phase=CREATE + 2,
        body={"current_password": "Blue-Harbour-78", "new_password": "Blue-Harbour-79"},
        error={"body": {"current_password": "Blue-Harbour-78", "new_password": "123"}},
    ),
    "nonce_get": Recipe(actor="session", before=lambda rec: store_session(rec)),
}
