"""The activity timeline of a record: "Upcoming & Overdue" first, then past activities by month."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlmodel import Session

from ...identity.models import User
from ...world import WorldClock
from ..models import Activity
from .related import load_activities

TIMELINE_LIMIT = 100  # past activities shown; the related list's View All has the rest
KIND_ICON = {"task": ("task", "#3ba755"), "call": ("call", "#48c3cc"), "meeting": ("event", "#cb65ff")}
KIND_LABEL = {"task": "Task", "call": "Call", "meeting": "Event"}


@dataclass
class TimelineItem:
    activity: Activity
    when: date | datetime | None
    overdue: bool
    assignee: str

    @property
    def icon(self) -> str:
        return KIND_ICON.get(self.activity.kind, KIND_ICON["task"])[0]

    @property
    def color(self) -> str:
        return KIND_ICON.get(self.activity.kind, KIND_ICON["task"])[1]

    @property
    def kind_label(self) -> str:
        return KIND_LABEL.get(self.activity.kind, "Task")

    @property
    def completable(self) -> bool:
        return self.activity.kind == "task" and self.activity.status != "Completed"


def _is_open(a: Activity, now: datetime) -> bool:
    if a.kind == "meeting":
        return a.start_at is not None and a.start_at >= now
    return a.status != "Completed"


def _when(a: Activity):
    if a.kind == "meeting":
        return a.start_at
    if a.status == "Completed" and a.due_date is None:
        return a.completed_at
    return a.due_date


def _sort_key(item: TimelineItem) -> tuple:
    w = item.when
    if w is None:
        return (datetime.min, item.activity.id or 0)
    return (w if isinstance(w, datetime) else datetime(w.year, w.month, w.day), item.activity.id or 0)


def build_timeline(session: Session, users: dict[int, User], object_key: str, record_id: int, clock: WorldClock,
                   activities: list[Activity] | None = None) -> dict:
    acts = activities if activities is not None else load_activities(session, object_key, record_id)
    now, today = clock.now, clock.today
    upcoming: list[TimelineItem] = []
    past: list[TimelineItem] = []
    for a in acts:
        assignee = users[a.assignee_id].name if a.assignee_id in users else ""
        when = _when(a)
        if _is_open(a, now):
            due = when.date() if isinstance(when, datetime) else when
            upcoming.append(TimelineItem(a, when, a.kind == "task" and due is not None and due < today, assignee))
        else:
            past.append(TimelineItem(a, when, False, assignee))
    upcoming.sort(key=_sort_key)
    past.sort(key=_sort_key, reverse=True)
    months: list[tuple[str, list[TimelineItem]]] = []
    for item in past[:TIMELINE_LIMIT]:
        w = item.when
        if w is None:
            label = "No date"
        elif (w.year, w.month) == (today.year, today.month):
            label = "This Month"
        else:
            label = f"{w:%B} • {w.year}"
        if not months or months[-1][0] != label:
            months.append((label, []))
        months[-1][1].append(item)
    shown = min(len(past), TIMELINE_LIMIT)
    return {"upcoming": upcoming, "months": months, "past_total": len(past), "past_shown": shown, "today": today}
