"""The problem form: ``/problem.do?sys_id=<id>`` (``-1`` for a new one) with its UI actions (Submit,
Save, Update, Mark Duplicate) and the related list of incidents (add and remove links)."""

from __future__ import annotations

import json

from fastapi import APIRouter, Request

from ...deps import ClockDep, SessionDep
from ...ui import redirect, render
from .. import choices as C
from .. import problems as P
from ..common import display, get_or_404
from ..models import Problem
from ..acl import DeskUser, access
from .denied import denied
from .incident import journal_entries, list_back

router = APIRouter()
REF_TABLES = {"cmdb_ci": "cmdb_ci", "assignment_group": "sys_user_group", "assigned_to": "sys_user", "duplicate_of": "problem"}


def _page(request, session, prb: Problem | None, values: dict, errors: dict, work_notes: str = "", back: str = "", dup_errors: dict | None = None):
    labels = {name: display(session, ref, values.get(name)) if isinstance(values.get(name), int) else "" for name, ref in REF_TABLES.items()}
    rules = {s: P.mandatory_for(s, values.get("resolution_code")) for s in C.PROBLEM_STATES}
    return render(
        request, "desk/problem.html", prb=prb, v=values, labels=labels, errors=errors, work_notes=work_notes, C=C, back=back,
        rules_json=json.dumps(rules), mandatory_now=rules[values.get("state") or "New"],
        priorities_json=json.dumps({str(k): v for k, v in C.PRIORITY.items()}),
        priority_label=C.PRIORITY.get(C.priority_of(values.get("impact") or 3, values.get("urgency") or 3), ""),
        incidents=P.incidents_of(session, prb) if prb else [], activity=journal_entries(session, "problem", prb.id) if prb else [],
        first_reported=display(session, "incident", prb.first_reported_by_id) if prb else "",
        read_only=prb is not None and prb.state == "Closed", dup_errors=dup_errors or {},
    )


@router.get("/problem.do")
def problem_form(request: Request, session: SessionDep, user: DeskUser, sys_id: str = "-1"):
    if not access(request).by_role("problem", "read"):
        return denied(request)
    back = list_back(request, "/problem_list.do")
    if sys_id == "-1":
        return _page(request, session, None, P.current_values(None), {}, back=back)
    prb = get_or_404(session, Problem, sys_id, "problem")
    return _page(request, session, prb, P.current_values(prb), {}, back=back)


@router.post("/problem.do")
async def problem_save(request: Request, session: SessionDep, user: DeskUser, clock: ClockDep):
    form = await request.form()
    if not access(request).by_role("problem", "write"):
        return denied(request)
    sys_id = str(form.get("sys_id", "-1"))
    prb = None if sys_id == "-1" else get_or_404(session, Problem, sys_id, "problem")
    action = str(form.get("sysverb", "save"))
    back = str(form.get("sysparm_goto", "")) or "/problem_list.do"
    here = f"/problem.do?sys_id={prb.id}" if prb else "/problem.do?sys_id=-1"
    if prb is not None and action in ("mark_duplicate", "link_incident", "unlink_incident"):
        if action == "mark_duplicate":
            errors = P.mark_duplicate(session, prb, form.get("duplicate_of"), user, clock)
            if errors:
                session.rollback()
                return _page(request, session, prb, P.current_values(prb), {}, back=back, dup_errors=errors)
            session.commit()
            return redirect(request, here, toast=f"Problem {prb.number} closed as a duplicate of {display(session, 'problem', prb.duplicate_of_id)}.")
        verb = P.link_incident if action == "link_incident" else (lambda s, p, i, _u, c: P.unlink_incident(s, p, i, c))
        inc, errors = verb(session, prb, form.get("incident"), user, clock)
        if errors:
            session.rollback()
            return _page(request, session, prb, P.current_values(prb), {"__all__": errors["incident"], "incident": errors["incident"]}, back=back)
        session.commit()
        return redirect(request, here, toast=f"Incident {inc.number} {'linked to' if action == 'link_incident' else 'removed from'} {prb.number}.")
    data = {name: form.get(name) for name in P.FIELDS if name in form}
    work_notes = str(form.get("work_notes", ""))
    values, errors = P.validate(session, data, prb)
    if errors:
        return _page(request, session, prb, values, errors, work_notes, back)
    new = prb is None
    prb = P.apply(session, prb, values, work_notes, user, clock)
    session.commit()
    verb = "created" if new else "updated"
    if action in ("update", "insert") and "_list.do" in back:
        return redirect(request, back, toast=f"Problem {prb.number} {verb}.", link=f"/problem.do?sys_id={prb.id}", link_text=prb.number)
    return redirect(request, f"/problem.do?sys_id={prb.id}", toast=f"Problem {prb.number} {verb}.")
