"""The store's one address rule, checked the same way on every route that takes an address
(store.common.addresses): `check_route` runs the cases against a `Route`.

- `region` is answered; `state` is taken for it (the code, with or without the country, or
  the subdivision's name, is stored and answered as the ISO 3166-2 code without the country);
- `region` and `state` naming different subdivisions, a subdivision the country does not
  have, a key an address does not have and a country that does not exist are refused with 400
  `invalid_param` naming the field, and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from store.cart.models import Cart
from store.checkout.models import Checkout
from store.customers.models import Customer, CustomerAddress
from store.orders.models import Order
from tests.fixtures.store import error

# Heraklion, Crete: the region is GR-M (Kríti in ISO 3166-2).
FULL = {
    "first_name": "Eleni",
    "last_name": "Markaki",
    "address_1": "25is Avgoustou 10",
    "city": "Heraklion",
    "postcode": "71202",
    "country": "GR",
}
DESTINATION = {"country": "GR", "postcode": "71202"}

# Spellings of Crete that are taken, each stored and answered as M.
TAKEN = (
    {"region": "M"},
    {"state": "M"},
    {"state": "GR-M"},
    {"region": "gr-m"},
    {"region": "Kríti"},
    {"state": "KRÍTI"},
    {"region": "M", "state": "gr-m"},  # the same subdivision under both names
)


@dataclass(frozen=True)
class Route:
    name: str
    # Sends the address (the rest of the route's body built around it).
    send: Callable[[dict], object]
    # The address as the answer shows it.
    answered: Callable[[object], dict]
    # How the answer's `data.params` names the address's keys ("billing_address.", "").
    prefix: str = ""
    # A destination (the cart's address, the calculators) takes country, region, postcode.
    destination: bool = False
    # The name a bad `state` is refused under: as sent, except where the service cleans the
    # keys over the stored address (a partial update), which names the field `region`.
    bad_state_named: str = "state"


def stored() -> tuple:
    """Every address the store keeps, and the rows that keep them."""
    return (
        list(
            Cart.objects.order_by("pk").values_list(
                "shipping_country", "shipping_region", "shipping_postcode"
            )
        ),
        list(Checkout.objects.order_by("pk").values_list("billing_address", "shipping_address")),
        list(Order.objects.order_by("pk").values_list("billing_address", "shipping_address")),
        list(CustomerAddress.objects.order_by("pk").values_list("type", "is_default", "address")),
        Customer.objects.count(),
    )


def refusals(route: Route) -> list[tuple[dict, str]]:
    return [
        ({"region": "M", "state": "I"}, "region"),  # Crete and Attica
        ({"region": "Crete"}, "region"),  # not ISO 3166-2's name
        ({"state": "ZZ"}, route.bad_state_named),
        ({"zip": "71202"}, "zip"),
        ({"province": "M"}, "province"),
        ({"country": "XX"}, "country"),
    ]


def check_route(route: Route) -> None:
    base = DESTINATION if route.destination else FULL
    before = stored()
    for sent, named in refusals(route):
        body = error(route.send({**base, **sent}), 400, "invalid_param")
        assert set(body["data"]["params"]) == {route.prefix + named}, (route.name, sent, body)
        assert stored() == before, (route.name, sent)
    for sent in TAKEN:
        response = route.send({**base, **sent})
        assert response.status_code in (200, 201), (route.name, sent, response.content)
        answered = route.answered(response)
        assert answered["region"] == "M", (route.name, sent, answered)
        assert "state" not in answered, (route.name, answered)
        assert answered["country"] == "GR"
