"""Task SLAs of incidents: a response and a resolution timer per incident, with targets by priority,
measured against the world clock (calendar time). A timer has breached when it stopped after its
breach time, or is still running and the world clock has passed it; that depends on the clock, so
it is computed (in SQL for list filters, in Python for display), never stored.

The response timer stops when someone is assigned or the incident leaves New; the resolution timer
when it is resolved; both are cancelled when it is canceled; a priority change moves their targets.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import and_, case, exists, literal, select
from sqlmodel import Session

from .models import Incident, TaskSLA

# priority -> (response hours, resolution hours)
TARGETS: dict[int, tuple[float, float]] = {1: (0.5, 4), 2: (1, 8), 3: (4, 72), 4: (8, 120), 5: (24, 240)}


def _hours(h: float) -> str:
    if h < 1:
        return f"{int(h * 60)} minute"
    if h < 24 or h % 24:
        return f"{h:g} hour"
    return f"{int(h // 24)} day"


def definition(priority: int, target: str) -> tuple[str, float]:
    hours = TARGETS[priority][0 if target == "Response" else 1]
    return f"Priority {priority} {target.lower()} ({_hours(hours)})", hours


def breached(sla: TaskSLA, now: datetime) -> bool:
    if sla.breach_time is None or sla.stage == "Cancelled":
        return False
    return (sla.stop_time or now) > sla.breach_time


def elapsed_percent(sla: TaskSLA, now: datetime) -> float:
    if sla.start_time is None or sla.breach_time is None:
        return 0.0
    total = (sla.breach_time - sla.start_time).total_seconds()
    spent = ((sla.stop_time or now) - sla.start_time).total_seconds()
    return round(100 * spent / total, 2) if total > 0 else 0.0


def time_left(sla: TaskSLA, now: datetime) -> timedelta:
    return (sla.breach_time - (sla.stop_time or now)) if sla.breach_time else timedelta(0)


def breached_sql(now: datetime):
    """SQL of "this task SLA has breached" at ``now``."""
    return and_(TaskSLA.stage != "Cancelled", case((TaskSLA.stop_time.is_(None), literal(now) > TaskSLA.breach_time), else_=TaskSLA.stop_time > TaskSLA.breach_time) == True)  # noqa: E712


def incident_breached_sql(now: datetime):
    """SQL of "this incident has a breached SLA" at ``now``."""
    return exists(select(TaskSLA.id).where(TaskSLA.task_id == Incident.id, breached_sql(now)))


def new_timers(inc: Incident, start: datetime) -> list[TaskSLA]:
    out = []
    for target in ("Response", "Resolution"):
        name, hours = definition(inc.priority, target)
        out.append(TaskSLA(task_id=inc.id, sla=name, target=target, stage="In progress", start_time=start, breach_time=start + timedelta(hours=hours)))
    return out


def sync(session: Session, inc: Incident, before: dict | None, now: datetime) -> None:
    """Start, stop, cancel or re-target the incident's timers after a save (``before``: its values
    before the save, None for a new incident)."""
    if before is None:
        session.add_all(new_timers(inc, now))
        session.flush()
    timers = list(session.execute(select(TaskSLA).where(TaskSLA.task_id == inc.id)).scalars().all())
    for t in timers:
        if inc.state == "Canceled":
            if t.stage == "In progress":
                t.stage, t.stop_time = "Cancelled", now
        elif t.target == "Response":
            if t.stage == "In progress" and (inc.assigned_to_id is not None or inc.state != "New"):
                t.stage, t.stop_time = "Completed", now
        elif inc.state in ("Resolved", "Closed"):
            if t.stage == "In progress":
                t.stage, t.stop_time = "Completed", now
        elif t.stage == "Completed" and before is not None and before.get("state") in ("Resolved", "Closed"):
            t.stage, t.stop_time = "In progress", None  # reopened: the resolution timer runs again
        if t.stage == "In progress" and before is not None and before.get("priority") != inc.priority:
            t.sla, hours = definition(inc.priority, t.target)
            t.breach_time = t.start_time + timedelta(hours=hours)
        session.add(t)


def timers_of(session: Session, inc: Incident) -> list[TaskSLA]:
    return list(session.execute(select(TaskSLA).where(TaskSLA.task_id == inc.id).order_by(TaskSLA.id)).scalars().all())
