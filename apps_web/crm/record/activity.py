"""The record page of one activity, like Salesforce's Task and Event pages: a header with the kind's
icon and actions (Mark Complete, Delete), highlights, and the details with inline edit. Activities
have no related lists or timeline of their own; they appear on the records they are about."""

from __future__ import annotations

from sqlmodel import Session

from ...identity.models import User
from ...world import WorldClock
from ..models import Activity
from ..objects import OBJECTS
from .layouts import layout_of
from .page import display_row, edit_context, load_refs
from .timeline import KIND_ICON, KIND_LABEL


def completable(activity: Activity) -> bool:
    """Mark Complete applies to open tasks (a logged call is done; an event is over when it ends)."""
    return activity.kind == "task" and activity.status != "Completed"


def build_activity_page(session: Session, record: Activity, clock: WorldClock, users: dict[int, User] | None = None) -> dict:
    from ..common import users_by_id

    layout = layout_of("activity", record)
    users = users if users is not None else users_by_id(session)
    refs = load_refs(session, layout, record)
    kind_icon, color = KIND_ICON.get(record.kind, KIND_ICON["task"])
    return {
        "obj": OBJECTS["activity"],
        "object_key": "activity",
        "record": record,
        "title": record.subject,
        "kind_label": KIND_LABEL.get(record.kind, "Task"),
        "kind_icon": kind_icon,
        "color": color,
        "highlights": [display_row(f, record, refs, users) for f in layout.highlights],
        "sections": [(title, [display_row(f, record, refs, users) for f in fields]) for title, fields in layout.sections],
        "completable": completable(record),
        "base": OBJECTS["activity"].url(record.id),
        **edit_context(users, clock),
    }
