"""The walk-through runner (.ci/walkthroughs.py, a script, not a package module) loaded once,
so the docs tests read the blocks exactly as CI runs them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load() -> ModuleType:
    if "walkthroughs" in sys.modules:
        return sys.modules["walkthroughs"]
    spec = importlib.util.spec_from_file_location("walkthroughs", ROOT / ".ci" / "walkthroughs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["walkthroughs"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module
