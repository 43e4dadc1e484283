"""Courier credentials at rest (common.sealed), masked whenever shown."""

from __future__ import annotations

from functools import partial

from common import sealed

PURPOSE = "store-courier"
seal = partial(sealed.seal, purpose=PURPOSE)
unseal = partial(sealed.unseal, purpose=PURPOSE)
mask = sealed.mask
