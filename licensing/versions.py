"""Version numbers of releases and components, compared as PEP 440 versions (which also reads
semantic versions such as 2.1.0, 2.1.0rc1, v2.1)."""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from common.errors import ValidationFailed


def parse_version(raw: str, *, field: str = "version") -> Version:
    try:
        return Version((raw or "").strip())
    except InvalidVersion:
        raise ValidationFailed(
            {field: [f"{raw!r} is not a version number (for example 2.1.0)."]}
        ) from None


def latest(items, attribute: str = "version"):
    """The item with the highest version, or None."""
    best, best_version = None, None
    for item in items:
        try:
            version = Version(getattr(item, attribute))
        except InvalidVersion:
            continue
        if best_version is None or version > best_version:
            best, best_version = item, version
    return best
