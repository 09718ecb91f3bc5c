"""The report builder and the reports people save (``crm_report``, ``crm_report_filter``,
``crm_report_folder``).

  GET  /reports/new                    Create Report: choose a report type
  GET  /reports/builder?type=T         the builder (columns, groups, summaries, filters, chart) and its preview;
                                       ?report=<id> edits a saved report
  POST /reports/builder/save           Save: name, unique name, description, folder (or a new folder)
  GET  /reports/custom/<id>            run a saved report
  POST /reports/custom/<id>/delete     delete it (its owner)

Refused input shows the builder again (422) with the messages; nothing is saved.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from markupsafe import Markup, escape
from sqlmodel import Session, or_, select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import User
from ...ui import money, number, redirect, render
from .. import builder as B
from ..charts import Bar, bar_chart, money_chart
from ..listing import OPERATORS, Filter
from ..models import ReportDef, ReportFilter, ReportFolder
from .reports import _detail_rows

router = APIRouter(include_in_schema=False)


def folders_for(session: Session) -> list[ReportFolder]:
    return list(session.exec(select(ReportFolder).order_by(ReportFolder.name, ReportFolder.id)).all())


def visible_reports(session: Session, user: User) -> list[ReportDef]:
    q = select(ReportDef).where(or_(ReportDef.owner_id == user.id, ReportDef.folder != "Private Reports"))
    return list(session.exec(q.order_by(ReportDef.name, ReportDef.id)).all())


def _saved(session: Session, user: User, report_id: int, *, edit: bool = False) -> ReportDef:
    rep = session.get(ReportDef, report_id)
    if rep is None or (rep.folder == "Private Reports" and rep.owner_id != user.id):
        raise HTTPException(404, "This report doesn't exist or has been deleted.")
    if edit and rep.owner_id != user.id:
        raise HTTPException(403, "You don't have permission to edit this report. Save a copy instead.")
    return rep


def _fmt(kind: str, value: float | None) -> str:
    if value is None:
        return "-"
    if kind == "money":
        return money(value)
    if kind == "percent":
        return f"{number(round(value, 2))}%"
    return number(round(value, 2))


def _chart(result: B.RResult) -> Markup | None:
    defn = result.defn
    if defn.chart == "none" or not result.groups:
        return None
    key = defn.summaries[0] if defn.summaries else None
    head = result.groups[0].field
    bars = [Bar(g.label, (g.values.get(key) or 0) if key else g.count) for g in result.groups]
    title = f"{defn.summary_label(*key) if key else 'Record Count'} by {head.label}"
    if defn.chart == "donut":
        from ...ui.charts import pie_chart

        return pie_chart(bars, title=title, chart_id="report-chart", legend_values=True)
    money_kind = key is not None and defn.type.fields[key[0]].kind == "money"
    make = money_chart if money_kind else bar_chart
    return make(bars, title=title, chart_id="report-chart", width=560, label_width=170)


def _table_body(result: B.RResult, columns: list, rows_html: dict[int, Markup], fmt) -> Markup:
    """The grouped rows (headers, details, subtotals at every level) and the grand total, built here
    rather than in Jinja: three levels of groups over hundreds of rows would blow the page budget."""
    defn = result.defn
    sums = defn.summaries
    labels = {(k, a): escape(defn.summary_label(k, a)) for k, a in sums}
    short = {a: B.AGGREGATES[a] for _k, a in sums}
    width = len(columns)

    def agg_cells(head: str, values: dict) -> str:
        cells = [head]
        for c in columns[1:]:
            parts = "".join(f"<div>{short[a]}: {escape(fmt(k, a, values.get((k, a))))}</div>" for k, a in sums if k == c.key)
            cells.append(f'<td class="num">{parts}</td>')
        return "".join(cells)

    out: list[str] = []

    def block(g: B.RGroup) -> None:
        sums_text = "".join(f'<span class="group-sum">{labels[key]}: {escape(fmt(key[0], key[1], g.values.get(key)))}</span>' for key in sums)
        out.append(f'<tr class="group-row level-{g.level}" data-level="{g.level}"><th scope="rowgroup" colspan="{width}">'
                   f'{escape(g.field.label)}: <strong>{escape(g.label)}</strong> <span class="muted">({g.count})</span>{sums_text}</th></tr>')
        if g.subgroups:
            for sg in g.subgroups:
                block(sg)
        else:
            out.extend(rows_html[r["id"]] for r in g.rows)
        plural = "s" if g.count != 1 else ""
        head = f'<th scope="row">Subtotal <span class="muted">({g.count} record{plural})</span></th>'
        out.append(f'<tr class="subtotal level-{g.level}" data-group="{escape(g.label)}" data-level="{g.level}" data-count="{g.count}">'
                   f"{agg_cells(head, g.values)}</tr>")

    out.append("<tbody>")
    if not result.rows:
        out.append(f'<tr class="empty-row"><td colspan="{width or 1}">No records match the filters.</td></tr>')
    if result.groups:
        for g in result.groups:
            block(g)
    else:
        out.extend(rows_html[r["id"]] for r in result.rows)
    out.append("</tbody>")
    if result.rows:
        plural = "s" if result.count != 1 else ""
        head = f'<th scope="row">Total <span class="muted">({result.count} record{plural})</span></th>'
        out.append(f'<tfoot><tr class="grand-total" data-count="{result.count}">{agg_cells(head, result.values)}</tr></tfoot>')
    return Markup("".join(str(x) for x in out))


def _page_context(session: Session, defn: B.Definition, errors: dict[str, str]) -> dict[str, Any]:
    result = B.run(session, defn)
    fields = defn.type.fields
    grouped = set(defn.groups)
    columns = [fields[c] for c in defn.columns if c not in grouped] or [fields[defn.type.default_columns[0]]]

    def fmt(key: str, agg: str, value: float | None) -> str:
        return _fmt(fields[key].kind, value)

    return {
        "defn": defn,
        "rtype": defn.type,
        "result": result,
        "columns": columns,
        "errors": errors,
        "chart": _chart(result),
        "fmt": fmt,
        "table_body": _table_body(result, columns, _detail_rows(result.rows, columns), fmt),
        "operators": OPERATORS,
        "aggregates": B.AGGREGATES,
        "top": B.top_group(result),
    }


def _builder_page(request: Request, session: Session, user: User, defn: B.Definition, errors: dict[str, str], *,
                  report: ReportDef | None = None, save: dict[str, Any] | None = None, status_code: int = 200) -> Response:
    ctx = _page_context(session, defn, errors)
    return render(request, "crm/report_builder.html", status_code=status_code, report=report, folders=folders_for(session),
                  save=save or {}, filter_meta={f.key: {"kind": f.kind, "operators": list(f.operators), "numeric": f.numeric,
                                                      "list": f"dl-{f.key}" if f.kind == "picklist" else None}
                                                for f in defn.type.fields.values()}, **ctx)


@router.get("/reports/new")
def new_report(request: Request, user: CurrentUser, q: str = ""):
    needle = q.strip().lower()
    types = [t for t in B.TYPES.values() if not needle or needle in t.label.lower()]
    return render(request, "crm/report_new.html", types=types, q=q)


@router.get("/reports/builder")
def builder_page(request: Request, session: SessionDep, user: CurrentUser):
    query = request.query_params
    report = None
    if (query.get("report") or "").isdigit():
        report = _saved(session, user, int(query["report"]), edit=True)
        defn = B.definition_of(session, report) if "type" not in query else B.definition_from(B.report_type(session, report.report_type), query)
    else:
        rtype = B.report_type(session, query.get("type", ""))
        if rtype is None:
            return redirect(request, "/reports/new", toast="Select a report type.", kind="error")
        defn = B.definition_from(rtype, query)
    defn, errors = B.check(defn)
    return _builder_page(request, session, user, defn, errors if "type" in query else {}, report=report)


@router.post("/reports/builder/save")
async def save_report(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    form = await request.form()
    report = _saved(session, user, int(form["report"]), edit=True) if str(form.get("report") or "").isdigit() else None
    rtype = B.report_type(session, str(form.get("type") or ""))
    if rtype is None:
        raise HTTPException(422, "Select a report type.")
    defn, errors = B.check(B.definition_from(rtype, form))
    save = {k: str(form.get(k) or "").strip() for k in ("name", "api_name", "description", "folder", "new_folder")}
    save_errors: dict[str, str] = {}
    if not save["name"]:
        save_errors["name"] = "Complete this field."
    elif len(save["name"]) > 80:
        save_errors["name"] = "Report Name: data value too large (max length=80)."
    unique = B.check_unique_name(save["api_name"])
    if unique:
        save_errors["api_name"] = unique
    else:
        clash = session.exec(select(ReportDef).where(ReportDef.api_name == save["api_name"])).all()
        if any(r.id != (report.id if report else None) for r in clash):
            save_errors["api_name"] = "The Report Unique Name already exists or has been previously used. Please choose a different name."
    folder_name, folder_id = save["folder"], None
    if folder_name == "__new__":
        if not save["new_folder"]:
            save_errors["new_folder"] = "Complete this field."
        elif len(save["new_folder"]) > 80:
            save_errors["new_folder"] = "Folder Label: data value too large (max length=80)."
        elif save["new_folder"].lower() in {f.lower() for f in B.FOLDERS} | {f.name.lower() for f in folders_for(session)}:
            save_errors["new_folder"] = "A folder with this name already exists. Enter a different name."
    elif folder_name.startswith("f") and folder_name[1:].isdigit() and session.get(ReportFolder, int(folder_name[1:])):
        folder = session.get(ReportFolder, int(folder_name[1:]))
        folder_name, folder_id = folder.name, folder.id
    elif folder_name not in B.FOLDERS:
        save_errors["folder"] = "Select a folder."
    if errors or save_errors:
        return _builder_page(request, session, user, defn, errors, report=report, save={**save, "errors": save_errors, "open": bool(save_errors)},
                             status_code=422)
    if save["folder"] == "__new__":
        folder = ReportFolder(name=save["new_folder"], owner_id=user.id, created_at=clock.now, updated_at=clock.now, created_by_id=user.id)
        session.add(folder)
        session.flush()
        folder_name, folder_id = folder.name, folder.id
    rep = report or ReportDef(owner_id=user.id, created_at=clock.now, created_by_id=user.id, name="", api_name="", report_type=rtype.key)
    rep.name, rep.api_name, rep.description = save["name"], save["api_name"], save["description"] or None
    rep.report_type, rep.folder, rep.folder_id = rtype.key, folder_name, folder_id
    rep.columns, rep.groupings, rep.summaries = ",".join(defn.columns), ",".join(defn.groups), defn.summaries_text
    rep.chart, rep.filter_logic, rep.updated_at = defn.chart, defn.logic or None, clock.now
    session.add(rep)
    session.flush()
    for row in session.exec(select(ReportFilter).where(ReportFilter.report_id == rep.id)).all():
        session.delete(row)
    session.flush()
    for i, f in enumerate(defn.filters, start=1):
        session.add(ReportFilter(report_id=rep.id, position=i, field=f.field, operator=f.op, value=f.value))
    session.commit()
    return redirect(request, f"/reports/custom/{rep.id}", toast=f'Report "{rep.name}" was saved.')


@router.get("/reports/custom/{report_id:int}")
def run_saved(request: Request, report_id: int, session: SessionDep, user: CurrentUser):
    rep = _saved(session, user, report_id)
    defn = B.definition_of(session, rep)
    ctx = _page_context(session, defn, {})
    return render(request, "crm/report_custom.html", report=rep, **ctx)


@router.post("/reports/custom/{report_id:int}/delete")
def delete_saved(request: Request, report_id: int, session: SessionDep, user: CurrentUser):
    rep = _saved(session, user, report_id, edit=True)
    from ..models import DashboardComponent

    if session.exec(select(DashboardComponent.id).where(DashboardComponent.report_id == rep.id)).first() is not None:
        return redirect(request, f"/reports/custom/{rep.id}", kind="error",
                        toast="This report can't be deleted because it's used by a dashboard component. Remove the component first.")
    for row in session.exec(select(ReportFilter).where(ReportFilter.report_id == rep.id)).all():
        session.delete(row)
    name = rep.name
    session.delete(rep)
    session.commit()
    return redirect(request, "/reports", toast=f'Report "{name}" was deleted.')


def builder_url(defn: B.Definition, **extra: str) -> str:
    items: list[tuple[str, str]] = [("type", defn.type.key), ("cols", "1")] + [("col", c) for c in defn.columns]
    items += [(f"g{i}", g) for i, g in enumerate(defn.groups, start=1)] + [("sum", f"{k}:{a}") for k, a in defn.summaries]
    for f in defn.filters:
        items += [("ff", f.field), ("fo", f.op), ("fv", f.value)]
    if defn.logic:
        items.append(("logic", defn.logic))
    items.append(("chart", defn.chart))
    return "/reports/builder?" + urlencode(items + list(extra.items()))
