"""A settings section as an admin form: each declared key a typed field (booleans as
checkboxes, choices as selects, numbers as number fields, text with its limit), showing its
default, checked by the settings service (settings_check) like the API's writes."""

from __future__ import annotations

import json

from django import forms
from rest_framework import serializers

from common.admin import add_refusal
from common.errors import ServiceError
from store.settings import registry, selectors, services
from store.settings.models import SettingsSection


def _shown(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def form_field(key: str, field: serializers.Field, default) -> forms.Field:
    """The form field of one declared setting (its limits and choices kept)."""
    label = field.label or key.replace("_", " ").capitalize()
    help_text = " ".join(filter(None, [str(field.help_text or ""), f"Default: {_shown(default)}."]))
    common = {"label": label, "help_text": help_text}
    if isinstance(field, serializers.BooleanField):
        return forms.BooleanField(required=False, **common)
    if isinstance(field, serializers.ChoiceField):
        choices = [(value, text) for value, text in field.choices.items()]
        if field.allow_blank:
            choices = [("", "—"), *choices]
        return forms.ChoiceField(choices=choices, required=not field.allow_blank, **common)
    if isinstance(field, serializers.IntegerField):
        return forms.IntegerField(min_value=field.min_value, max_value=field.max_value, **common)
    if isinstance(field, serializers.DecimalField):
        return forms.DecimalField(
            min_value=field.min_value,
            max_value=field.max_value,
            max_digits=field.max_digits,
            decimal_places=field.decimal_places,
            **common,
        )
    if isinstance(field, serializers.EmailField):
        return forms.EmailField(required=not field.allow_blank, **common)
    if isinstance(field, serializers.CharField):
        return forms.CharField(
            max_length=field.max_length,
            required=not field.allow_blank,
            strip=field.trim_whitespace,
            **common,
        )
    # Any other declaration (a list, an object) is edited as its JSON.
    return forms.JSONField(required=False, **common)


class SectionFormBase(forms.ModelForm):
    """The keys of one section; `section` is set on each generated class."""

    section: registry.Section

    class Meta:
        model = SettingsSection
        fields: list[str] = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The values in force: the stored ones the declaration accepts, else the defaults.
        for key, value in selectors.get_section(self.section.name).items():
            if key in self.fields:
                self.initial[key] = value

    def clean(self):
        cleaned = super().clean()
        values = {key: cleaned[key] for key in self.section.fields() if key in cleaned}
        for key, field in self.section.fields().items():
            if isinstance(field, serializers.CharField) and values.get(key) is None:
                values[key] = ""
        try:
            self.values = services.settings_check(section=self.section.name, values=values)
        except ServiceError as exc:
            add_refusal(self, exc)
        return cleaned

    def changed_from_defaults(self) -> dict:
        """The checked values that differ from the defaults (only those are stored)."""
        defaults = self.section.defaults()
        return {key: value for key, value in self.values.items() if value != defaults.get(key)}


def section_form(section: registry.Section) -> type[SectionFormBase]:
    """A form class with one typed field per key of `section`."""
    defaults = section.defaults()
    attrs = {key: form_field(key, field, defaults[key]) for key, field in section.fields().items()}
    return type(
        f"{section.name.title()}SectionForm",
        (SectionFormBase,),
        {"__module__": __name__, "section": section, **attrs},
    )
