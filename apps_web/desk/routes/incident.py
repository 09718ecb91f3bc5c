"""The incident form: ``/incident.do?sys_id=<id>`` (``sys_id=-1`` for a new one) and its UI actions
(Submit, Save, Update, Resolve, Assign to me)."""

from __future__ import annotations

import json
from urllib.parse import urlparse

from fastapi import APIRouter, Request
from sqlmodel import select

from ...deps import ClockDep, SessionDep
from ...ui import redirect, render
from .. import choices as C
from .. import problems
from .. import slas
from ..common import display, get_or_404, sn_datetime
from ..models import Incident, Journal
from ..tables import REFS
from ..validation import FIELDS, JOURNAL_FIELDS, apply, current_values, mandatory, validate
from ..acl import ESS_INCIDENT_FIELDS, DeskUser, access
from .denied import denied

router = APIRouter()
REF_TABLES = {"caller_id": "sys_user", "cmdb_ci": "cmdb_ci", "assignment_group": "sys_user_group", "assigned_to": "sys_user", "company": "customer_account",
              "problem_id": "problem"}


def _labels(session, values: dict) -> dict[str, str]:
    return {name: display(session, ref, values.get(name)) if values.get(name) not in (None, "") and str(values.get(name)).isdigit() else ""
            for name, ref in REF_TABLES.items()}


def _activity(session, inc: Incident | None, acc) -> list[dict]:
    if inc is None or inc.id is None:
        return []
    return [e for e in journal_entries(session, "incident", inc.id) if acc.field("incident", e["kind"])]


def journal_entries(session, table_name: str, record_id: int) -> list[dict]:
    """A record's activity stream: work notes and comments, newest first."""
    from ...identity.models import User

    rows = session.exec(select(Journal).where(Journal.table_name == table_name, Journal.record_id == record_id).order_by(Journal.created_at.desc(), Journal.id.desc())).all()
    people = {u.id: u for u in session.exec(select(User).where(User.id.in_({r.author_id for r in rows}))).all()} if rows else {}
    return [{"kind": r.kind, "label": JOURNAL_FIELDS[r.kind], "author": people[r.author_id].name if r.author_id in people else "System",
             "when": r.created_at, "body": r.body} for r in rows]


def writable(acc, inc: Incident | None) -> tuple[str, ...] | None:
    """What the acting user may write on the incident (None: every field): a self-service user raises
    an incident with a few fields and adds comments to their own; itil writes everything."""
    if acc.by_role("incident", "write"):
        return None
    return ESS_INCIDENT_FIELDS if inc is None else acc.writable_fields("incident", inc)


def _locked(allowed: tuple[str, ...] | None) -> set[str]:
    """Fields shown read-only to the acting user (besides a closed incident's)."""
    return set() if allowed is None else (set(FIELDS) | set(JOURNAL_FIELDS)) - set(allowed)


def _page(request, session, user, inc: Incident | None, values: dict, errors: dict, journal: dict | None = None, back: str = "", *, clock):
    state = values.get("state") or "New"
    rules = {s: mandatory(s) for s in C.INCIDENT_STATES}
    acc = access(request)
    return render(
        request, "desk/incident.html", inc=inc, v=values, labels=_labels(session, values), errors=errors, journal=journal or {},
        C=C, rules_json=json.dumps(rules), subcats_json=json.dumps(C.CATEGORIES), priorities_json=json.dumps({str(k): v for k, v in C.PRIORITY.items()}),
        mandatory_now=mandatory(state), activity=_activity(session, inc, acc), read_only=inc is not None and inc.state in C.READ_ONLY_STATES,
        locked=_locked(writable(acc, inc)), fulfiller=acc.by_role("incident", "write"), work_notes_visible=acc.field("incident", "work_notes"),
        priority_label=C.PRIORITY.get(C.priority_of(values.get("impact") or 3, values.get("urgency") or 3), ""), back=back,
        customer_lookup="customer_account" in REFS, task_slas=_timers(session, inc, clock.now),
    )


def _duration(td) -> str:
    secs = int(abs(td.total_seconds()))
    text = f"{secs // 86400}d {secs % 86400 // 3600}h {secs % 3600 // 60}m" if secs >= 86400 else f"{secs // 3600}h {secs % 3600 // 60}m"
    return ("-" if td.total_seconds() < 0 else "") + text


def _timers(session, inc: Incident | None, now) -> list[dict]:
    if inc is None or inc.id is None:
        return []
    return [{"sla": t.sla, "target": t.target, "stage": t.stage, "breached": slas.breached(t, now), "percent": slas.elapsed_percent(t, now),
             "left": _duration(slas.time_left(t, now)) if t.stage != "Cancelled" else "", "start": sn_datetime(t.start_time),
             "breach": sn_datetime(t.breach_time), "stop": sn_datetime(t.stop_time)} for t in slas.timers_of(session, inc)]


def list_back(request: Request, fallback: str) -> str:
    """Where Update returns: the list the form was opened from, else ``fallback``."""
    ref = request.headers.get("referer", "")
    path = urlparse(ref)
    return (path.path + ("?" + path.query if path.query else "")) if path.path.endswith("_list.do") else fallback


@router.get("/incident.do")
def incident_form(request: Request, session: SessionDep, user: DeskUser, clock: ClockDep, sys_id: str = "-1", sysparm_query: str = ""):
    acc = access(request)
    if sys_id == "-1" and sysparm_query.startswith("number="):  # incident.do?sysparm_query=number=INC0010001
        inc = session.exec(select(Incident).where(Incident.number == sysparm_query[7:])).first()
        if inc is None:
            get_or_404(session, Incident, None, "incident")
        return redirect(request, f"/incident.do?sys_id={inc.id}")
    if sys_id == "-1":
        values = current_values(None)
        if not acc.by_role("incident", "write"):  # raised through self-service: the caller is you
            values.update(caller_id=user.id, contact_type="Self-service")
        return _page(request, session, user, None, values, {}, back=list_back(request, "/incident_list.do"), clock=clock)
    inc = get_or_404(session, Incident, sys_id, "incident")
    if not acc.can_row("incident", "read", inc):
        return denied(request, "This incident is not yours to see.")
    return _page(request, session, user, inc, current_values(inc), {}, back=list_back(request, "/incident_list.do"), clock=clock)


@router.post("/incident.do")
async def incident_save(request: Request, session: SessionDep, user: DeskUser, clock: ClockDep):
    form = await request.form()
    sys_id = str(form.get("sys_id", "-1"))
    inc = None if sys_id == "-1" else get_or_404(session, Incident, sys_id, "incident")
    action = str(form.get("sysverb", "save"))
    data = {name: form.get(name) for name in FIELDS if name in form}
    journal = {k: str(form.get(k, "")) for k in JOURNAL_FIELDS}
    acc = access(request)
    allowed = writable(acc, inc)
    if allowed is not None:  # a self-service user: only what their view offers is written
        if inc is not None and (not acc.can_row("incident", "read", inc) or not allowed or action not in ("save", "update")):
            return denied(request, "Only the service desk can change this incident.")
        data = {k: v for k, v in data.items() if k in allowed}
        journal = {k: (v if k in allowed else "") for k, v in journal.items()}
        if inc is None:
            data.update(caller_id=user.id, contact_type="Self-service", state="New")
    if action == "resolve":
        data["state"] = "Resolved"
    elif action == "assign_to_me":
        data["assigned_to"] = user.id
    back = str(form.get("sysparm_goto", "")) or "/incident_list.do"
    if inc is not None and inc.state in C.READ_ONLY_STATES and not data and any(journal.values()):
        errors = {"__all__": f"This incident is {inc.state.lower()} and can no longer be changed."}
        return _page(request, session, user, inc, current_values(inc), errors, journal, back, clock=clock)
    values, errors = validate(session, data, inc)
    if errors:
        return _page(request, session, user, inc, values, errors, journal, back, clock=clock)
    new = inc is None
    inc = apply(session, inc, values, journal, user, clock)
    if action == "create_problem":
        if inc.problem_id is not None:
            session.rollback()
            errors = {"__all__": f"This incident is already linked to problem {display(session, 'problem', inc.problem_id)}."}
            return _page(request, session, user, inc, current_values(inc), errors, journal, back, clock=clock)
        prb = problems.from_incident(session, inc, user, clock)
        session.commit()
        return redirect(request, f"/problem.do?sys_id={prb.id}", toast=f"Problem {prb.number} created from {inc.number}.")
    session.commit()
    verb = "created" if new else ("resolved" if action == "resolve" else "updated")
    if action in ("update", "insert") and back.startswith("/") and back.endswith(("_list.do",)) or action in ("update", "insert") and "_list.do?" in back:
        return redirect(request, back, toast=f"Incident {inc.number} {verb}.", link=f"/incident.do?sys_id={inc.id}", link_text=inc.number)
    return redirect(request, f"/incident.do?sys_id={inc.id}", toast=f"Incident {inc.number} {verb}.")
