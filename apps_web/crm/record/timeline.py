"""The activity timeline of a record: "Upcoming & Overdue" first, then past activities by month,
with Lightning's filters (a date range and the activity types) and the record's emails."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Mapping

from sqlmodel import Session

from ...identity.models import User
from ...world import WorldClock
from ..models import Activity
from .related import load_activities

TIMELINE_LIMIT = 100  # past activities shown; the related list's View All has the rest
KIND_ICON = {"task": ("task", "#3ba755"), "call": ("call", "#48c3cc"), "meeting": ("event", "#cb65ff")}
KIND_LABEL = {"task": "Task", "call": "Call", "meeting": "Event"}
EMAIL_ICON = ("mail", "#95aec5")
# The filter panel: date ranges and activity types (an activity's kind -> its type).
RANGES = {"all": "All time", "last7": "Last 7 days", "next7": "Next 7 days", "last30": "Last 30 days"}
TYPES = {"email": "Email", "event": "Events", "call": "Logged calls", "task": "Tasks"}
TYPE_OF_KIND = {"task": "task", "call": "call", "meeting": "event", "email": "email"}


@dataclass
class TimelineFilter:
    range: str = "all"
    types: tuple[str, ...] = tuple(TYPES)

    @classmethod
    def from_query(cls, query: Mapping[str, Any] | None) -> "TimelineFilter":
        """``?tl_range=last7&tl_type=email&tl_type=task`` (no ``tl_type`` means every type)."""
        if query is None:
            return cls()
        rng = str(query.get("tl_range") or "all")
        types = query.getlist("tl_type") if hasattr(query, "getlist") else list(query.get("tl_type") or [])
        picked = tuple(t for t in TYPES if t in types)
        return cls(range=rng if rng in RANGES else "all", types=picked or tuple(TYPES))

    @property
    def is_default(self) -> bool:
        return self.range == "all" and set(self.types) == set(TYPES)

    @property
    def summary(self) -> str:
        """The line above the timeline: "Filters: All time • All activities • All types"."""
        types = "All types" if set(self.types) == set(TYPES) else ", ".join(TYPES[t] for t in self.types)
        return f"Filters: {RANGES[self.range]} • All activities • {types}"

    def window(self, today: date) -> tuple[date, date] | None:
        if self.range == "last7":
            return today - timedelta(days=7), today
        if self.range == "last30":
            return today - timedelta(days=30), today
        if self.range == "next7":
            return today, today + timedelta(days=7)
        return None

    def keeps(self, kind: str, when: date | datetime | None, today: date) -> bool:
        if TYPE_OF_KIND.get(kind, "task") not in self.types:
            return False
        window = self.window(today)
        if window is None:
            return True
        if when is None:
            return False
        day = when.date() if isinstance(when, datetime) else when
        return window[0] <= day <= window[1]


@dataclass
class TimelineItem:
    activity: Activity | None
    when: date | datetime | None
    overdue: bool
    assignee: str
    email: Any = None  # an EmailEntry (apps_web.crm.email.timeline) for an email row
    kind: str = field(init=False)

    def __post_init__(self) -> None:
        self.kind = "email" if self.email is not None else self.activity.kind

    @property
    def key(self) -> str:
        return self.email.key if self.email is not None else f"act-{self.activity.id}"

    @property
    def icon(self) -> str:
        return EMAIL_ICON[0] if self.email is not None else KIND_ICON.get(self.activity.kind, KIND_ICON["task"])[0]

    @property
    def color(self) -> str:
        return EMAIL_ICON[1] if self.email is not None else KIND_ICON.get(self.activity.kind, KIND_ICON["task"])[1]

    @property
    def kind_label(self) -> str:
        return "Email" if self.email is not None else KIND_LABEL.get(self.activity.kind, "Task")

    @property
    def completable(self) -> bool:
        return self.email is None and self.activity.kind == "task" and self.activity.status != "Completed"


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
    tie = (0, item.activity.id or 0) if item.email is None else (1, int(item.email.key.rsplit("-", 1)[1]))
    if w is None:
        return (datetime.min, tie)
    return (w if isinstance(w, datetime) else datetime(w.year, w.month, w.day), tie)


def build_timeline(session: Session, users: dict[int, User], object_key: str, record_id: int, clock: WorldClock,
                   activities: list[Activity] | None = None, *, record: Any = None, filters: TimelineFilter | None = None) -> dict:
    """``record`` (when given) adds its emails; ``filters`` narrows the rows to a date range and types."""
    acts = activities if activities is not None else load_activities(session, object_key, record_id)
    filters = filters or TimelineFilter()
    now, today = clock.now, clock.today
    upcoming: list[TimelineItem] = []
    past: list[TimelineItem] = []
    for a in acts:
        assignee = users[a.assignee_id].name if a.assignee_id in users else ""
        when = _when(a)
        if not filters.keeps(a.kind, when, today):
            continue
        if _is_open(a, now):
            due = when.date() if isinstance(when, datetime) else when
            upcoming.append(TimelineItem(a, when, a.kind == "task" and due is not None and due < today, assignee))
        else:
            past.append(TimelineItem(a, when, False, assignee))
    if record is not None and "email" in filters.types:
        from ..email.timeline import load_emails

        for e in load_emails(session, object_key, record):
            if filters.keeps("email", e.when, today):
                past.append(TimelineItem(None, e.when, False, e.from_name, email=e))
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
    return {"upcoming": upcoming, "months": months, "past_total": len(past), "past_shown": shown, "today": today,
            "filters": filters, "ranges": RANGES, "types": TYPES}
