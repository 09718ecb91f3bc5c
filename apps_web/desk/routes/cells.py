"""Inline edit of a list cell: ``POST /api/desk/cell/<table>/<sys_id>`` with ``{"field", "value"}``.

The change goes through the record's form validation (mandatory fields for the state, dependent
choices, members of the group...): on an error nothing is saved and the message comes back.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import JSONResponse

from ...deps import ClockDep, SessionDep
from .. import changes as CH
from .. import problems as P
from .. import validation as INC
from ..common import get_or_404, reference_maps
from ..models import ChangeRequest, Incident, Problem
from ..tables import TABLES, value
from ..acl import DENIED_PAGE, DeskUser, access
from .lists import INLINE, cell_text

router = APIRouter(prefix="/api/desk", include_in_schema=False)


def _save(session, table_key: str, rec, field: str, raw: Any, user, clock) -> dict[str, str]:
    data = {field: raw}
    if table_key == "incident":
        values, errors = INC.validate(session, data, rec)
        if not errors:
            INC.apply(session, rec, {k: values[k] for k in INC.FIELDS}, {}, user, clock)
    elif table_key == "problem":
        values, errors = P.validate(session, data, rec)
        if not errors:
            P.apply(session, rec, values, "", user, clock)
    else:
        values, errors = CH.validate(session, data, rec, user)
        if not errors:
            CH.apply(session, rec, values, "", user, clock)
    return errors


@router.post("/cell/{table_key}/{sys_id}")
def edit_cell(request: Request, table_key: str, sys_id: str, session: SessionDep, user: DeskUser, clock: ClockDep, payload: Any = Body(...)):
    table = TABLES.get(table_key)
    if table is None or table_key not in INLINE:
        raise HTTPException(status_code=404, detail=f"The {table_key} list cannot be edited in place.")
    if not access(request).by_role(table_key, "write"):
        return JSONResponse({"error": f"{DENIED_PAGE}: your roles do not allow editing {table.label.lower()}."}, status_code=403)
    if not isinstance(payload, dict) or not isinstance(payload.get("field"), str):
        return JSONResponse({"error": 'Send {"field": name, "value": text}.'}, status_code=400)
    field = payload["field"]
    col = table.col(field)
    if col is None or field not in INLINE[table_key]:
        return JSONResponse({"error": f"{col.label if col else field} cannot be edited in the list: open the record to change it."}, status_code=422)
    model = {"incident": Incident, "problem": Problem, "change_request": ChangeRequest}[table_key]
    rec = get_or_404(session, model, sys_id, table.singular)
    raw = payload.get("value")
    raw = None if raw in ("", None) else raw
    errors = _save(session, table_key, rec, field, raw, user, clock)
    if errors:
        session.rollback()
        message = errors.get(field) or errors.get("__all__") or next(iter(errors.values()))
        return JSONResponse({"error": f"{col.label} not saved: {message}", "detail": errors}, status_code=422)
    session.commit()
    v = value(session, table, col, rec, clock.now)
    refs = reference_maps(session, table, [rec], [col.name])
    return {"value": v, "text": cell_text(col, v, refs), "number": getattr(rec, "number", None)}
