"""The store's one address: its keys, what each accepts, how it is cleaned, checked for
completeness, answered, declared and edited.

Orders, the checkout, the cart, the shipping and tax calculators, the customers' saved addresses
(and the courier and invoicing) use this and nothing else:
- `Address`, the value: eleven text keys, each with its label and longest length; stored as a
  JSON object of its non-empty keys (a missing key reads as "");
- the names: on the wire the subdivision is `region` (the spec's name, in the cart's body),
  kept as `state` in the value and in stored rows; a body may send `state` for it (never both
  with different values); answers say `region` (`API_NAMES`, `ALIASES`);
- `address_clean`, the one cleaner: text trimmed, lengths, the country an ISO 3166-1 alpha-2
  code (django-countries), the region its ISO 3166-2 subdivision code without the country
  prefix (pycountry; `GR-M`, `m` and the name `Kríti` are stored as `M`, the form tax rates and
  shipping zones use; free text where ISO 3166-2 lists no subdivision), the postcode's letters,
  digits, spaces and dashes, the e-mail address checked and lower-cased; which keys it reads
  and which are required are parameters (a destination is the country, region and postcode);
- `AddressSerializer`, the one API field, and `DestinationSerializer`, its subset for where
  things ship and are taxed (the cart, /shipping/calculate, /tax/calculate): an unknown key is
  refused, naming it;
- `address_form_fields`/`address_from_form`, the admin's fields, cleaned by the same cleaner.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields

import pycountry
from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django_countries import countries
from rest_framework import serializers
from rest_framework.fields import empty

from accounts.models import normalize_email
from store.common.locations import clean_country, clean_postcode, subdivisions
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
        "Region (state, province)",
        100,
        "The country's ISO 3166-2 subdivision: its code with or without the country (M or "
        "GR-M) or its exact name (Kríti, any case); answered as the code (M). Free text where "
        "ISO 3166-2 lists no subdivision. Also accepted as `state`.",
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
        """Every key, as the API answers an address (under its API name)."""
        return {api_name(name): getattr(self, name) for name in ADDRESS_FIELDS}

    def stored(self) -> dict:
        """The non-empty keys, as an address is stored."""
        return {name: getattr(self, name) for name in ADDRESS_FIELDS if getattr(self, name)}

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
# A key's name in bodies and answers where it is not the value's own: the subdivision is
# `region`, as the spec names it (the cart's body) and as tax rates, shipping zones and their
# locations call it; stored rows keep `state`.
API_NAMES = {"state": "region"}
# Other names a body may use for a key (the API name it stands for): `state`, which orders and
# the checkout took. Sending both with different values is refused.
ALIASES = {"state": "region"}
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


def api_name(key: str) -> str:
    """The name of the value's `key` in bodies and answers (`state` is `region`)."""
    return API_NAMES.get(key, key)


def api_problems(problems: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """The cleaner's problems named as the API names the keys."""
    return {api_name(name): list(messages) for name, messages in problems.items()}


def address_data(stored: dict | None) -> dict:
    """A stored address as the API answers it (every key)."""
    return Address.of(stored).answer()


# --- The subdivision -----------------------------------------------------------------------------


def _folded(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


@functools.cache
def _subdivision_names(country: str) -> dict[str, tuple[str, ...]]:
    """The country's subdivision names (folded) and the codes (without `CC-`) each names: a
    few names stand for two subdivisions (a province and its region)."""
    names: dict[str, list[str]] = {}
    for entry in pycountry.subdivisions.get(country_code=country) or []:
        names.setdefault(_folded(entry.name), []).append(entry.code.split("-", 1)[1].upper())
    return {name: tuple(sorted(codes)) for name, codes in names.items()}


def clean_subdivision(country: str, value: str) -> str:
    """The region of an address in `country` as stored: the ISO 3166-2 code without the
    country (`M` from `M`, `gr-m` or the name `Kríti`); the text as given where ISO 3166-2
    lists no subdivision of the country. ValueError when it is not one of the country's."""
    text = value.strip()
    if not text:
        return ""
    known = subdivisions(country)
    if not known:
        return text
    code = text.upper()
    if code.startswith(f"{country}-"):
        code = code[len(country) + 1 :]
    if code in known:
        return code
    named = _subdivision_names(country).get(_folded(text), ())
    if len(named) == 1:
        return named[0]
    if named:
        raise ValueError(
            f"{text!r} names several subdivisions of {country} "
            f"({', '.join(f'{country}-{c}' for c in named)}): send the code."
        )
    example = min(known, key=lambda code: (code.isdigit(), code))
    raise ValueError(
        f"Unknown region {text[:60]!r} of {country}: send its ISO 3166-2 subdivision code "
        f"({example} or {country}-{example}) or name, as GET /shipping/countries?country="
        f"{country}&subdivisions=true lists them."
    )


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
    sent are answered (other keys are left out); `required` keys must not be empty. A region
    (`state`) needs its country; it is checked against the country's subdivisions. Keys and
    problems are named as in the value (`state`); `api_problems` names them for a body."""
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
            pass  # the region cannot be checked without a known country
        elif not country:
            problems.setdefault("country", []).append("Give the country of the region.")
        else:
            try:
                cleaned["state"] = clean_subdivision(country, state)
            except ValueError as exc:
                problems["state"] = [str(exc)]
    for name in Address.of(cleaned).missing(required):
        if name not in problems:
            problems[name] = [REQUIRED]
    return cleaned, problems


def address_for_storing(data: dict | None, *, name: str, problems: Problems) -> dict:
    """A whole address cleaned for storing (its non-empty keys), for a service: each problem
    goes into `problems` named `<name>.<key>` as `data` names it (the service refuses once,
    naming them all). API bodies reach it cleaned by `AddressSerializer`, which names
    problems as the body did."""
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


def _api_field(
    name: str, *, required: bool, allow_null: bool, help_text: str = ""
) -> serializers.Field:
    meta = Address.__dataclass_fields__[name].metadata
    options = {"required": required, "allow_blank": not required, "allow_null": allow_null}
    if help_text or meta["help_text"]:
        options["help_text"] = help_text or meta["help_text"]
    if name == "country":
        return CountryField(**options)
    if name == "email":
        return serializers.EmailField(max_length=meta["max_length"], **options)
    return serializers.CharField(max_length=meta["max_length"], **options)


# Where an alias's value waits (in the validated data) until `validate` merges it.
_ALIAS = "alias:"
# How many unknown keys one refusal names.
_UNKNOWN_NAMED = 20


# An address, cleaned by the address rule (`address_clean`); every key optional. Keys are sent
# and answered under their API names (`region`); `state` is taken for `region` (both sent must
# name the same subdivision); any other key is refused, naming it. A subset names its
# `address_keys`, the `required_keys` and the `nullable_keys` (null reads as empty);
# `clean_keys = False` leaves the cleaning to the service (a partial update over a stored
# address). Other fields declared on a subclass are kept as they are. (Comments, not a
# docstring: the OpenAPI description would show a docstring.)
class AddressSerializer(serializers.Serializer):
    address_keys: tuple[str, ...] = ADDRESS_FIELDS
    required_keys: tuple[str, ...] = ()
    nullable_keys: tuple[str, ...] = ()
    clean_keys: bool = True

    def get_fields(self):
        declared = super().get_fields()
        out = {}
        for name in self.address_keys:
            api_field = _api_field(
                name, required=name in self.required_keys, allow_null=name in self.nullable_keys
            )
            if api_name(name) != name:
                api_field.source = name
            out[api_name(name)] = api_field
        for alias, canonical in ALIASES.items():
            key = next((k for k in self.address_keys if api_name(k) == canonical), None)
            if key is None:
                continue
            alias_field = _api_field(
                key,
                required=False,
                allow_null=key in self.nullable_keys,
                help_text=f"Another name for `{canonical}`: send one of them.",
            )
            alias_field.write_only = True
            alias_field.source = _ALIAS + alias
            out[alias] = alias_field
        return {**out, **declared}

    def _unknown(self, data) -> dict[str, list[str]]:
        """Each key of `data` this body does not take, with the ones it takes."""
        if not isinstance(data, Mapping):
            return {}
        names = [str(name) for name in data if name not in self.fields]
        if not names:
            return {}
        aliases = {canonical: alias for alias, canonical in ALIASES.items() if alias in self.fields}
        taken = ", ".join(
            f"{name} (or {aliases[name]})" if name in aliases else name
            for name in self.fields
            if name not in ALIASES
        )
        message = f"Not a field of this address (its fields: {taken})."
        return {name[:64]: [message] for name in sorted(names)[:_UNKNOWN_NAMED]}

    def run_validation(self, data=empty):
        unknown = self._unknown(data)
        try:
            value = super().run_validation(data)
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, dict):
                raise serializers.ValidationError({**exc.detail, **unknown}) from None
            raise
        if unknown:
            raise serializers.ValidationError(unknown)
        return value

    def _merge_aliases(self, attrs: dict) -> dict[str, str]:
        """Put each alias's value under its key (refusing two different values); answers the
        keys that came under an alias, with that alias (problems are named as sent)."""
        sent_as: dict[str, str] = {}
        for alias, canonical in ALIASES.items():
            if _ALIAS + alias not in attrs:
                continue
            value = attrs.pop(_ALIAS + alias)
            key = next(k for k in self.address_keys if api_name(k) == canonical)
            if key not in attrs:
                attrs[key] = value
                sent_as[key] = alias
            elif not self._same(key, attrs[key], value, attrs.get("country")):
                raise serializers.ValidationError(
                    {
                        canonical: [
                            f"{canonical} and {alias} differ ({(attrs[key] or '')[:60]!r} and "
                            f"{(value or '')[:60]!r}): send one of them."
                        ]
                    }
                )
        return sent_as

    @staticmethod
    def _same(key: str, first, second, country) -> bool:
        one, other = (first or "").strip(), (second or "").strip()
        if _folded(one) == _folded(other):
            return True
        if key != "state" or not country or not one or not other:
            return False
        try:
            country = clean_country(country)
            return clean_subdivision(country, one) == clean_subdivision(country, other)
        except ValueError:
            return False

    def validate(self, attrs):
        attrs = dict(attrs)
        sent_as = self._merge_aliases(attrs)
        if not self.clean_keys:
            return attrs
        keys = self.address_keys
        address = {name: attrs[name] for name in keys if name in attrs}
        cleaned, problems = address_clean(address, keys=keys, required=self.required_keys)
        if problems:
            raise serializers.ValidationError(
                {
                    sent_as.get(name) or api_name(name): messages
                    for name, messages in problems.items()
                }
            )
        return {**{k: v for k, v in attrs.items() if k not in keys}, **cleaned}


# Where things ship and are taxed (the cart's address, /shipping/calculate, /tax/calculate): the
# country (required), region and postcode of the address rule; no other key.
class DestinationSerializer(AddressSerializer):
    address_keys = DESTINATION_FIELDS
    required_keys = ("country",)
    nullable_keys = ("state", "postcode")


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
