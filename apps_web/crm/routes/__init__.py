"""The CRM's routes: one module per resource, each exposing ``router``; all are included here."""

from __future__ import annotations

import importlib
import pkgutil

from fastapi import APIRouter

router = APIRouter()
for _mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: (m.name != "home", m.name)):
    _module = importlib.import_module(f"{__name__}.{_mod.name}")
    if isinstance(getattr(_module, "router", None), APIRouter):
        router.include_router(_module.router)
