"""Marketplace secrets at rest (common.sealed): the webhook secret and the API credentials."""

from __future__ import annotations

from functools import partial

from common import sealed

PURPOSE = "store-marketplace"
seal = partial(sealed.seal, purpose=PURPOSE)
unseal = partial(sealed.unseal, purpose=PURPOSE)
