"""The tax authorities, by the name the settings use."""

from __future__ import annotations

from erp.invoicing.providers.base import AuthorityProvider
from erp.invoicing.providers.mydata import MydataAuthority
from erp.invoicing.providers.sandbox import SandboxAuthority

PROVIDERS: dict[str, type[AuthorityProvider]] = {
    cls.name: cls for cls in (SandboxAuthority, MydataAuthority)
}
