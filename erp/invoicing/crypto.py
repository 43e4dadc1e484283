"""The tax authority's credentials at rest (common.sealed under PURPOSE: the settings write
seals them with erp.core.filing.credentials_update), masked whenever shown."""

from __future__ import annotations

from functools import partial

from common import sealed

PURPOSE = "erp-invoicing"
unseal = partial(sealed.unseal, purpose=PURPOSE)
mask = sealed.mask
