"""Tasks tab: the user's tasks (``crm_activity`` rows of kind ``task``) in Salesforce's list views,
with Mark Complete.

  GET /tasks?view=mine|overdue|today|completed|delegated

*My Tasks*: open tasks assigned to me; *Overdue*: mine, open, due before today; *Today*: mine, open,
due today or overdue (Salesforce's "Today" view); *Completed Tasks*: mine, completed; *Delegated
Tasks*: open tasks I created for someone else. Mark Complete posts to ``/activities/<id>/complete``
and comes back here.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy import and_, or_
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import fmt_date, render
from ..models import Activity
from ..objects import OBJECTS

router = APIRouter(include_in_schema=False)
VIEWS = {"mine": "My Tasks", "overdue": "Overdue Tasks", "today": "Today's Tasks", "completed": "Completed Tasks", "delegated": "Delegated Tasks"}
LIMIT = 200


@router.get("/tasks")
def tasks_tab(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, view: str = "mine"):
    view = view if view in VIEWS else "mine"
    today = clock.today
    q = select(Activity).where(Activity.kind == "task")
    done = Activity.status == "Completed"
    if view == "delegated":
        q = q.where(Activity.created_by_id == user.id, or_(Activity.assignee_id.is_(None), Activity.assignee_id != user.id), ~done)
    else:
        q = q.where(Activity.assignee_id == user.id)
        if view == "completed":
            q = q.where(done)
        else:
            q = q.where(~done)
            if view == "overdue":
                q = q.where(Activity.due_date < today)
            elif view == "today":
                q = q.where(and_(Activity.due_date.is_not(None), Activity.due_date <= today))
    order = (Activity.completed_at.desc(), Activity.id.desc()) if view == "completed" else (Activity.due_date.is_(None), Activity.due_date, Activity.id)
    rows = list(session.exec(q.order_by(*order).limit(LIMIT)).all())
    names: dict[tuple[str, int], str] = {}
    by_type: dict[str, set[int]] = {}
    for a in rows:
        if a.related_type in OBJECTS and a.related_id:
            by_type.setdefault(a.related_type, set()).add(a.related_id)
    for key, ids in by_type.items():
        model = OBJECTS[key].model
        for rec in session.exec(select(model).where(model.id.in_(ids))).all():
            label = getattr(rec, "name", None) or " ".join(x for x in (getattr(rec, "case_number", None), getattr(rec, "subject", None)) if x)
            names[(key, rec.id)] = label
    from ..common import users_by_id

    return render(request, "crm/tasks.html", rows=rows, view=view, views=VIEWS, names=names, objects=OBJECTS, users=users_by_id(session),
                  today=today, here=f"/tasks?view={view}", fmt_date=fmt_date)
