"""The chat app's routes: one module per concern, each exposing ``router``."""

from __future__ import annotations

from fastapi import APIRouter

from . import actions, api, pages

router = APIRouter()
for _module in (api, actions, pages):
    router.include_router(_module.router)
