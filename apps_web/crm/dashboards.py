"""Dashboards (``crm_dashboard``, ``crm_dashboard_component``, ``crm_dashboard_filter``,
``crm_dashboard_folder``): who may see and change them, the sources a component reads, their
validation with Salesforce's messages, and the engine that turns a component into its values.

A component's source is a report: a saved one (``crm_report``) or a standard one (the Reports tab's
built-in reports, expressed here as report-builder definitions), so every component runs through the
report builder's engine and its values match the report a viewer drills into. Dashboard filters add
one condition per chosen value to every component whose report has that field (others show
"Filter not applied").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sqlmodel import Session, select

from ..identity.models import User
from ..world import WorldClock
from . import builder as B
from . import picklists as P
from .listing import Filter
from .listviews import role_of
from .models import Dashboard, DashboardComponent, DashboardFolder, ReportDef
from .reports import RANGES, date_range

PRIVATE, PUBLIC = "Private Dashboards", "Public Dashboards"
FOLDERS = (PRIVATE, PUBLIC)
# Profiles with "Manage Dashboards in Public Folders".
MANAGE_ROLES = frozenset({"admin", "sales_manager", "support_manager", "marketing"})
ACCESS = ("Viewer", "Editor")
MAX_COMPONENTS = 20
MAX_FILTERS = 3
DISPLAYS = {
    "bar": "Horizontal Bar Chart",
    "column": "Vertical Bar Chart",
    "donut": "Donut Chart",
    "gauge": "Gauge",
    "metric": "Metric",
    "table": "Lightning Table",
}
FILTER_FIELDS = {"owner": "Owner", "territory": "Territory", "close_date": "Close Date"}
NAME_MESSAGE = "A dashboard must have a name."


# -- sources --------------------------------------------------------------------------------------------------
_CLOSED = "Closed Won,Closed Lost"
STANDARD: dict[str, tuple[str, B.Definition]] = {
    "pipeline-by-stage-and-owner": ("Pipeline by Stage and Owner", B.Definition(
        B.TYPES["opportunities"], ("name", "account", "amount", "close_date"), ("stage", "owner", "territory"), (("amount", "sum"),),
        (Filter("stage", "not_equal", _CLOSED),))),
    "deals-won-this-quarter": ("Deals Won This Quarter", B.Definition(
        B.TYPES["opportunities"], ("name", "account", "amount", "close_date"), ("owner", "type", "territory"), (("amount", "sum"),),
        (Filter("stage", "equals", "Closed Won"), Filter("close_date", "this_quarter", "")))),
    "cases-by-status-and-priority": ("Cases by Status and Priority", B.Definition(
        B.TYPES["cases"], ("case_number", "subject", "account"), ("status", "priority", "origin"))),
    "open-leads-by-source": ("Open Leads by Source", B.Definition(
        B.TYPES["leads"], ("name", "company", "status"), ("source", "rating", "status"), (),
        (Filter("status", "equals", ",".join(P.LEAD_OPEN_STATUSES)),))),
    "accounts-by-industry": ("Accounts by Industry", B.Definition(
        B.TYPES["accounts"], ("name", "industry", "annual_revenue"), ("industry", "rating", "territory"), (("annual_revenue", "sum"),))),
}


@dataclass(frozen=True)
class Source:
    key: str  # "std:pipeline-by-stage-and-owner" | "r12"
    name: str
    defn: B.Definition
    href: str

    @property
    def groupings(self) -> list[tuple[str, str]]:
        return [(g, self.defn.type.fields[g].label) for g in self.defn.groups if g in self.defn.type.fields]

    @property
    def measures(self) -> list[tuple[str, str]]:
        return [("count", "Record Count")] + [(f"{k}:{a}", self.defn.summary_label(k, a)) for k, a in self.defn.summaries]


def _resolve(defn: B.Definition, clock: WorldClock) -> B.Definition:
    """A standard source's relative date filters ("this_quarter") as the builder's date conditions."""
    out = []
    for f in defn.filters:
        span = date_range(f.op, clock) if f.op in RANGES else None
        if span is not None:
            out += [Filter(f.field, "greater_or_equal", span[0].isoformat()), Filter(f.field, "less", span[1].isoformat())]
        else:
            out.append(f)
    return replace(defn, filters=tuple(out))


def sources(session: Session, user: User) -> list[Source]:
    """Every report a component may read: the standard reports, then the saved reports this user sees
    that group their rows (a component needs groups or a summary)."""
    out = [Source(f"std:{k}", name, d, f"/reports/{k}") for k, (name, d) in STANDARD.items()]
    from .routes.builder import visible_reports

    for rep in visible_reports(session, user):
        if rep.report_type in B.TYPES:
            out.append(Source(f"r{rep.id}", rep.name, B.definition_of(session, rep), f"/reports/custom/{rep.id}"))
    return out


def source_of(session: Session, comp: DashboardComponent) -> Source | None:
    if comp.standard_report:
        item = STANDARD.get(comp.standard_report)
        return Source(f"std:{comp.standard_report}", item[0], item[1], f"/reports/{comp.standard_report}") if item else None
    rep = session.get(ReportDef, comp.report_id) if comp.report_id else None
    if rep is None or rep.report_type not in B.TYPES:
        return None
    return Source(f"r{rep.id}", rep.name, B.definition_of(session, rep), f"/reports/custom/{rep.id}")


# -- permissions ----------------------------------------------------------------------------------------------
def folders(session: Session) -> list[DashboardFolder]:
    return list(session.exec(select(DashboardFolder).order_by(DashboardFolder.name, DashboardFolder.id)).all())


def can_manage(user: User) -> bool:
    return role_of(user) in MANAGE_ROLES


def can_write(user: User, folder: str, folder_row: DashboardFolder | None, owner_id: int | None = None) -> bool:
    """May ``user`` create, edit or delete a dashboard in this folder (owned by ``owner_id``)?"""
    if role_of(user) == "admin":
        return True
    if folder == PRIVATE:
        return owner_id is None or owner_id == user.id
    if folder == PUBLIC:
        return can_manage(user)
    if folder_row is None:
        return False
    return folder_row.owner_id == user.id or folder_row.access == "Editor"


def can_view(user: User, dash: Dashboard) -> bool:
    return dash.folder != PRIVATE or dash.owner_id == user.id or role_of(user) == "admin"


def can_edit(session: Session, user: User, dash: Dashboard) -> bool:
    row = session.get(DashboardFolder, dash.folder_id) if dash.folder_id else None
    return can_view(user, dash) and can_write(user, dash.folder, row, dash.owner_id)


def visible(session: Session, user: User) -> list[Dashboard]:
    rows = session.exec(select(Dashboard).order_by(Dashboard.name, Dashboard.id)).all()
    return [d for d in rows if can_view(user, d)]


# -- validation -----------------------------------------------------------------------------------------------
def check_properties(session: Session, user: User, values: dict[str, str], dash: Dashboard | None = None
                     ) -> tuple[dict[str, str], tuple[str, int | None]]:
    """Errors of the name/description/folder form, and the folder (name, id) it resolves to."""
    errors: dict[str, str] = {}
    name = values.get("name", "")
    if not name:
        errors["name"] = NAME_MESSAGE
    elif len(name) > 80:
        errors["name"] = "Dashboard Name: data value too large (max length=80)."
    if len(values.get("description", "")) > 255:
        errors["description"] = "Description: data value too large (max length=255)."
    key = values.get("folder", "")
    folder_name, folder_id, row = key, None, None
    if key.startswith("f") and key[1:].isdigit():
        row = session.get(DashboardFolder, int(key[1:]))
        if row is None:
            errors["folder"] = "Select a folder."
        else:
            folder_name, folder_id = row.name, row.id
    elif key not in FOLDERS:
        errors["folder"] = "Select a folder."
    if "folder" not in errors and not can_write(user, folder_name, row, dash.owner_id if dash else user.id):
        errors["folder"] = "You don't have permission to save dashboards in this folder."
    return errors, (folder_name, folder_id)


def _number(raw: str) -> tuple[float | None, str | None]:
    raw = raw.replace(",", "").replace("$", "").strip()
    if not raw:
        return None, "Complete this field."
    try:
        return float(raw), None
    except ValueError:
        return None, "Enter a number."


def check_component(src: Source | None, values: dict[str, str]) -> tuple[dict[str, str], dict[str, Any]]:
    """Errors of the component form, and the component's fields when there are none."""
    errors: dict[str, str] = {}
    out: dict[str, Any] = {}
    if src is None:
        return {"report": "Select a source report."}, out
    display = values.get("display", "")
    if display not in DISPLAYS:
        errors["display"] = "Select a display type."
    title = values.get("title", "")
    if len(title) > 80:
        errors["title"] = "Title: data value too large (max length=80)."
    groups = dict(src.groupings)
    group = values.get("group_by", "")
    if display not in ("metric", "gauge"):
        if not groups:
            errors["group_by"] = "This report has no groupings. Add a grouping to the report to use this display type."
        elif group not in groups:
            errors["group_by"] = "Select a field to group by."
    else:
        group = ""
    measure = values.get("measure", "count") or "count"
    if measure not in dict(src.measures):
        errors["measure"] = "Select a measure."
    max_rows = None
    if values.get("max_rows", "").strip():
        raw = values["max_rows"].strip()
        if not raw.isdigit() or not 1 <= int(raw) <= 20:
            errors["max_rows"] = "Enter a number between 1 and 20."
        else:
            max_rows = int(raw)
    nums: dict[str, float | None] = {}
    if display == "gauge":
        for key in ("min_value", "breakpoint1", "breakpoint2", "max_value"):
            nums[key], err = _number(values.get(key, ""))
            if err:
                errors[key] = err
        if not any(k in errors for k in nums):
            lo, b1, b2, hi = (nums[k] for k in ("min_value", "breakpoint1", "breakpoint2", "max_value"))
            if hi <= lo:  # type: ignore[operator]
                errors["max_value"] = "The maximum value must be greater than the minimum value."
            elif not lo < b1 < b2 < hi:  # type: ignore[operator]
                errors["breakpoint1"] = "Breakpoints must be in ascending order, between the minimum and maximum values."
    if not errors:
        std = src.key.startswith("std:")
        out = {"title": title or src.name, "display": display, "group_by": group or None, "measure": measure, "max_rows": max_rows,
               "standard_report": src.key[4:] if std else None, "report_id": None if std else int(src.key[1:]), **nums}
    return errors, out


# -- running ---------------------------------------------------------------------------------------------------
@dataclass
class Value:
    label: str
    value: float
    href: str | None = None


@dataclass
class Rendered:
    comp: DashboardComponent
    source: Source | None
    kind: str  # money | number | percent
    measure_label: str
    group_label: str
    values: list[Value]
    total: float
    count: int
    not_applied: list[str]


def _kind(src: Source, measure: str) -> str:
    if measure == "count":
        return "number"
    return src.defn.type.fields[measure.split(":", 1)[0]].kind


def dashboard_filters(choices: dict[str, str], defn: B.Definition, clock: WorldClock) -> tuple[tuple[Filter, ...], list[str]]:
    """The conditions the chosen filter values add to a report, and the filters it has no field for."""
    out: list[Filter] = []
    missing: list[str] = []
    fields = defn.type.fields
    for key, value in choices.items():
        if not value:
            continue
        if key not in fields:
            missing.append(FILTER_FIELDS.get(key, key))
            continue
        if key == "close_date":
            span = date_range(value, clock)
            if span:
                out += [Filter(key, "greater_or_equal", span[0].isoformat()), Filter(key, "less", span[1].isoformat())]
        else:
            out.append(Filter(key, "equals", value))
    return tuple(out), missing


def run_components(session: Session, comps: list[DashboardComponent], choices: dict[str, str], clock: WorldClock) -> list[Rendered]:
    """Each component's values under the chosen dashboard filters. Components reading the same report
    share one query; groups and totals are computed on its rows."""
    cache: dict[tuple, tuple[list[dict], list[str]]] = {}
    out: list[Rendered] = []
    for comp in comps:
        src = source_of(session, comp)
        if src is None:
            out.append(Rendered(comp, None, "number", "", "", [], 0, 0, []))
            continue
        base = _resolve(src.defn, clock)
        extra, missing = dashboard_filters(choices, base, clock)
        key = (src.key, extra)
        if key not in cache:
            filters = base.filters + extra
            logic = base.logic
            if logic and extra:
                logic = f"({logic})" + "".join(f" AND {i}" for i in range(len(base.filters) + 1, len(filters) + 1))
            defn, _errors = B.check(replace(base, type=base.type.in_world(session), filters=filters, logic=logic, groups=(), summaries=()))
            cache[key] = (B.run(session, defn).rows, missing)
        rows, missing = cache[key]
        measure = comp.measure if comp.measure == "count" or ":" in comp.measure else "count"
        summaries = () if measure == "count" else (tuple(measure.split(":", 1)),)
        fields = src.defn.type.fields

        def pick(vals: dict, count: int) -> float:
            return float(count if not summaries else (vals.get(summaries[0]) or 0))

        totals = B._aggregate(rows, summaries)
        values: list[Value] = []
        if comp.group_by and comp.group_by in fields:
            for g in B._group(rows, [fields[comp.group_by]], summaries):
                values.append(Value(g.label, pick(g.values, g.count), src.href))
        label = "Record Count" if measure == "count" else src.defn.summary_label(*summaries[0])  # type: ignore[arg-type]
        out.append(Rendered(comp, src, _kind(src, measure), label, fields[comp.group_by].label if comp.group_by in fields else "",
                            values, pick(totals, len(rows)), len(rows), missing))
    return out


def top(values: list[Value], n: int | None) -> list[Value]:
    """A table's rows: the largest values first (ties by label), the top ``n``."""
    ranked = sorted(values, key=lambda v: (-v.value, v.label.lower()))
    return ranked[: n or 10]


def access_label(folder: DashboardFolder) -> str:
    return "Read Only" if folder.access == "Viewer" else "Edit"


__all__ = ["ACCESS", "DISPLAYS", "FILTER_FIELDS", "FOLDERS", "MAX_COMPONENTS", "MAX_FILTERS", "NAME_MESSAGE", "PRIVATE", "PUBLIC", "STANDARD",
           "Rendered", "Source", "Value", "can_edit", "can_manage", "can_view", "can_write", "check_component", "check_properties",
           "dashboard_filters", "folders", "run_components", "source_of", "sources", "top", "visible"]
