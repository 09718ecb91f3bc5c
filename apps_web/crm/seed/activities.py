"""Tasks, calls and meetings around the world clock, and notes, on every kind of record."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from ..models import Activity, Note
from ..picklists import CALL_RESULTS
from . import vocab
from .base import Built, between, business_time, weighted

ACTIVITIES_PER_SCALE = 1000
NOTES_PER_SCALE = 200
RELATED = {"opportunity": 30, "account": 20, "contact": 20, "case": 15, "lead": 15}
KINDS = {"task": 45, "call": 35, "meeting": 20}
OPEN_TASK_STATUSES = {"Not Started": 55, "In Progress": 30, "Waiting on someone else": 10, "Deferred": 5}


class _Targets:
    """Records activities can be about, with the user who would do the work and the contact involved."""

    def __init__(self, built: Built) -> None:
        self.built = built
        self.pools = {
            "account": built.accounts,
            "contact": built.contacts,
            "opportunity": built.opportunities,
            "case": built.cases,
            "lead": [lead for lead in built.leads if lead.status != "Closed - Converted"],
        }

    def pick(self, rng, kind: str):
        record = rng.choice(self.pools[kind])
        contact = None
        if kind == "contact":
            contact = record
        elif kind == "case":
            contact = self.built.contacts[record.contact_id - 1] if record.contact_id else None
        elif kind in ("account", "opportunity"):
            acct_id = record.id if kind == "account" else record.account_id
            people = self.built.contacts_by_account.get(acct_id, [])
            contact = rng.choice(people) if people else None
        return record, contact

    def fill(self, text: str, kind: str, record, contact) -> str:
        return text.format(
            contact=contact.name if contact else "the customer",
            opportunity=record.name if kind == "opportunity" else "the deal",
            lead=record.name if kind == "lead" else "",
            company=record.company if kind == "lead" else "",
        )


def seed_activities(built: Built) -> list[Activity]:
    ctx, now = built.ctx, built.now
    today = now.date()
    rng = ctx.random("crm.activities")
    targets = _Targets(built)
    out: list[Activity] = []
    for i in range(ACTIVITIES_PER_SCALE * ctx.scale):
        rel = weighted(rng, RELATED)
        record, contact = targets.pick(rng, rel)
        kind = weighted(rng, KINDS)
        assignee = record.owner_id if rng.random() < 0.85 else rng.choice(built.sales_reps if rel != "case" else built.support_agents).id
        # Most activity is recent history; about a quarter is planned for the coming weeks.
        offset = rng.randint(1, 30) if rng.random() < 0.25 else -rng.randint(0, 90)
        due = today + timedelta(days=offset)
        not_before = record.created_at
        act = Activity(id=i + 1, kind=kind, related_type=rel, related_id=record.id, contact_id=contact.id if contact else None, assignee_id=assignee)
        if kind == "task":
            act.subject = targets.fill(rng.choice(vocab.TASK_SUBJECTS[rel]), rel, record, contact)
            act.priority = weighted(rng, {"High": 20, "Normal": 65, "Low": 15})
            act.due_date = due
            done = rng.random() < (0.75 if due < today else 0.1 if due == today else 0.05)
            act.status = "Completed" if done else weighted(rng, OPEN_TASK_STATUSES)
            created = max(not_before, datetime.combine(due, time(9)) - timedelta(days=rng.randint(1, 21), hours=rng.randint(0, 8)))
            if done:
                act.completed_at = min(now - timedelta(minutes=10), max(created, datetime.combine(due, time(9)) + timedelta(hours=rng.randint(0, 30))))
        elif kind == "call":
            act.subject = targets.fill(rng.choice(vocab.CALL_SUBJECTS[rel]), rel, record, contact)
            act.priority = "Normal"
            planned = offset > 0
            act.due_date = due
            start = business_time(rng, due)
            if planned:
                act.status = "Not Started"
                created = max(not_before, now - timedelta(days=rng.randint(0, 10), hours=rng.randint(1, 8)))
            else:
                act.status = "Completed"
                act.call_duration_min = rng.choice([2, 5, 8, 12, 15, 20, 30, 45])
                start = min(start, now - timedelta(minutes=act.call_duration_min + 20))
                act.call_result = weighted(rng, dict(zip(CALL_RESULTS, [55, 20, 12, 3, 10])))
                act.completed_at = start + timedelta(minutes=act.call_duration_min)
                created = max(not_before, act.completed_at)  # logged right after the call
                act.due_date = start.date()
        else:
            act.subject = targets.fill(rng.choice(vocab.MEETING_SUBJECTS[rel]), rel, record, contact)
            act.priority = "Normal"
            act.start_at = business_time(rng, due)
            act.end_at = act.start_at + timedelta(minutes=rng.choice([30, 30, 60, 60, 90]))
            act.due_date = due
            act.location = rng.choice(vocab.MEETING_LOCATIONS)
            if act.end_at <= now:
                act.status = "Completed"
                act.completed_at = act.end_at
            else:
                act.status = "Not Started"
            created = max(not_before, act.start_at - timedelta(days=rng.randint(1, 14)))
        created = min(created, now - timedelta(minutes=15))
        if act.completed_at is not None and act.completed_at < created:
            act.completed_at = created  # a record created after the fact is completed when logged
        act.description = rng.choice(vocab.NOTE_BODIES).format(q=rng.randint(1, 4), month=rng.choice(["June", "September", "December"])) if rng.random() < 0.25 else None
        act.created_at = created
        act.updated_at = act.completed_at or created
        act.created_by_id = assignee
        out.append(act)
    return out


def seed_notes(built: Built) -> list[Note]:
    ctx, now = built.ctx, built.now
    rng = ctx.random("crm.notes")
    targets = _Targets(built)
    notes: list[Note] = []
    for i in range(NOTES_PER_SCALE * ctx.scale):
        rel = weighted(rng, {"account": 30, "opportunity": 30, "contact": 15, "case": 15, "lead": 10})
        record, _ = targets.pick(rng, rel)
        body = " ".join(b.format(q=rng.randint(1, 4), month=rng.choice(["June", "September", "December"])) for b in rng.sample(vocab.NOTE_BODIES, rng.randint(1, 3)))
        created = between(rng, record.created_at, now - timedelta(hours=1))
        notes.append(Note(
            id=i + 1, title=rng.choice(vocab.NOTE_TITLES[rel]), body=body, related_type=rel, related_id=record.id,
            owner_id=record.owner_id, created_at=created, updated_at=created, created_by_id=record.owner_id,
        ))
    return notes

