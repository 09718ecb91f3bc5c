"""Reports tab: the list of standard reports, a report's run page, and its CSV export."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from markupsafe import Markup, escape
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import User
from ...ui import fmt_date, fmt_datetime, money, number, render
from .. import reports as engine
from ..charts import Bar, bar_chart, money_chart
from ..objects import OBJECTS

router = APIRouter()


def _report_or_404(report_id: str) -> engine.Report:
    report = engine.REPORTS.get(report_id)
    if report is None:
        raise HTTPException(status_code=404, detail="This report doesn't exist or has been deleted.")
    return report


@dataclass(frozen=True)
class Listed:
    """A row of the Reports tab: a standard report or one saved from the builder."""

    name: str
    description: str
    folder: str
    report_type: str
    href: str
    created_by: str = ""
    mine: bool = False


@router.get("/reports")
def reports_home(request: Request, session: SessionDep, user: CurrentUser, q: str = "", folder: str = ""):
    from ..builder import TYPES
    from .builder import folders_for, visible_reports

    owners = {u.id: u.name for u in session.exec(select(User)).all()}
    items = [Listed(r.name, r.description, r.folder, r.report_type, f"/reports/{r.id}") for r in engine.REPORTS.values()]
    items += [Listed(r.name, r.description or "", r.folder, TYPES[r.report_type].label if r.report_type in TYPES else r.report_type,
                     f"/reports/custom/{r.id}", owners.get(r.owner_id, ""), r.owner_id == user.id) for r in visible_reports(session, user)]
    total = len(items)
    if folder == "mine":
        items = [r for r in items if r.mine]
    elif folder:
        items = [r for r in items if r.folder == folder]
    needle = q.strip().lower()
    if needle:
        items = [r for r in items if needle in r.name.lower() or needle in r.description.lower()]
    items.sort(key=lambda r: (r.name.lower(), r.href))
    folder_names = ["Private Reports", "Public Reports"] + [f.name for f in folders_for(session)]
    return render(request, "crm/reports.html", reports=items, q=q, total=total, folder=folder, folder_names=folder_names)


def _run(request: Request, session, clock, user: User, report_id: str):
    report = _report_or_404(report_id)
    params = engine.parse_params(report, request.query_params, clock)
    return engine.run(session, report, params, clock, user.id)


@router.get("/reports/{report_id}.csv")
def report_csv(request: Request, report_id: str, session: SessionDep, user: CurrentUser, clock: ClockDep):
    result = _run(request, session, clock, user, report_id)
    body = "\ufeff" + engine.to_csv(result)  # BOM: spreadsheet apps then read UTF-8 names correctly
    filename = f"{result.report.id}-{clock.today.isoformat()}.csv"
    return Response(body.encode("utf-8"), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def _link(column: engine.Column, row: dict) -> str | None:
    if column.link is None:
        return None
    key = row.get("related_type") if column.link == "@related" else column.link
    record_id = row.get(column.link_id)
    if key not in OBJECTS or record_id is None:
        return None
    return OBJECTS[key].url(record_id)


@lru_cache(maxsize=4096)
def _date_text(value: str, kind: str) -> str:
    return fmt_date(value) if kind == "date" else fmt_datetime(value)


def _formatter(kind: str):
    if kind == "money":
        return money
    if kind == "percent":
        return lambda v: f"{number(v)}%"
    if kind == "number":
        return number
    if kind in ("date", "datetime"):
        return lambda v: _date_text(str(v), kind)
    return str


def _detail_rows(rows: list[dict], columns: list[engine.Column]) -> dict[int, Markup]:
    """Each detail row's <tr>, built here rather than in Jinja: reports can hold a thousand rows
    and per-cell template calls would blow the 20 ms page budget. Every value is escaped."""
    plan = []
    for c in columns:
        if c.link == "@related":
            link = lambda row, c=c: (OBJECTS[row["related_type"]].path if row.get("related_type") in OBJECTS else None)
        elif c.link in OBJECTS:
            link = lambda row, path=OBJECTS[c.link].path: path
        else:
            link = None
        plan.append((c.key, _formatter(c.kind), link, c.link_id, '<td class="num">' if c.numeric else "<td>"))
    out: dict[int, Markup] = {}
    for row in rows:
        cells = []
        for key, fmt, link, link_id, td in plan:
            value = row.get(key)
            if value is None or value == "":
                cells.append(td + "</td>")
                continue
            text_ = escape(fmt(value))
            path = link(row) if link else None
            target = row.get(link_id) if path else None
            cells.append(f'{td}<a href="{path}/{target}">{text_}</a></td>' if target is not None else f"{td}{text_}</td>")
        out[row["id"]] = Markup('<tr class="detail-row">' + "".join(cells) + "</tr>")
    return out


@router.get("/reports/{report_id}")
def report_page(request: Request, report_id: str, session: SessionDep, user: CurrentUser, clock: ClockDep):
    result = _run(request, session, clock, user, report_id)
    report, params = result.report, result.params
    grouped = set(params.groups)
    columns = [c for c in report.columns if c.key not in grouped]
    users = session.exec(select(User).where(User.active == True).order_by(User.first_name, User.last_name, User.id)).all()  # noqa: E712

    # The page state as a query string, so sort links and the export keep every other choice.
    state = {"g1": params.groups[0] if params.groups else "", "g2": params.groups[1] if len(params.groups) > 1 else "",
             "owner": params.owner, "range": params.range}
    if params.details != report.default_details:
        state["details"] = "1" if params.details else "0"
    sort_state = {"sort": params.sort, "dir": params.direction} if params.sort else {}

    def url_with(**changes: str) -> str:
        merged = {**state, **sort_state, **changes}
        return f"/reports/{report.id}?" + urlencode({k: v for k, v in merged.items() if v != "" or k in ("g1", "g2")})

    def url_for_sort(key: str, direction: str) -> str:
        return url_with(sort=key, dir=direction)

    chart = None
    if result.groups:
        head = result.groups[0].field
        bars = [Bar(g.label, g.total if report.measure else g.count) for g in result.groups]
        title = f"{('Sum of ' + report.measure_label) if report.measure else 'Record Count'} by {head.label}"
        if report.measure:
            chart = money_chart(bars, title=title, description=f"{report.name}.", chart_id="report-chart", width=640, label_width=180)
        else:
            chart = bar_chart(bars, title=title, description=f"{report.name}.", chart_id="report-chart", width=640, label_width=180)

    rows_html = _detail_rows(result.rows, columns) if params.details else {}
    return render(
        request,
        "crm/report.html",
        report=report,
        result=result,
        params=params,
        columns=columns,
        users=users,
        ranges=engine.RANGES,
        range_caption=engine.range_caption(params.range, clock),
        chart=chart,
        url_for_sort=url_for_sort,
        url_with=url_with,
        export_url=f"/reports/{report.id}.csv?" + urlencode({**state, **sort_state}),
        rows_html=rows_html,
        measure_column=report.column(report.measure) if report.measure else None,
    )
