"""The store's one address (store.common.addresses): the value, the cleaner, the API field and
the admin's fields that orders, the checkout, the cart, the calculators and the customers all
use. The routes' own tests are tests/store/common/test_address_rule_api.py."""

import pytest
from django import forms
from rest_framework import serializers

from common.errors import ValidationFailed
from store.cart.api.serializers import ShippingAddressSerializer
from store.cart.services.shipping import clean_destination
from store.common.addresses import (
    ADDRESS_FIELDS,
    API_NAMES,
    DESTINATION_FIELDS,
    MAX_LENGTHS,
    REQUIRED_ADDRESS,
    Address,
    AddressSerializer,
    DestinationSerializer,
    address_clean,
    address_data,
    address_for_storing,
    address_form_fields,
    address_from_form,
    clean_subdivision,
)
from store.common.problems import Problems

FULL = {
    "first_name": " Ana ",
    "last_name": "Lee",
    "company": "",
    "address_1": "Ermou 12",
    "address_2": "",
    "city": "Athens",
    "state": "gr-i",
    "postcode": " 104 31 ",
    "country": "gr",
    "email": "Ana@Example.COM",
    "phone": "+30 210 000 0000",
}


# --- The value -----------------------------------------------------------------------------------


def test_the_keys_and_their_lengths_are_one_definition():
    assert ADDRESS_FIELDS == (
        "first_name",
        "last_name",
        "company",
        "address_1",
        "address_2",
        "city",
        "state",
        "postcode",
        "country",
        "email",
        "phone",
    )
    assert MAX_LENGTHS["state"] == 100  # a subdivision's name, or free text where none
    assert MAX_LENGTHS["postcode"] == 20
    assert "country" not in MAX_LENGTHS  # a code, checked by kind
    assert DESTINATION_FIELDS == ("country", "state", "postcode")


def test_an_address_is_stored_without_its_empty_keys_and_answered_with_all():
    address = Address.of({"city": "Athens", "country": "GR", "unknown": "x", "phone": None})
    assert address.stored() == {"city": "Athens", "country": "GR"}
    answer = address.answer()
    # Answered under the API names: the subdivision is `region` (stored as `state`).
    assert list(answer) == [API_NAMES.get(name, name) for name in ADDRESS_FIELDS]
    assert "region" in answer
    assert "state" not in answer
    assert answer["city"] == "Athens"
    assert answer["phone"] == ""
    assert address_data(None) == Address().answer()


def test_missing_keys_and_the_countries_without_postcodes():
    assert Address.of({"country": "GR"}).missing(REQUIRED_ADDRESS) == [
        "first_name",
        "last_name",
        "address_1",
        "city",
        "postcode",
    ]
    assert "postcode" not in Address.of({"country": "HK"}).missing(REQUIRED_ADDRESS)
    assert Address.of({}).missing(["phone"]) == ["phone"]


# --- The cleaner ---------------------------------------------------------------------------------


def test_the_cleaner_trims_and_normalises_every_key():
    cleaned, problems = address_clean(FULL)
    assert problems == {}
    assert cleaned == {
        **FULL,
        "first_name": "Ana",
        "state": "I",  # the ISO 3166-2 subdivision, without the country
        "postcode": "104 31",
        "country": "GR",
        "email": "ana@example.com",
    }


@pytest.mark.parametrize(
    ("data", "problems"),
    [
        (
            {"country": "XX"},
            {"country": ["Unknown country code 'XX' (ISO 3166-1 alpha-2, e.g. GR)."]},
        ),
        ({"country": "GR", "state": "Attica"}, {"state"}),
        ({"country": "GR", "state": "ZZ"}, {"state"}),
        ({"state": "I"}, {"country": ["Give the country of the region."]}),
        ({"country": "XX", "state": "I"}, {"country"}),  # the state is not checked then
        ({"postcode": "10431!"}, {"postcode"}),
        ({"postcode": "1" * 17}, {"postcode"}),
        ({"email": "nope"}, {"email": ["Enter a valid email address."]}),
        ({"city": 12}, {"city": ["Not a valid string."]}),
        ({"city": "x" * 101}, {"city": ["Ensure this field has no more than 100 characters."]}),
        ({"state": "x" * 101, "country": "FR"}, {"state"}),
        ({"state": "Crete", "country": "GR"}, {"state"}),  # an English name: not ISO 3166-2's
    ],
)
def test_the_cleaner_names_each_bad_key(data, problems):
    _cleaned, found = address_clean(data)
    if isinstance(problems, dict):
        assert found == problems
    else:
        assert set(found) == problems


def test_a_region_where_the_country_has_no_subdivisions_is_free_text():
    assert address_clean({"country": "HK", "state": " Kowloon Bay "})[0]["state"] == "Kowloon Bay"
    assert "state" in address_clean({"country": "HK", "state": "x" * 101})[1]


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("M", "M"),
        ("m", "M"),
        ("GR-M", "M"),
        (" gr-m ", "M"),
        ("Kríti", "M"),  # ISO 3166-2's name, any case
        ("KRÍTI", "M"),
        ("Kri\u0301ti", "M"),  # the accent as a combining mark
        ("69", "69"),  # Mount Athos
    ],
)
def test_a_region_is_stored_as_its_iso_code_without_the_country(sent, stored):
    assert address_clean({"country": "gr", "state": sent}) == (
        {"country": "GR", "state": stored},
        {},
    )
    assert clean_subdivision("GR", sent) == stored


def test_a_name_of_two_subdivisions_is_refused_and_a_code_wins_over_a_name():
    with pytest.raises(ValueError, match="several subdivisions of ES"):
        clean_subdivision("ES", "La Rioja")  # the community and the province
    assert clean_subdivision("ES", "ES-RI") == "RI"
    with pytest.raises(ValueError, match="GET /shipping/countries"):
        clean_subdivision("GR", "Crete")


def test_only_the_keys_asked_for_are_read_and_required_ones_must_be_filled():
    cleaned, problems = address_clean(
        {"country": "de", "city": "Berlin", "postcode": ""},
        keys=DESTINATION_FIELDS,
        required=("country", "postcode"),
    )
    assert cleaned == {"country": "DE", "postcode": ""}
    assert problems == {"postcode": ["Required."]}
    assert address_clean({}, required=("country",))[1] == {"country": ["Required."]}
    # A key that is already wrong is not also "Required.".
    assert address_clean({"country": "XX"}, required=("country",))[1]["country"] == [
        "Unknown country code 'XX' (ISO 3166-1 alpha-2, e.g. GR)."
    ]


def test_a_service_stores_the_non_empty_keys_and_names_problems_under_the_address():
    problems = Problems()
    stored = address_for_storing(
        {"city": " Athens ", "company": "", "country": "gr"}, name="billing", problems=problems
    )
    assert stored == {"city": "Athens", "country": "GR"}
    assert problems.errors == {}
    address_for_storing({"country": "XX", "email": "x"}, name="shipping", problems=problems)
    assert set(problems.errors) == {"shipping.country", "shipping.email"}
    address_for_storing({"country": "GR", "state": "ZZ"}, name="billing", problems=problems)
    assert "billing.state" in problems.errors  # named as the caller named it
    assert address_for_storing(None, name="billing", problems=Problems()) == {}


# --- The API field -------------------------------------------------------------------------------


def _validate(serializer_class, data):
    serializer = serializer_class(data=data)
    return (
        (True, dict(serializer.validated_data))
        if serializer.is_valid()
        else (
            False,
            serializer.errors,
        )
    )


def test_the_serializer_cleans_by_the_rule():
    ok, cleaned = _validate(AddressSerializer, FULL)
    assert ok
    assert cleaned == address_clean(FULL)[0]
    ok, errors = _validate(AddressSerializer, {"country": "xx", "state": "I", "city": None})
    assert not ok
    assert set(errors) == {"country", "city"}  # the field checks first: null is refused
    assert "Unknown country code" in str(errors["country"][0])
    ok, errors = _validate(AddressSerializer, {"country": "GR", "state": "Attica"})
    assert (ok, set(errors)) == (False, {"state"})  # named as sent
    ok, errors = _validate(AddressSerializer, {"country": "GR", "region": "Attica"})
    assert (ok, set(errors)) == (False, {"region"})


def test_the_serializer_takes_state_for_region_and_refuses_two_different_ones():
    assert _validate(AddressSerializer, {"country": "GR", "state": "M"}) == (
        True,
        {"country": "GR", "state": "M"},
    )
    assert _validate(AddressSerializer, {"country": "GR", "region": "GR-M"}) == (
        True,
        {"country": "GR", "state": "M"},
    )
    # The same subdivision under both names is one.
    ok, cleaned = _validate(AddressSerializer, {"country": "GR", "region": "M", "state": "Kríti"})
    assert (ok, cleaned) == (True, {"country": "GR", "state": "M"})
    ok, errors = _validate(AddressSerializer, {"country": "GR", "region": "M", "state": "I"})
    assert (ok, set(errors)) == (False, {"region"})
    assert "send one of them" in str(errors["region"][0])
    ok, errors = _validate(AddressSerializer, {"region": "M", "state": "I"})
    assert (ok, set(errors)) == (False, {"region"})


def test_the_serializer_refuses_unknown_keys_naming_each():
    ok, errors = _validate(
        AddressSerializer, {"country": "GR", "zip": "10431", "province": "M", "city": "Athens"}
    )
    assert (ok, set(errors)) == (False, {"zip", "province"})
    assert "region (or state)" in str(errors["zip"][0])
    # With other problems, every one is named at once.
    ok, errors = _validate(AddressSerializer, {"country": "XX", "zip": "1"})
    assert (ok, set(errors)) == (False, {"country", "zip"})


def test_the_declared_fields_answer_region_and_take_state_only_as_input():
    declared = AddressSerializer().fields
    assert [name for name, f in declared.items() if not f.write_only] == [
        API_NAMES.get(name, name) for name in ADDRESS_FIELDS
    ]
    assert declared["state"].write_only
    assert set(DestinationSerializer().fields) == {"country", "region", "state", "postcode"}


def test_the_carts_destination_is_the_destination_subset():
    ok, cleaned = _validate(
        ShippingAddressSerializer,
        {"country": "gr", "region": "GR-I", "postcode": None, "cart_id": "x"},
    )
    assert ok
    assert cleaned == {"country": "GR", "state": "I", "postcode": "", "cart_id": "x"}
    ok, errors = _validate(ShippingAddressSerializer, {"country": "GR", "region": "ZZ"})
    assert (ok, set(errors)) == (False, {"region"})  # named as the body names it
    ok, errors = _validate(ShippingAddressSerializer, {"region": "I"})
    assert (ok, set(errors)) == (False, {"country"})
    ok, errors = _validate(ShippingAddressSerializer, {"country": "GR", "city": "Athens"})
    assert (ok, set(errors)) == (False, {"city"})  # not part of a destination: refused
    assert set(ShippingAddressSerializer().fields) == {
        "country",
        "region",
        "state",
        "postcode",
        "cart_id",
    }


def test_the_carts_service_cleans_its_destination_with_the_same_cleaner():
    assert clean_destination(country=" gr ", region="gr-i", postcode=" 104 31") == {
        "shipping_country": "GR",
        "shipping_region": "I",
        "shipping_postcode": "104 31",
    }
    with pytest.raises(ValidationFailed) as caught:
        clean_destination(country="GR", region="Attica", postcode="!")
    assert set(caught.value.errors) == {"region", "postcode"}
    with pytest.raises(ValidationFailed) as caught:
        clean_destination(country=None, region=None, postcode=None)
    assert caught.value.errors == {"country": ["Required."]}


def test_nested_addresses_keep_their_own_required_flag():
    class Body(serializers.Serializer):
        billing = AddressSerializer(required=False)

    assert Body(data={}).is_valid()
    body = Body(data={"billing": {"country": "gr"}})
    assert body.is_valid(), body.errors
    assert body.validated_data["billing"] == {"country": "GR"}


# --- The admin's fields --------------------------------------------------------------------------


def test_the_admin_fields_are_cleaned_by_the_same_rule():
    Form = type("Form", (forms.Form,), address_form_fields("billing"))
    form = Form(data={"billing_country": "GR", "billing_state": "GR-I", "billing_city": "Athens"})
    assert form.is_valid(), form.errors
    assert address_from_form(form, "billing") == {"country": "GR", "state": "I", "city": "Athens"}
    form = Form(data={"billing_country": "GR", "billing_state": "Attica"})
    assert form.is_valid()
    address_from_form(form, "billing")
    assert "billing_state" in form.errors
    assert Form().fields["billing_state"].max_length == 100
