"""Dashboards tab: the list in folders, a dashboard with its filters, and the dashboard builder.

  GET  /dashboards                              the list (?folder=, ?q=)
  GET  /dashboards/new                          New Dashboard: name, description, folder
  POST /dashboards/new                          create it, then open the builder
  GET  /dashboards/<id>                         view (?owner=, ?territory=, ?close_date= : the dashboard filters)
  GET  /dashboards/<id>/edit                    the builder (?add=1: choose a report; ?report=KEY: the component form)
  POST /dashboards/<id>/properties              rename, describe, move to a folder
  POST /dashboards/<id>/components              add a component
  POST /dashboards/<id>/components/<cid>/move   up or down (``direction``)
  POST /dashboards/<id>/components/<cid>/delete remove a component
  POST /dashboards/<id>/filters                 add a dashboard filter; .../filters/<fid>/delete removes one
  POST /dashboards/<id>/delete                  delete the dashboard

Every change checks on the server that the user may edit the dashboard (its folder's access and the
"Manage Dashboards" profiles); refused input shows the form again (422) and saves nothing.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from markupsafe import Markup
from sqlmodel import Session, select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import User
from ...ui import fmt_datetime, money, number, redirect, render
from ...ui.charts import Bar, bar_chart, column_chart, gauge_chart, pie_chart, short_money
from .. import dashboards as D
from ..models import Dashboard, DashboardComponent, DashboardFilter, Territory
from ..reports import RANGES

router = APIRouter(include_in_schema=False)
FORBIDDEN = "You don't have permission to edit this dashboard. Ask the folder's owner for Editor access, or save a copy in a folder you can edit."


def _dashboard(session: Session, user: User, dash_id: int, *, edit: bool = False) -> Dashboard:
    dash = session.get(Dashboard, dash_id)
    if dash is None or not D.can_view(user, dash):
        raise HTTPException(404, "This dashboard doesn't exist or has been deleted.")
    if edit and not D.can_edit(session, user, dash):
        raise HTTPException(403, FORBIDDEN)
    return dash


def _components(session: Session, dash: Dashboard) -> list[DashboardComponent]:
    return list(session.exec(select(DashboardComponent).where(DashboardComponent.dashboard_id == dash.id)
                             .order_by(DashboardComponent.position, DashboardComponent.id)).all())


def _filters(session: Session, dash: Dashboard) -> list[DashboardFilter]:
    return list(session.exec(select(DashboardFilter).where(DashboardFilter.dashboard_id == dash.id)
                             .order_by(DashboardFilter.position, DashboardFilter.id)).all())


def _renumber(session: Session, rows: list) -> None:
    for i, row in enumerate(rows, start=1):
        if row.position != i:
            row.position = i
            session.add(row)


def _folder_options(session: Session, user: User) -> list[tuple[str, str, bool]]:
    """(value, label, writable) of every folder, for the folder pickers."""
    out = [(f, f, D.can_write(user, f, None, user.id)) for f in D.FOLDERS]
    out += [(f"f{f.id}", f.name, D.can_write(user, f.name, f, user.id)) for f in D.folders(session)]
    return out


# -- list ------------------------------------------------------------------------------------------------------
@router.get("/dashboards")
def dashboards_home(request: Request, session: SessionDep, user: CurrentUser, q: str = "", folder: str = ""):
    owners = {u.id: u.name for u in session.exec(select(User)).all()}
    items = D.visible(session, user)
    total = len(items)
    if folder == "mine":
        items = [d for d in items if d.owner_id == user.id]
    elif folder:
        items = [d for d in items if d.folder == folder]
    needle = q.strip().lower()
    if needle:
        items = [d for d in items if needle in d.name.lower() or needle in (d.description or "").lower()]
    rows = D.folders(session)
    return render(request, "crm/dashboards.html", dashboards=items, owners=owners, q=q, total=total, folder=folder,
                  folder_rows=rows, folder_names=list(D.FOLDERS) + [f.name for f in rows])


# -- new --------------------------------------------------------------------------------------------------------
@router.get("/dashboards/new")
def new_dashboard(request: Request, session: SessionDep, user: CurrentUser):
    return render(request, "crm/dashboard_new.html", values={"folder": D.PRIVATE}, errors={}, folders=_folder_options(session, user))


@router.post("/dashboards/new")
async def create_dashboard(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    form = await request.form()
    values = {k: str(form.get(k) or "").strip() for k in ("name", "description", "folder")}
    errors, (folder, folder_id) = D.check_properties(session, user, values)
    if errors:
        return render(request, "crm/dashboard_new.html", status_code=422, values=values, errors=errors, folders=_folder_options(session, user))
    dash = Dashboard(name=values["name"], description=values["description"] or None, folder=folder, folder_id=folder_id, owner_id=user.id,
                     created_at=clock.now, updated_at=clock.now, created_by_id=user.id)
    session.add(dash)
    session.commit()
    return redirect(request, f"/dashboards/{dash.id}/edit", toast=f'Dashboard "{dash.name}" was created.')


# -- view --------------------------------------------------------------------------------------------------------
def _fmt(kind: str, value: float, short: bool = False) -> str:
    if kind == "money":
        return short_money(value) if short else money(value)
    if kind == "percent":
        return f"{number(round(value, 2))}%"
    return number(round(value, 2))


def _draw(r: D.Rendered, cid: str) -> Markup:
    comp = r.comp
    title = f"{r.measure_label} by {r.group_label}" if r.group_label else r.measure_label
    fmt = lambda v: _fmt(r.kind, v, short=True)  # noqa: E731
    exact = lambda v: _fmt(r.kind, v)  # noqa: E731
    if comp.display in ("bar", "column", "donut"):
        vals = r.values[: comp.max_rows] if comp.max_rows else r.values
        bars = [Bar(v.label, v.value, v.href) for v in vals]
        if comp.display == "bar":
            return bar_chart(bars, title=title, fmt=exact, chart_id=cid, width=440, label_width=150, tooltips=True)
        if comp.display == "column":
            return column_chart(bars, title=title, fmt=exact, chart_id=cid, width=560, value_fmt=fmt)
        return pie_chart(bars, title=title, fmt=exact, chart_id=cid, size=200, donut=True, center=fmt(r.total))
    if comp.display == "gauge":
        return gauge_chart(r.total, title=comp.title or title, lo=comp.min_value or 0, b1=comp.breakpoint1 or 0, b2=comp.breakpoint2 or 0,
                           hi=comp.max_value or 1, fmt=exact, chart_id=cid, width=300)
    return Markup("")


def _choices(request: Request, filters: list[DashboardFilter]) -> dict[str, str]:
    return {f.field: str(request.query_params.get(f.field) or "").strip() for f in filters}


def _filter_options(session: Session, f: DashboardFilter) -> list[tuple[str, str]]:
    if f.field == "owner":
        users = session.exec(select(User).where(User.active == True).order_by(User.first_name, User.last_name)).all()  # noqa: E712
        return [(u.name, u.name) for u in users]
    if f.field == "territory":
        return [(t.name, t.name) for t in session.exec(select(Territory).order_by(Territory.name)).all()]
    if f.field == "close_date":
        return [(k, v) for k, v in RANGES.items() if k != "all"]
    return []


@router.get("/dashboards/{dash_id:int}")
def view_dashboard(request: Request, dash_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep):
    dash = _dashboard(session, user, dash_id)
    comps = _components(session, dash)
    filters = _filters(session, dash)
    choices = _choices(request, filters)
    runner = session.get(User, dash.running_user_id or dash.owner_id) or user
    viewer_id = session.info.get("user_id")
    session.info["user_id"] = runner.id  # the components see what the running user sees ("View dashboard as")
    try:
        rendered = D.run_components(session, comps, choices, clock)
    finally:
        session.info["user_id"] = viewer_id
    cards: list[dict[str, Any]] = []
    for r in rendered:
        cid = f"component-{r.comp.id}"
        cards.append({"r": r, "cid": cid, "chart": _draw(r, cid), "value": _fmt(r.kind, r.total), "short": _fmt(r.kind, r.total, True),
                      "rows": D.top(r.values, r.comp.max_rows) if r.comp.display == "table" else [],
                      "fmt": lambda v, k=r.kind: _fmt(k, v)})
    owner = session.get(User, dash.owner_id)
    return render(request, "crm/dashboard.html", dash=dash, cards=cards, filters=filters, choices=choices,
                  options={f.id: _filter_options(session, f) for f in filters}, as_of=fmt_datetime(clock.now), owner=owner, runner=runner,
                  can_edit=D.can_edit(session, user, dash), displays=D.DISPLAYS)


# -- builder -----------------------------------------------------------------------------------------------------
def _builder(request: Request, session: Session, user: User, dash: Dashboard, *, status_code: int = 200, props: dict | None = None,
             props_errors: dict | None = None, comp_values: dict | None = None, comp_errors: dict | None = None,
             filter_error: str = "") -> Response:
    query = request.query_params
    all_sources = D.sources(session, user)
    by_key = {s.key: s for s in all_sources}
    chosen_key = (comp_values or {}).get("report") or str(query.get("report") or "")
    chosen = by_key.get(chosen_key)
    comps = _components(session, dash)
    srcs = {c.id: D.source_of(session, c) for c in comps}
    folder_value = f"f{dash.folder_id}" if dash.folder_id else dash.folder
    return render(request, "crm/dashboard_edit.html", status_code=status_code, dash=dash, comps=comps, srcs=srcs, filters=_filters(session, dash),
                  sources=all_sources, chosen=chosen, adding=bool(chosen) or query.get("add") == "1" or bool(comp_errors),
                  props=props or {"name": dash.name, "description": dash.description or "", "folder": folder_value},
                  props_errors=props_errors or {}, comp_values=comp_values or {"display": "column", "measure": "count"},
                  comp_errors=comp_errors or {}, displays=D.DISPLAYS, folders=_folder_options(session, user),
                  filter_fields=D.FILTER_FIELDS, filter_error=filter_error)


@router.get("/dashboards/{dash_id:int}/edit")
def edit_dashboard(request: Request, dash_id: int, session: SessionDep, user: CurrentUser):
    dash = _dashboard(session, user, dash_id, edit=True)
    return _builder(request, session, user, dash)


@router.post("/dashboards/{dash_id:int}/properties")
async def save_properties(request: Request, dash_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep):
    dash = _dashboard(session, user, dash_id, edit=True)
    form = await request.form()
    values = {k: str(form.get(k) or "").strip() for k in ("name", "description", "folder")}
    errors, (folder, folder_id) = D.check_properties(session, user, values, dash)
    if errors:
        return _builder(request, session, user, dash, status_code=422, props=values, props_errors=errors)
    dash.name, dash.description, dash.folder, dash.folder_id = values["name"], values["description"] or None, folder, folder_id
    dash.updated_at = clock.now
    session.add(dash)
    session.commit()
    return redirect(request, f"/dashboards/{dash.id}/edit", toast=f'Dashboard "{dash.name}" was saved.')


@router.post("/dashboards/{dash_id:int}/components")
async def add_component(request: Request, dash_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep):
    dash = _dashboard(session, user, dash_id, edit=True)
    form = await request.form()
    keys = ("report", "title", "display", "group_by", "measure", "max_rows", "min_value", "breakpoint1", "breakpoint2", "max_value")
    values = {k: str(form.get(k) or "").strip() for k in keys}
    src = {s.key: s for s in D.sources(session, user)}.get(values["report"])
    errors, fields = D.check_component(src, values)
    comps = _components(session, dash)
    if not errors and len(comps) >= D.MAX_COMPONENTS:
        errors["display"] = f"A dashboard can't have more than {D.MAX_COMPONENTS} components."
    if errors:
        return _builder(request, session, user, dash, status_code=422, comp_values=values, comp_errors=errors)
    session.add(DashboardComponent(dashboard_id=dash.id, position=len(comps) + 1, **fields))
    dash.updated_at = clock.now
    session.add(dash)
    session.commit()
    return redirect(request, f"/dashboards/{dash.id}/edit", toast=f'Component "{fields["title"]}" was added.')


def _component(session: Session, dash: Dashboard, comp_id: int) -> DashboardComponent:
    comp = session.get(DashboardComponent, comp_id)
    if comp is None or comp.dashboard_id != dash.id:
        raise HTTPException(404, "This component doesn't exist or has been removed.")
    return comp


@router.post("/dashboards/{dash_id:int}/components/{comp_id:int}/move")
async def move_component(request: Request, dash_id: int, comp_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep):
    dash = _dashboard(session, user, dash_id, edit=True)
    comp = _component(session, dash, comp_id)
    direction = str((await request.form()).get("direction") or "")
    comps = _components(session, dash)
    i = comps.index(next(c for c in comps if c.id == comp.id))
    j = i - 1 if direction == "up" else i + 1 if direction == "down" else i
    if 0 <= j < len(comps) and j != i:
        comps[i], comps[j] = comps[j], comps[i]
        _renumber(session, comps)
        dash.updated_at = clock.now
        session.add(dash)
        session.commit()
    return redirect(request, f"/dashboards/{dash.id}/edit", toast=f'"{comp.title}" was moved {"up" if direction == "up" else "down"}.')


@router.post("/dashboards/{dash_id:int}/components/{comp_id:int}/delete")
def delete_component(request: Request, dash_id: int, comp_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep):
    dash = _dashboard(session, user, dash_id, edit=True)
    comp = _component(session, dash, comp_id)
    title = comp.title
    session.delete(comp)
    session.flush()
    _renumber(session, _components(session, dash))
    dash.updated_at = clock.now
    session.add(dash)
    session.commit()
    return redirect(request, f"/dashboards/{dash.id}/edit", toast=f'Component "{title}" was removed.')


@router.post("/dashboards/{dash_id:int}/filters")
async def add_filter(request: Request, dash_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep):
    dash = _dashboard(session, user, dash_id, edit=True)
    field = str((await request.form()).get("field") or "")
    filters = _filters(session, dash)
    error = ""
    if field not in D.FILTER_FIELDS:
        error = "Select a field."
    elif any(f.field == field for f in filters):
        error = "This dashboard already has a filter on this field."
    elif len(filters) >= D.MAX_FILTERS:
        error = f"A dashboard can have up to {D.MAX_FILTERS} filters."
    if error:
        return _builder(request, session, user, dash, status_code=422, filter_error=error)
    session.add(DashboardFilter(dashboard_id=dash.id, position=len(filters) + 1, field=field, label=D.FILTER_FIELDS[field]))
    dash.updated_at = clock.now
    session.add(dash)
    session.commit()
    return redirect(request, f"/dashboards/{dash.id}/edit", toast=f'Filter "{D.FILTER_FIELDS[field]}" was added.')


@router.post("/dashboards/{dash_id:int}/filters/{filter_id:int}/delete")
def delete_filter(request: Request, dash_id: int, filter_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep):
    dash = _dashboard(session, user, dash_id, edit=True)
    row = session.get(DashboardFilter, filter_id)
    if row is None or row.dashboard_id != dash.id:
        raise HTTPException(404, "This filter doesn't exist or has been removed.")
    label = row.label
    session.delete(row)
    session.flush()
    _renumber(session, _filters(session, dash))
    session.commit()
    return redirect(request, f"/dashboards/{dash.id}/edit", toast=f'Filter "{label}" was removed.')


@router.post("/dashboards/{dash_id:int}/delete")
def delete_dashboard(request: Request, dash_id: int, session: SessionDep, user: CurrentUser):
    dash = _dashboard(session, user, dash_id, edit=True)
    for row in _components(session, dash) + _filters(session, dash):
        session.delete(row)
    session.flush()  # children first: the foreign keys are enforced
    name = dash.name
    session.delete(dash)
    session.commit()
    return redirect(request, "/dashboards", toast=f'Dashboard "{name}" was deleted.')


__all__ = ["router"]
