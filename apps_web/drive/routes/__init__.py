"""The drive's routes: one module per concern, each exposing ``router``."""

from __future__ import annotations

from fastapi import APIRouter

from . import api, documents, files, sheets

router = APIRouter()
for _module in (api, documents, sheets, files):
    router.include_router(_module.router)
