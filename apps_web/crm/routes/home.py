"""Home: greeting, my open tasks (complete with one click), pipeline chart, recent records, key deals."""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy import func, nulls_last
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect, render
from ..quotes import items_to_approve
from ..charts import Bar, money_chart
from ..common import get_or_404, recent_records, stamp
from ..models import Account, Activity, Case, Contact, Lead, Opportunity
from ..objects import OBJECTS
from ..sharing import visible_here
from ..picklists import OPEN_STAGES

router = APIRouter()

TASK_DONE = "Completed"
KEY_DEALS = 5
RELATED_NAME = {  # related_type -> (model, how its name reads)
    "account": (Account, lambda r: r.name),
    "contact": (Contact, lambda r: r.name),
    "lead": (Lead, lambda r: r.name),
    "opportunity": (Opportunity, lambda r: r.name),
    "case": (Case, lambda r: f"{r.case_number} {r.subject}"),
}


def open_tasks(session, user_id: int) -> list[Activity]:
    """My open tasks, soonest due first (undated last), then by id: the order the card shows."""
    query = (select(Activity).where(Activity.kind == "task", Activity.assignee_id == user_id, Activity.status != TASK_DONE)
             .order_by(nulls_last(Activity.due_date.asc()), Activity.id))
    return list(session.exec(query).all())


def related_names(session, activities: list[Activity]) -> dict[tuple[str, int], str]:
    """Names of the records the activities relate to, one query per object type."""
    wanted: dict[str, set[int]] = {}
    for a in activities:
        if a.related_type in RELATED_NAME and a.related_id is not None:
            wanted.setdefault(a.related_type, set()).add(a.related_id)
    out: dict[tuple[str, int], str] = {}
    for key, ids in wanted.items():
        model, name = RELATED_NAME[key]
        for record in session.exec(select(model).where(model.id.in_(ids))).all():
            out[(key, record.id)] = name(record)
    return out


def pipeline_by_stage(session) -> list[tuple[str, int, float]]:
    """(stage, count, amount) of every open opportunity, in stage order (empty stages included)."""
    rows = session.exec(
        select(Opportunity.stage, func.count(Opportunity.id), func.coalesce(func.sum(Opportunity.amount), 0))
        .where(Opportunity.stage.in_(OPEN_STAGES), *visible_here(session, "opportunity")).group_by(Opportunity.stage)
    ).all()
    found = {stage: (count, float(total)) for stage, count, total in rows}
    return [(stage, *found.get(stage, (0, 0.0))) for stage in OPEN_STAGES]


def _greeting(hour: int) -> str:
    return "Good morning" if hour < 12 else "Good afternoon" if hour < 18 else "Good evening"


@router.get("/")
def home(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    tasks = open_tasks(session, user.id)
    names = related_names(session, tasks)
    pipeline = pipeline_by_stage(session)
    chart = money_chart(
        [Bar(stage, total) for stage, _count, total in pipeline],
        title="Pipeline by Stage", description="Sum of the amounts of the open opportunities you can see, by stage.", chart_id="pipeline-chart",
    )
    key_deals = session.exec(
        select(Opportunity).where(Opportunity.owner_id == user.id, Opportunity.stage.in_(OPEN_STAGES))
        .order_by(nulls_last(Opportunity.amount.desc()), Opportunity.close_date, Opportunity.id).limit(KEY_DEALS)
    ).all()
    account_ids = {o.account_id for o in key_deals if o.account_id}
    accounts = {a.id: a for a in session.exec(select(Account).where(Account.id.in_(account_ids))).all()} if account_ids else {}

    # This quarter (world clock): my closed-won deals, and my open deals still due to close in it.
    q_start, q_end = clock.quarter_start, clock.quarter_end
    in_quarter = (Opportunity.owner_id == user.id, Opportunity.close_date >= q_start, Opportunity.close_date <= q_end)
    won_count, won_total = session.exec(
        select(func.count(Opportunity.id), func.coalesce(func.sum(Opportunity.amount), 0)).where(Opportunity.stage == "Closed Won", *in_quarter)
    ).one()
    open_count, open_total = session.exec(
        select(func.count(Opportunity.id), func.coalesce(func.sum(Opportunity.amount), 0)).where(Opportunity.stage.in_(OPEN_STAGES), *in_quarter)
    ).one()

    recent = [(OBJECTS[key], record) for key, record in recent_records(session, user, limit=8)]
    return render(
        request,
        "crm/home.html",
        greeting=_greeting(clock.now.hour),
        today=clock.today,
        tasks=tasks,
        related=names,
        pipeline=pipeline,
        pipeline_total=sum(t for _s, _c, t in pipeline),
        pipeline_count=sum(c for _s, c, _t in pipeline),
        chart=chart,
        key_deals=key_deals,
        accounts=accounts,
        quarter={"start": q_start, "end": q_end, "label": f"Q{(q_start.month - 1) // 3 + 1} {q_start.year}",
                 "won_count": won_count, "won_total": float(won_total), "open_count": open_count, "open_total": float(open_total)},
        recent=recent,
        objects=OBJECTS,
        approvals=items_to_approve(session, user, limit=5),
    )


@router.post("/home/tasks/{task_id}/complete")
def complete_task(request: Request, task_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep):
    task = get_or_404(session, Activity, task_id, "task")
    if task.status != TASK_DONE:
        task.status = TASK_DONE
        task.completed_at = clock.now
        stamp(task, user, clock)
        session.add(task)
        session.commit()
    return redirect(request, "/", toast=f'Task "{task.subject}" was marked complete.')
