"""The mail app's routes: one module per concern, each exposing ``router``. The folder pages come
last: their ``/mail/{folder}`` path would otherwise catch ``/mail/search`` and ``/mail/compose``."""

from __future__ import annotations

from fastapi import APIRouter

from . import actions, api, calendar, calendar_api, compose, folders, options, people, search

router = APIRouter()
for _module in (api, calendar_api, compose, search, actions, calendar, people, options, folders):
    router.include_router(_module.router)
