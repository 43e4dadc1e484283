"""The store's shared kernel (store.common): the problems collector, output formats, strict
input fields, money guards, the nonce answer and the cart-session routes' base; each written
once and used by every sub-app."""

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from django.urls import get_resolver
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from common.errors import ValidationFailed
from store.common import nonce as nonces
from store.common.accounts import logged_in
from store.common.cart_session import CART_COOKIE, CART_HEADER
from store.common.formats import decimal_str, iso
from store.common.money import MoneyField, parse_money
from store.common.params import AliasedSerializer, IdListField, NumberField, StrictDecimalField
from store.common.problems import Problems
from store.common.views import CartSessionView
from store.shipping.calculation import weight_brackets

# --- Problems -----------------------------------------------------------------------------------


def test_problems_refuse_once_naming_every_parameter():
    problems = Problems()
    problems.raise_if_any()  # nothing collected: no refusal
    problems.add("sku", "Taken.", code="duplicate_sku")
    problems.add("sale_price", "Too high.")
    problems.add("sku", "Also too long.", code="invalid_barcode")
    with pytest.raises(ValidationFailed) as caught:
        problems.raise_if_any()
    assert caught.value.code == "duplicate_sku"  # the first code given wins
    assert caught.value.errors == {"sku": ["Taken.", "Also too long."], "sale_price": ["Too high."]}


def test_problems_of_a_part_are_named_under_its_prefix():
    problems = Problems()
    problems.extend({"country": ["Unknown."], "postcode": ["Bad.", "Long."]}, prefix="billing")
    problems.extend({"email": ["Bad."]})
    assert problems.errors == {
        "billing.country": ["Unknown."],
        "billing.postcode": ["Bad.", "Long."],
        "email": ["Bad."],
    }
    assert problems.code == "invalid_param"


# --- Formats ------------------------------------------------------------------------------------


def test_iso_is_utc_with_a_z_as_drf_writes_it():
    athens = timezone(timedelta(hours=3))
    moment = datetime(2025, 6, 1, 15, 30, tzinfo=athens)
    assert iso(moment) == "2025-06-01T12:30:00Z"
    assert iso(moment) == serializers.DateTimeField().to_representation(moment)
    with_micro = datetime(2025, 1, 2, 3, 4, 5, 678, tzinfo=UTC)
    assert iso(with_micro) == "2025-01-02T03:04:05.000678Z"
    assert iso(with_micro) == serializers.DateTimeField().to_representation(with_micro)
    assert iso(None) is None


def test_decimal_str_never_writes_an_exponent():
    assert decimal_str(Decimal("1.250")) == "1.250"
    assert decimal_str(Decimal("1E+2")) == "100"
    assert decimal_str(None) is None


# --- Strict input fields ------------------------------------------------------------------------


def _run(field, value):
    try:
        return True, field.run_validation(value)
    except serializers.ValidationError as exc:
        return False, exc.detail


@pytest.mark.parametrize("field_class", [NumberField, MoneyField])
@pytest.mark.parametrize("value", [True, False, -1, "-0.01", "abc", "NaN", "Infinity"])
def test_decimal_fields_refuse_booleans_negatives_and_non_numbers(field_class, value):
    assert _run(field_class(), value)[0] is False


def test_decimal_fields_take_numbers_and_decimal_strings():
    assert _run(NumberField(), 0.1) == (True, Decimal("0.100"))  # the float's shortest repr
    assert _run(NumberField(), "2.5") == (True, Decimal("2.500"))
    assert _run(NumberField(), None) == (True, None)
    assert _run(NumberField(), "1.2345")[0] is False  # three places at most
    assert _run(MoneyField(), 19.99) == (True, Decimal("19.99"))
    assert _run(MoneyField(), "19.999")[0] is False  # two places at most
    assert _run(MoneyField(), "10000000000")[0] is False  # twelve digits at most
    assert _run(StrictDecimalField(max_digits=5, decimal_places=1, min_value=-10), -3) == (
        True,
        Decimal("-3.0"),
    )


def test_an_id_list_holds_row_ids():
    assert _run(IdListField(), [1, "2"]) == (True, [1, 2])
    for bad in ([0], [True], [2**63], ["x"], list(range(1, 502))):
        assert _run(IdListField(), bad)[0] is False, bad


# --- Money guards -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "amount"),
    [("4", "4.00"), (4, "4.00"), ("4.5", "4.50"), (0.1, "0.10"), (" 7.25 ", "7.25"), ("0", "0.00")],
)
def test_parse_money_takes_json_numbers_and_decimal_strings(value, amount):
    assert parse_money(value) == Decimal(amount)


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("-1", "is negative"),
        ("1.005", "has more than 2 decimal places"),
        ("1e30", "has more than 10 digits before the point"),
        ("10000000000", "has more than 10 digits before the point"),
        ("abc", "is not a number"),
        ("NaN", "is not a number"),
        ("inf", "is not a number"),
        (True, "is not a number"),
        (None, "is not a number"),
        ([1], "is not a number"),
    ],
)
def test_parse_money_says_what_is_wrong(value, why):
    with pytest.raises(ValueError, match=why):
        parse_money(value)


def test_weight_brackets_check_their_cost_with_the_money_guard():
    assert weight_brackets([{"max_weight": "2", "cost": 4}]) == [(Decimal(2), 400)]
    for cost, why in (("-1", "is negative"), ("1.005", "decimal places"), ("1e30", "digits")):
        with pytest.raises(ValueError, match=f"Bracket 1: the cost .*{why}"):
            weight_brackets([{"max_weight": "2", "cost": cost}])
    with pytest.raises(ValueError, match="Bracket 1: max_weight is above 0"):
        weight_brackets([{"max_weight": "0", "cost": "1"}])


# --- The nonce answer ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_nonce_answer_names_the_header_the_time_left_and_the_account(manager):
    request = RequestFactory().get("/")
    request.user = manager
    request.session = type("Session", (), {"session_key": "k" * 32})()
    answer = nonces.nonce_answer(request)
    assert answer == {
        "nonce": nonces.create_nonce(request),
        "header": "X-Platform-Nonce",
        "expires_in": answer["expires_in"],
        "user": {"id": manager.pk, "email": manager.email, "name": manager.name},
    }
    assert len(answer["nonce"]) == 32
    assert 0 < answer["expires_in"] <= nonces.TICK_SECONDS


def test_a_nonce_is_valid_until_its_tick_ends():
    start = 1_000 * nonces.TICK_SECONDS
    assert nonces.expires_in(start) == nonces.TICK_SECONDS
    assert nonces.expires_in(start + 60) == nonces.TICK_SECONDS - 60
    assert nonces.expires_in(start + nonces.TICK_SECONDS - 1) == 1


# --- The cart-session routes --------------------------------------------------------------------


def test_the_cart_coupon_and_checkout_routes_share_the_session_base():
    session_routes = set()
    for pattern in get_resolver().reverse_dict:
        view_class = getattr(pattern, "view_class", None)
        if view_class is not None and issubclass(view_class, CartSessionView):
            session_routes.add(view_class.__module__)
    assert session_routes == {
        "store.cart.api.views.cart",
        "store.cart.api.views.coupons",
        "store.checkout.api.views",
        "store.payments.api.views",  # GET /payment/methods reads the shopper's cart
        "theme.storefront.api.views",  # the theme's /cart/totals and the guest wishlist
        # the theme modules' session routes, one app each
        "theme.modules.recently_viewed.api.views",
        "theme.modules.promotions.api.views",  # the promotions of the cart
        "theme.modules.recover_cart.api.views",
    }


def test_a_session_answer_is_not_stored_and_hands_out_a_new_carts_token():
    view = CartSessionView()
    cart = SimpleNamespace(token="t" * 43)
    factory = APIRequestFactory()
    request = Request(factory.get("/"))
    response = view.answer(request, cart, {"ok": True}, status=201)
    assert (response.status_code, response.data, response["Cache-Control"]) == (
        201,
        {"ok": True},
        "no-store",
    )
    assert response[CART_HEADER] == cart.token
    assert response.cookies[CART_COOKIE].value == cart.token
    assert response.cookies[CART_COOKIE]["httponly"] is True
    with_cookie = factory.get("/")
    with_cookie.COOKIES[CART_COOKIE] = cart.token
    response = view.answer(Request(with_cookie), cart, {})
    assert not response.has_header(CART_HEADER)
    assert CART_COOKIE not in response.cookies
    assert not view.answer(request, None, {}).has_header(CART_HEADER)


def test_an_aliased_body_takes_either_name_and_its_own_wins():
    class Body(AliasedSerializer):
        aliases = {"note": "customer_note"}

        customer_note = serializers.CharField(required=False)

    def validated(data):
        body = Body(data=data)
        assert body.is_valid(), body.errors
        return dict(body.validated_data)

    assert validated({"note": "Hi"}) == {"customer_note": "Hi"}
    assert validated({"customer_note": "Own", "note": "Alias"}) == {"customer_note": "Own"}
    assert validated({}) == {}


def test_logged_in_is_the_account_or_none():
    account = SimpleNamespace(is_authenticated=True)
    assert logged_in(account) is account
    assert logged_in(AnonymousUser()) is None
    assert logged_in(None) is None
