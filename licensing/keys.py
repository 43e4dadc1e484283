"""Licence keys: `EMP-XXXX-XXXX-XXXX-XXXX-XXXX`.

A fixed prefix, then five hyphen-separated groups of four upper-case letters drawn with
`secrets` from an alphabet without look-alikes (no I, O or Q, which read as 1 and 0): 23
letters, 20 characters, about 90 bits of randomness.
"""

from __future__ import annotations

import re
import secrets

PREFIX = "EMP"
ALPHABET = "ABCDEFGHJKLMNPRSTUVWXYZ"
GROUPS = 5
GROUP_SIZE = 4
KEY_PATTERN = re.compile(rf"^{PREFIX}(-[{ALPHABET}]{{{GROUP_SIZE}}}){{{GROUPS}}}$")
# Keys brought in by `licenses import` may come from an older system: any upper-case letters,
# digits and hyphens.
IMPORTED_KEY_PATTERN = re.compile(r"^[A-Z0-9][A-Z0-9-]{6,62}[A-Z0-9]$")


def generate_license_key() -> str:
    groups = ("".join(secrets.choice(ALPHABET) for _ in range(GROUP_SIZE)) for _ in range(GROUPS))
    return "-".join([PREFIX, *groups])


def normalize_license_key(raw: str) -> str:
    """What a person typed, as stored: no surrounding blanks, upper-case."""
    return (raw or "").strip().upper()
