"""Task SLAs of the seeded incidents: a response timer (stopped by the first work note of the
assignee, or the resolution) and a resolution timer (stopped when resolved), by priority."""

from __future__ import annotations

from datetime import timedelta

from ...world.seeding import SeedContext
from ..models import TaskSLA
from ..slas import definition
from .base import insert


def seed_slas(ctx: SeedContext, incidents: list[dict], journals: list[dict]) -> None:
    first_note: dict[int, object] = {}
    for j in journals:  # in time order within each incident
        if j["kind"] == "work_notes" and j["record_id"] not in first_note:
            first_note[j["record_id"]] = j["created_at"]
    rows = []
    for inc in incidents:
        start = inc["opened_at"]
        for target in ("Response", "Resolution"):
            name, hours = definition(inc["priority"], target)
            stop = first_note.get(inc["id"]) if target == "Response" else None
            if stop is None and inc["resolved_at"] is not None:
                stop = inc["resolved_at"]
            if target == "Response" and stop is None and inc["assigned_to_id"] is not None:
                stop = start + timedelta(minutes=20)
            stage = "Completed" if stop is not None else "In progress"
            if inc["state"] == "Canceled":
                stage, stop = "Cancelled", inc["closed_at"]
            rows.append({"id": len(rows) + 1, "task_id": inc["id"], "sla": name, "target": target, "stage": stage,
                         "start_time": start, "stop_time": stop, "breach_time": start + timedelta(hours=hours)})
    insert(ctx, TaskSLA, rows)
