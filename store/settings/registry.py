"""The store settings' sections: keys, types and defaults, declared in code.

A section is a DRF serializer whose fields all have a default. Apps register theirs with
`register(Section(...))` from their AppConfig.ready(); the settings routes, the admin and
`store.settings.selectors.get_section()` read them from here.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass

from rest_framework import serializers


@dataclass(frozen=True)
class Section:
    name: str
    title: str
    serializer: type[serializers.Serializer]

    def fields(self) -> dict[str, serializers.Field]:
        return bound_fields(self.serializer)

    def defaults(self) -> dict:
        return defaults_of(self.fields())


_BOUND_FIELDS: dict[type[serializers.Serializer], dict[str, serializers.Field]] = {}


def bound_fields(serializer: type[serializers.Serializer]) -> dict[str, serializers.Field]:
    """A settings serializer's fields, bound once per class: a serializer's fields are deep
    copies of its declared ones, made again on every instance, and every read of the settings
    after a write validates every stored value with them."""
    bound = _BOUND_FIELDS.get(serializer)
    if bound is None:
        bound = _BOUND_FIELDS[serializer] = dict(serializer().fields)
    return dict(bound)


def defaults_of(fields: dict[str, serializers.Field]) -> dict:
    """Each field's default (called, when it is a callable): a copy of its own, since the
    fields, and the lists and dicts they default to, are shared."""
    out = {}
    for key, field in fields.items():
        default = field.default
        out[key] = default() if callable(default) else copy.deepcopy(default)
    return out


SECTIONS: dict[str, Section] = {}
_KEYS: dict[str, tuple[str, ...]] = {}
_signature = ""


def register(section: Section) -> Section:
    for key, field in section.fields().items():
        if field.default is serializers.empty:
            raise ValueError(f"Setting {section.name}.{key} has no default")
    SECTIONS[section.name] = section
    _KEYS[section.name] = tuple(sorted(section.fields()))
    global _signature
    _signature = hashlib.sha256(repr(sorted(_KEYS.items())).encode()).hexdigest()[:12]
    return section


def signature() -> str:
    """A short hash of the sections and their keys: values cached by a release that declared
    other keys (a setting added, renamed or removed) are not read as this release's."""
    return _signature


def get(name: str) -> Section | None:
    return SECTIONS.get(name)
