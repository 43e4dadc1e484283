"""The labor registries, by the name the settings use."""

from __future__ import annotations

from erp.hr.labor_providers.base import LaborRegistryProvider
from erp.hr.labor_providers.ergani import ErganiRegistry
from erp.hr.labor_providers.sandbox import SandboxRegistry

PROVIDERS: dict[str, type[LaborRegistryProvider]] = {
    cls.name: cls for cls in (SandboxRegistry, ErganiRegistry)
}
