"""Saving a list view's inline edits: ``POST /inline/<objects>`` with ``e.<id>.<field>`` values.

Every record that passes its edit form's checks is saved; when some are refused the list shows again
(422) with those rows still edited, a red error icon on each and the messages, as Lightning does.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from starlette.datastructures import QueryParams

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect
from ..inline_edit import parse_edits, save_edits
from ..objects import OBJECTS
from .lists import BY_PATH, render_list, safe_return

router = APIRouter(include_in_schema=False)


@router.post("/inline/{objects}")
async def save_inline(objects: str, request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    object_key = BY_PATH.get(objects)
    if object_key is None:
        raise HTTPException(404, "This object doesn't exist.")
    info = OBJECTS[object_key]
    form = await request.form()
    back = safe_return(form.get("return_to"), info.path)
    if urlsplit(back).path != info.path:
        back = info.path
    edits = parse_edits(form, object_key)
    saved, refused = save_edits(session, object_key, edits, user=user, clock=clock)
    if not refused:
        if not saved:
            return redirect(request, back, toast="There were no changes to save.", kind="info")
        noun = info.label.lower() if saved == 1 else info.plural.lower()
        return redirect(request, back, toast=f"Your changes to {saved} {noun} were saved.")
    state = {
        "edits": {r.record_id: r.edits for r in refused},
        "errors": {r.record_id: {"name": r.name, "fields": {k: v for k, v in r.errors.items() if not k.startswith("__")}, "messages": r.messages} for r in refused},
        "saved": saved,
        "refused": len(refused),
    }
    return render_list(request, session, user, clock, object_key, QueryParams(urlsplit(back).query), status_code=422, inline_state=state)
