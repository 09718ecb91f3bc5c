"""The change request form: ``/change_request.do?sys_id=<id>`` (``-1`` for a new one) with its UI
actions (Submit, Save, Update, Request Approval, Cancel Change), the conflict warning as a field
message, and the related lists Conflicts and Approvers."""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from sqlmodel import select

from ...deps import ClockDep, SessionDep
from ...ui import redirect, render
from .. import changes as CH
from .. import choices as C
from ..common import display, displays, get_or_404
from ..models import Approval, ChangeRequest
from ..acl import DeskUser, access
from .denied import denied
from .incident import journal_entries, list_back

router = APIRouter()
REF_TABLES = {"cmdb_ci": "cmdb_ci", "assignment_group": "sys_user_group", "assigned_to": "sys_user", "requested_by": "sys_user"}


def _page(request, session, user, chg: ChangeRequest | None, values: dict, errors: dict, work_notes: str = "", back: str = ""):
    labels = {name: display(session, ref, values.get(name)) if isinstance(values.get(name), int) else "" for name, ref in REF_TABLES.items()}
    rules = {s: CH.mandatory_for(s, values.get("type")) for s in C.CHANGE_STATES}
    found = CH.conflicts(session, chg) if chg else []
    approvals = list(session.exec(select(Approval).where(Approval.change_id == chg.id).order_by(Approval.id)).all()) if chg else []
    approvers = displays(session, "sys_user", {a.approver_id for a in approvals})
    shown = {k: (v.strftime("%Y-%m-%d %H:%M:%S") if hasattr(v, "strftime") else v) for k, v in values.items()}
    return render(
        request, "desk/change_request.html", chg=chg, v=shown, labels=labels, errors=errors, work_notes=work_notes, C=C, back=back,
        rules_json=json.dumps(rules), mandatory_now=rules.get(values.get("state") or "New", []), conflicts=found,
        ci_label=labels["cmdb_ci"], approvals=approvals, approvers=approvers,
        activity=journal_entries(session, "change_request", chg.id) if chg else [],
        read_only=chg is not None and chg.state in CH.DONE,
    )


@router.get("/change_request.do")
def change_form(request: Request, session: SessionDep, user: DeskUser, sys_id: str = "-1"):
    if not access(request).by_role("change_request", "read"):
        return denied(request)
    back = list_back(request, "/change_request_list.do")
    if sys_id == "-1":
        return _page(request, session, user, None, CH.current_values(None, user), {}, back=back)
    chg = get_or_404(session, ChangeRequest, sys_id, "change request")
    return _page(request, session, user, chg, CH.current_values(chg), {}, back=back)


@router.post("/change_request.do")
async def change_save(request: Request, session: SessionDep, user: DeskUser, clock: ClockDep):
    form = await request.form()
    if not access(request).by_role("change_request", "write"):
        return denied(request)
    sys_id = str(form.get("sys_id", "-1"))
    chg = None if sys_id == "-1" else get_or_404(session, ChangeRequest, sys_id, "change request")
    action = str(form.get("sysverb", "save"))
    back = str(form.get("sysparm_goto", "")) or "/change_request_list.do"
    data = {name: form.get(name) for name in CH.FIELDS if name in form}
    work_notes = str(form.get("work_notes", ""))
    if action == "cancel_change" and chg is not None:
        data["state"] = "Canceled"
    values, errors = CH.validate(session, data, chg, user)
    if errors:
        return _page(request, session, user, chg, values, errors, work_notes, back)
    new = chg is None
    chg = CH.apply(session, chg, values, work_notes, user, clock)
    if action == "request_approval":
        errors = CH.request_approval(session, chg, user, clock)
        if errors:
            session.rollback()
            chg = session.get(ChangeRequest, chg.id) if not new else None
            return _page(request, session, user, chg, values, errors, work_notes, back)
        session.commit()
        return redirect(request, f"/change_request.do?sys_id={chg.id}", toast=f"Approval requested for {chg.number}: the CAB decides in My Approvals.")
    session.commit()
    verb = "created" if new else ("canceled" if action == "cancel_change" else "updated")
    if action in ("update", "insert") and "_list.do" in back:
        return redirect(request, back, toast=f"Change {chg.number} {verb}.", link=f"/change_request.do?sys_id={chg.id}", link_text=chg.number)
    return redirect(request, f"/change_request.do?sys_id={chg.id}", toast=f"Change {chg.number} {verb}.")
