"""The desk's routes: one module per concern, each exposing ``router``; all are included here."""

from __future__ import annotations

import importlib
import pkgutil

from fastapi import APIRouter

router = APIRouter()
# The JSON API first, then the fixed pages, and the generic list/form routes last (they match any table).
_ORDER = {"api": 0, "home": 1, "lists": 9, "records": 9}
for _mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: (_ORDER.get(m.name, 5), m.name)):
    _module = importlib.import_module(f"{__name__}.{_mod.name}")
    if isinstance(getattr(_module, "router", None), APIRouter):
        router.include_router(_module.router)
