"""Activities and notes from a record page: Log a Call, New Task, New Event, complete a task, new note.

Every form names the record it belongs to (``related_type`` + ``related_id``); after saving, the
browser goes back to that record's Activity tab (or Related tab for notes) with a toast.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import User
from ...ui import redirect
from .. import picklists as pl
from ..common import get_or_404, stamp
from ..models import Activity, Note
from ..objects import OBJECTS
from .records import RECORD_OBJECTS, record_url, render_record

router = APIRouter()
KIND_NAMES = {"task": "Task", "call": "Call", "meeting": "Event"}
ACTIVITY_FIELDS = ("kind", "subject", "due_date", "start_at", "end_at", "location", "description", "call_result",
                   "priority", "status", "assignee_id", "origin")


def _text(form, key: str) -> str:
    """A posted text value, trimmed, with the browser's CRLF line breaks stored as LF."""
    return str(form.get(key, "")).replace("\r\n", "\n").strip()


def related_record(session, form) -> tuple[str, Any]:
    related_type = str(form.get("related_type", ""))
    related_id = str(form.get("related_id", ""))
    if related_type not in RECORD_OBJECTS or not related_id.isdigit():
        raise HTTPException(400, "The activity must belong to a record.")
    obj = OBJECTS[related_type]
    return related_type, get_or_404(session, obj.model, int(related_id), obj.label)


def _date(value: str, errors: dict, key: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        errors[key] = "Enter a valid date, such as 2026-03-16."
        return None


def _datetime(value: str, errors: dict, key: str) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value).replace(second=0, microsecond=0, tzinfo=None)
    except ValueError:
        errors[key] = "Enter a valid date and time."
        return None


def parse_activity(session, values: dict[str, str], clock, user: User) -> tuple[Activity | None, dict[str, str]]:
    errors: dict[str, str] = {}
    kind = values["kind"] if values["kind"] in KIND_NAMES else "task"
    subject = values["subject"]
    if not subject:
        errors["subject"] = "Complete this field."
    elif len(subject) > 255:
        errors["subject"] = "Use 255 characters or fewer."
    act = Activity(kind=kind, subject=subject, description=values["description"] or None)
    assignee = session.get(User, int(values["assignee_id"])) if values["assignee_id"].isdigit() else user
    if assignee is None or not assignee.active:
        errors["assignee_id"] = "Choose an active user."
    else:
        act.assignee_id = assignee.id
    if kind == "call":
        act.due_date = _date(values["due_date"], errors, "due_date") or clock.today
        act.status = "Completed"
        act.completed_at = clock.now
        if values["call_result"]:
            if values["call_result"] not in pl.CALL_RESULTS:
                errors["call_result"] = "Choose a call result from the list."
            act.call_result = values["call_result"]
    elif kind == "task":
        act.due_date = _date(values["due_date"], errors, "due_date")
        act.status = values["status"] or "Not Started"
        act.priority = values["priority"] or "Normal"
        if act.status not in pl.TASK_STATUSES:
            errors["status"] = "Choose a status from the list."
        if act.priority not in pl.TASK_PRIORITIES:
            errors["priority"] = "Choose a priority from the list."
        if act.status == "Completed":
            act.completed_at = clock.now
    else:
        start = _datetime(values["start_at"], errors, "start_at")
        end = _datetime(values["end_at"], errors, "end_at")
        if start is None and "start_at" not in errors:
            errors["start_at"] = "Complete this field."
        if start is not None:
            end = end or start + timedelta(hours=1)
            if end < start:
                errors["end_at"] = "The end must be after the start."
            act.start_at, act.end_at, act.due_date = start, end, start.date()
            act.status = "Completed" if end <= clock.now else "Not Started"
            act.completed_at = end if end <= clock.now else None
        act.location = values["location"] or None
    return (None, errors) if errors else (act, {})


@router.post("/activities/new", include_in_schema=False)
async def new_activity(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    form = await request.form()
    related_type, record = related_record(session, form)
    values = {k: _text(form, k) for k in ACTIVITY_FIELDS}
    act, errors = parse_activity(session, values, clock, user)
    if errors:
        dialog = "new-task-dialog" if values["origin"] == "dialog" else None
        return render_record(request, session, user, clock, related_type, record, tab="related" if dialog else "activity",
                             status_code=422, open_dialog=dialog, composer={"kind": values["kind"], "values": values, "errors": errors,
                                                                          "origin": values["origin"]})
    act.related_type, act.related_id = related_type, record.id
    if related_type == "contact":
        act.contact_id = record.id
    stamp(act, user, clock, created=True)
    session.add(act)
    session.commit()
    what = {"call": "Call", "task": "Task", "meeting": "Event"}[act.kind]
    toast = f'{what} "{act.subject}" was logged.' if act.kind == "call" else f'{what} "{act.subject}" was created.'
    tab = "related" if values["origin"] == "dialog" else "activity"
    return redirect(request, record_url(related_type, record.id, tab), toast=toast)


@router.post("/activities/{activity_id:int}/complete", include_in_schema=False)
async def complete_activity(request: Request, activity_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    act = get_or_404(session, Activity, activity_id, "Task")
    form = await request.form()
    if act.status != "Completed":
        act.status = "Completed"
        act.completed_at = clock.now
        stamp(act, user, clock)
        session.add(act)
        session.commit()
    target = str(form.get("next", ""))
    if not target.startswith("/") or target.startswith("//"):
        target = record_url(act.related_type, act.related_id, "activity") if act.related_type in RECORD_OBJECTS else "/"
    return redirect(request, target, toast=f'Task "{act.subject}" was marked complete.')


@router.post("/notes/new", include_in_schema=False)
async def new_note(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    form = await request.form()
    related_type, record = related_record(session, form)
    values = {"title": _text(form, "title"), "body": _text(form, "body")}
    errors: dict[str, str] = {}
    if not values["title"]:
        errors["title"] = "Complete this field."
    elif len(values["title"]) > 255:
        errors["title"] = "Use 255 characters or fewer."
    if errors:
        return render_record(request, session, user, clock, related_type, record, tab="related", status_code=422,
                             open_dialog="new-note-dialog", note={"values": values, "errors": errors})
    note = Note(title=values["title"], body=values["body"] or None, related_type=related_type, related_id=record.id, owner_id=user.id)
    stamp(note, user, clock, created=True)
    session.add(note)
    session.commit()
    return redirect(request, record_url(related_type, record.id, "related"), toast=f'Note "{note.title}" was created.')
