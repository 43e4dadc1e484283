"""The address rule of the store: which fields an address has and what each accepts.

One rule for every door: the orders API's address serializer checks its fields with it, and the
admin's address fields are cleaned by it. An address is stored as a JSON object of these keys
(missing keys read as "").
"""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django_countries import countries

from store.common.errors import invalid_params

ADDRESS_FIELDS = (
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

# The longest value of each text field (country and e-mail are checked by kind).
MAX_LENGTHS = {
    "first_name": 100,
    "last_name": 100,
    "company": 200,
    "address_1": 255,
    "address_2": 255,
    "city": 100,
    "state": 100,
    "postcode": 20,
    "phone": 40,
}

LABELS = {
    "first_name": "First name",
    "last_name": "Last name",
    "company": "Company",
    "address_1": "Address line 1",
    "address_2": "Address line 2",
    "city": "City",
    "state": "State or region",
    "postcode": "Postcode",
    "country": "Country",
    "email": "E-mail",
    "phone": "Phone",
}


def country_code(value: str) -> str | None:
    """The ISO 3166-1 alpha-2 code, matched without regard to case; None when unknown."""
    code = (value or "").strip().upper()
    return code if code in countries else None


def address_problems(data: dict) -> tuple[dict, dict[str, list[str]]]:
    """(the address cleaned, the problems of each field). Unknown keys are left out; text is
    trimmed; the country is its upper-case ISO code."""
    cleaned: dict = {}
    problems: dict[str, list[str]] = {}
    for name in ADDRESS_FIELDS:
        if name not in data:
            continue
        value = data[name]
        if value is None:
            value = ""
        if not isinstance(value, str):
            problems[name] = ["Not a valid string."]
            continue
        value = value.strip()
        limit = MAX_LENGTHS.get(name)
        if limit is not None and len(value) > limit:
            problems[name] = [f"Ensure this field has no more than {limit} characters."]
            continue
        if name == "country" and value:
            code = country_code(value)
            if code is None:
                problems[name] = [f'"{value}" is not a valid choice.']
                continue
            value = code
        if name == "email" and value:
            try:
                validate_email(value)
            except ValidationError:
                problems[name] = ["Enter a valid email address."]
                continue
        cleaned[name] = value
    return cleaned, problems


def address_clean(data: dict) -> dict:
    """The address cleaned, or 400 `invalid_param` naming each bad field."""
    cleaned, problems = address_problems(data)
    if problems:
        raise invalid_params(problems)
    return cleaned


def address_form_fields(prefix: str) -> dict[str, forms.Field]:
    """An address as form fields named `<prefix>_<key>` (text with its limit, the country as a
    choice of ISO 3166-1 countries, the e-mail checked as one), all optional."""
    out: dict[str, forms.Field] = {}
    for name in ADDRESS_FIELDS:
        label = LABELS[name]
        if name == "country":
            field = forms.ChoiceField(label=label, choices=[("", "—"), *countries], required=False)
        elif name == "email":
            field = forms.EmailField(label=label, required=False)
        else:
            field = forms.CharField(label=label, max_length=MAX_LENGTHS[name], required=False)
        out[f"{prefix}_{name}"] = field
    return out


def address_from_form(form: forms.BaseForm, prefix: str) -> dict:
    """Clean the `<prefix>_*` fields of a validated form by the address rule (problems are
    added to the form's fields); answers the address without its empty keys."""
    raw = {name: form.cleaned_data.get(f"{prefix}_{name}") for name in ADDRESS_FIELDS}
    cleaned, problems = address_problems({k: v for k, v in raw.items() if v is not None})
    for name, messages in problems.items():
        form.add_error(f"{prefix}_{name}", messages)
    return {key: value for key, value in cleaned.items() if value}
