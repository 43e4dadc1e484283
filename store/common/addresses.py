"""The store's one address: its keys, what each accepts, how it is cleaned, checked for
completeness, answered, declared and edited.

Orders, the checkout, the cart and the customers' saved addresses use this and nothing else:
- `Address`, the value: eleven text keys, each with its label and longest length; stored as a
  JSON object of its non-empty keys (a missing key reads as "");
- `address_clean`, the one cleaner: text trimmed, lengths, the country an ISO 3166-1 alpha-2
  code (django-countries), the state its ISO 3166-2 subdivision code without the country
  prefix (pycountry; `GR-I` and `i` are stored as `I`), the postcode's letters, digits, spaces
  and dashes, the e-mail address checked and lower-cased; which keys it reads and which are
  required are parameters (the cart's destination is the country, state and postcode only);
- `AddressSerializer`, the one API field (the orders' and the checkout's bodies and answers;
  the cart's destination is a subset of it);
- `address_form_fields`/`address_from_form`, the admin's fields, cleaned by the same cleaner.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django_countries import countries
from rest_framework import serializers

from accounts.models import normalize_email
from store.common.locations import clean_country, clean_postcode, clean_region
from store.common.params import CaseInsensitiveChoiceField
from store.common.problems import Problems


def _key(label: str, max_length: int | None = None, help_text: str = ""):
    return field(
        default="", metadata={"label": label, "max_length": max_length, "help_text": help_text}
    )


@dataclass(frozen=True)
class Address:
    """An address as the store keeps it: every key a string, "" when not given."""

    first_name: str = _key("First name", 100)
    last_name: str = _key("Last name", 100)
    company: str = _key("Company", 200)
    address_1: str = _key("Address line 1", 255)
    address_2: str = _key("Address line 2", 255)
    city: str = _key("City", 100)
    state: str = _key(
        "State or region",
        20,
        "ISO 3166-2 subdivision code, with or without the country (I or GR-I).",
    )
    postcode: str = _key("Postcode", 20, "Letters, digits, spaces and dashes (up to 16).")
    country: str = _key("Country", help_text="ISO 3166-1 alpha-2, e.g. GR.")
    email: str = _key("E-mail", 254)
    phone: str = _key("Phone", 40)

    @classmethod
    def of(cls, stored: dict | None) -> Address:
        """The stored JSON object as an Address (unknown keys left out, missing ones "")."""
        stored = stored or {}
        return cls(**{name: str(stored.get(name) or "") for name in ADDRESS_FIELDS})

    def answer(self) -> dict:
        """Every key, as the API answers an address."""
        return {name: getattr(self, name) for name in ADDRESS_FIELDS}

    def stored(self) -> dict:
        """The non-empty keys, as an address is stored."""
        return {name: value for name, value in self.answer().items() if value}

    def missing(self, required: Iterable[str]) -> list[str]:
        """The required keys left empty; a postcode is not required where the country has
        none."""
        return [
            name
            for name in required
            if not getattr(self, name) and not (name == "postcode" and self.country in NO_POSTCODE)
        ]


ADDRESS_FIELDS = tuple(f.name for f in fields(Address))
LABELS = {f.name: f.metadata["label"] for f in fields(Address)}
MAX_LENGTHS = {
    f.name: f.metadata["max_length"] for f in fields(Address) if f.metadata["max_length"]
}
# What an order's address needs at the checkout (and the phone when the store asks for it).
REQUIRED_ADDRESS = ("first_name", "last_name", "address_1", "city", "postcode", "country")
# Where a cart ships to: enough to pick a shipping zone and a tax rate.
DESTINATION_FIELDS = ("country", "state", "postcode")
# Countries without postcodes (UPU): a postcode is not required there.
NO_POSTCODE = frozenset(
    (  # noqa: SIM905 - a list of 62 quoted codes would be harder to read
        "AE AG AO AW BF BI BJ BO BS BW BZ CD CF CG CI CK CM DJ DM ER FJ GA GD GH GM GQ "
        "GY HK JM KI KM KN KP LC ML MO MR MS MW NR NU QA RW SB SC SL SR ST SY TD TF TG "
        "TK TL TO TT TV TZ UG VU YE ZW"
    ).split()
)
REQUIRED = "Required."


def address_data(stored: dict | None) -> dict:
    """A stored address as the API answers it (every key)."""
    return Address.of(stored).answer()


# --- The cleaner ---------------------------------------------------------------------------------


def _clean_text(name: str, value) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError("Not a valid string.")
    text = value.strip()
    limit = MAX_LENGTHS.get(name)
    if limit is not None and len(text) > limit:
        raise ValueError(f"Ensure this field has no more than {limit} characters.")
    if name == "country":
        return clean_country(text)
    if name == "postcode":
        return clean_postcode(text)
    if name == "email" and text:
        try:
            validate_email(text)
        except ValidationError:
            raise ValueError("Enter a valid email address.") from None
        return normalize_email(text)
    return text


def address_clean(
    data: dict | None, *, keys: Iterable[str] = ADDRESS_FIELDS, required: Iterable[str] = ()
) -> tuple[dict, dict[str, list[str]]]:
    """(the address cleaned, the problems of each key): only `keys` are read and only those
    sent are answered (other keys are left out); `required` keys must not be empty. A state
    needs its country; it is checked against the country's subdivisions."""
    data = data or {}
    keys = tuple(keys)
    cleaned: dict = {}
    problems: dict[str, list[str]] = {}
    for name in keys:
        if name not in data:
            continue
        try:
            cleaned[name] = _clean_text(name, data[name])
        except ValueError as exc:
            problems[name] = [str(exc)]
    state = cleaned.get("state")
    if state:
        country = cleaned.get("country", "")
        if "country" in problems:
            pass  # the state cannot be checked without a known country
        elif not country:
            problems.setdefault("country", []).append("Give the country of the state.")
        else:
            try:
                cleaned["state"] = clean_region(country, state)
            except ValueError as exc:
                problems["state"] = [str(exc)]
    for name in Address.of(cleaned).missing(required):
        if name not in problems:
            problems[name] = [REQUIRED]
    return cleaned, problems


def address_for_storing(data: dict | None, *, name: str, problems: Problems) -> dict:
    """A whole address cleaned for storing (its non-empty keys), for a service: each problem
    goes into `problems` named `<name>.<key>` (the service refuses once, naming them all)."""
    cleaned, errors = address_clean(data)
    problems.extend(errors, prefix=name)
    return Address.of(cleaned).stored()


# --- The API field -------------------------------------------------------------------------------


class CountryField(CaseInsensitiveChoiceField):
    """An ISO 3166-1 alpha-2 code, any case, blanks around it ignored (answered upper-case)."""

    default_error_messages = {
        "invalid_choice": 'Unknown country code "{input}" (ISO 3166-1 alpha-2, e.g. GR).'
    }

    def __init__(self, **kwargs):
        kwargs.setdefault(
            "help_text", Address.__dataclass_fields__["country"].metadata["help_text"]
        )
        super().__init__(choices=[code for code, _name in countries], **kwargs)

    def to_internal_value(self, data):
        return super().to_internal_value(data.strip() if isinstance(data, str) else data)


def _api_field(name: str, *, required: bool, allow_null: bool) -> serializers.Field:
    meta = Address.__dataclass_fields__[name].metadata
    options = {"required": required, "allow_blank": not required, "allow_null": allow_null}
    if meta["help_text"]:
        options["help_text"] = meta["help_text"]
    if name == "country":
        return CountryField(**options)
    if name == "email":
        return serializers.EmailField(max_length=meta["max_length"], **options)
    return serializers.CharField(max_length=meta["max_length"], **options)


# An address, cleaned by the address rule (`address_clean`); every key optional. A subset names
# its `address_keys`, the `required_keys`, the `nullable_keys` (null reads as empty) and
# `param_names`, the name a key has in the body when it is not its own (the cart's `region` is
# the address's `state`); other fields declared on a subclass are kept as they are. (Comments,
# not a docstring: the OpenAPI description would show a docstring.)
class AddressSerializer(serializers.Serializer):
    address_keys: tuple[str, ...] = ADDRESS_FIELDS
    required_keys: tuple[str, ...] = ()
    nullable_keys: tuple[str, ...] = ()
    param_names: dict[str, str] = {}

    def get_fields(self):
        declared = super().get_fields()
        out = {}
        for name in self.address_keys:
            api_field = _api_field(
                name, required=name in self.required_keys, allow_null=name in self.nullable_keys
            )
            param = self.param_names.get(name, name)
            if param != name:
                api_field.source = name
            out[param] = api_field
        return {**out, **declared}

    def validate(self, attrs):
        keys = self.address_keys
        address = {name: attrs[name] for name in keys if name in attrs}
        cleaned, problems = address_clean(address, keys=keys, required=self.required_keys)
        if problems:
            raise serializers.ValidationError(
                {self.param_names.get(name, name): messages for name, messages in problems.items()}
            )
        return {**{k: v for k, v in attrs.items() if k not in keys}, **cleaned}


# --- The admin's fields --------------------------------------------------------------------------


def address_form_fields(prefix: str) -> dict[str, forms.Field]:
    """An address as form fields named `<prefix>_<key>` (text with its limit, the country as a
    choice of ISO 3166-1 countries, the e-mail checked as one), all optional."""
    out: dict[str, forms.Field] = {}
    for name in ADDRESS_FIELDS:
        label = LABELS[name]
        if name == "country":
            form_field = forms.ChoiceField(
                label=label, choices=[("", "—"), *countries], required=False
            )
        elif name == "email":
            form_field = forms.EmailField(label=label, max_length=MAX_LENGTHS[name], required=False)
        else:
            form_field = forms.CharField(label=label, max_length=MAX_LENGTHS[name], required=False)
        out[f"{prefix}_{name}"] = form_field
    return out


def address_from_form(form: forms.BaseForm, prefix: str) -> dict:
    """Clean the `<prefix>_*` fields of a validated form by the address rule (problems are
    added to the form's fields); answers the address as stored (its non-empty keys)."""
    raw = {name: form.cleaned_data.get(f"{prefix}_{name}") for name in ADDRESS_FIELDS}
    cleaned, problems = address_clean({k: v for k, v in raw.items() if v is not None})
    for name, messages in problems.items():
        form.add_error(f"{prefix}_{name}", messages)
    return Address.of(cleaned).stored()
