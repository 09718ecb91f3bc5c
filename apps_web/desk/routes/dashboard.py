"""The Service Desk dashboard (``/dashboard``): server-rendered charts of open incidents by priority
and by assignment group, changes by state and problems by state, each bar or slice linking to the
filtered list. Values show in tooltips on hover and in each chart's accessible description."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from sqlalchemy import func, select

from ...deps import ClockDep, SessionDep
from ...ui import render
from ...ui.charts import Bar, bar_chart, pie_chart
from .. import choices as C
from ..models import ChangeRequest, Group, Incident, Problem
from ..slas import incident_breached_sql
from ..acl import DeskUser, access
from .denied import denied

router = APIRouter()
OPEN_Q = "stateINNew,In Progress,On Hold"
# ServiceNow-like colours for the desk's charts
PALETTE = ["#1f8476", "#4a7fd0", "#f0b400", "#c8102e", "#7b5ea7", "#2e8540", "#e37b22", "#5b6770"]


def _href(table: str, query: str) -> str:
    return f"/{table}_list.do?sysparm_query={quote(query, safe='=^,')}"


@router.get("/dashboard")
def dashboard(request: Request, session: SessionDep, user: DeskUser, clock: ClockDep):
    if not access(request).by_role("incident", "read"):
        return denied(request, "The Service Desk dashboard is for the service desk.")
    open_inc = Incident.state.in_(C.OPEN_STATES)
    by_pri = dict(session.execute(select(Incident.priority, func.count()).where(open_inc).group_by(Incident.priority)).all())
    pri_bars = [Bar(C.PRIORITY[p], by_pri.get(p, 0), _href("incident", f"{OPEN_Q}^priority={p}")) for p in C.PRIORITY]
    by_group = session.execute(select(Group.name, func.count(Incident.id)).join(Incident, Incident.assignment_group_id == Group.id)
                               .where(open_inc).group_by(Group.name).order_by(func.count(Incident.id).desc(), Group.name)).all()
    unassigned = session.execute(select(func.count()).select_from(Incident).where(open_inc, Incident.assignment_group_id.is_(None))).scalar_one()
    group_bars = [Bar(n, c, _href("incident", f"{OPEN_Q}^assignment_group={n}")) for n, c in by_group]
    if unassigned:
        group_bars.append(Bar("(empty)", unassigned, _href("incident", f"{OPEN_Q}^assignment_groupISEMPTY")))
    by_state = dict(session.execute(select(ChangeRequest.state, func.count()).group_by(ChangeRequest.state)).all())
    change_slices = [Bar(s, by_state[s], _href("change_request", f"state={s}")) for s in C.CHANGE_STATES if by_state.get(s)]
    prb_state = dict(session.execute(select(Problem.state, func.count()).group_by(Problem.state)).all())
    problem_slices = [Bar(s, prb_state[s], _href("problem", f"state={s}")) for s in C.PROBLEM_STATES if prb_state.get(s)]
    breached = session.execute(select(func.count()).select_from(Incident).where(open_inc, incident_breached_sql(clock.now))).scalar_one()
    charts = [
        ("Open incidents by priority", bar_chart(pri_bars, title="Open incidents by priority", description="Open incidents (New, In Progress, On Hold) by priority.",
                                                 color=PALETTE[0], show_values=False, tooltips=True, label_width=130, width=460)),
        ("Open incidents by assignment group", bar_chart(group_bars, title="Open incidents by assignment group", description="Open incidents by assignment group.",
                                                         color=PALETTE[1], show_values=False, tooltips=True, label_width=150, width=460)),
        ("Changes by state", pie_chart(change_slices, title="Changes by state", description="Change requests by state.", palette=PALETTE)),
        ("Problems by state", pie_chart(problem_slices, title="Problems by state", description="Problems by state.", palette=PALETTE)),
    ]
    return render(request, "desk/dashboard.html", charts=charts, breached=breached, open_total=sum(by_pri.values()),
                  breached_href=_href("incident", f"sla_breached=true^{OPEN_Q}"), open_href=_href("incident", OPEN_Q))
