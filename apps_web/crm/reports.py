"""Standard reports of the CRM: definitions (one SQL source each) and the engine that runs them.

A report is a flat SQL select (one row per record, joined names included) plus what a person may
do with it in the report page: group rows by one or two fields, filter by owner and by a date range
relative to the world clock, sort detail rows, export CSV. Grouping, subtotals and sorting happen in
Python on the filtered rows, so the page, the summary chart and the CSV always agree.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any, Callable

from sqlalchemy import text
from sqlmodel import Session

from ..world import WorldClock
from . import picklists
from .recordtypes import options as record_types

NONE_LABEL = "-"  # what Salesforce shows for an empty group value


# -- definitions -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Column:
    key: str
    label: str
    kind: str = "text"  # text | money | number | percent | date | datetime
    link: str | None = None  # object key: the cell links to OBJECTS[link].url(row[link_id])
    link_id: str = "id"

    @property
    def numeric(self) -> bool:
        return self.kind in ("money", "number", "percent")


@dataclass(frozen=True)
class GroupBy:
    key: str  # a key of the report's rows
    label: str
    order: tuple[str, ...] = ()  # picklist order of the values; others follow alphabetically
    fmt: Callable[[Any], str] | None = None  # display of a value (e.g. "2026-03" -> "March 2026")
    # The order read from the world at run time instead (record types, which Setup creates), as list view
    # fields and the builder's read their options (``listing.ListField.source``).
    source: Callable[[Session], tuple[str, ...]] | None = None

    def label_of(self, value: Any) -> str:
        if value is None or value == "":
            return NONE_LABEL
        return self.fmt(value) if self.fmt else str(value)

    def sort_key(self, value: Any) -> tuple:
        if value is None or value == "":
            return (2, 0, "")
        if value in self.order:
            return (0, self.order.index(value), "")
        return (1, 0, str(value).lower())


@dataclass(frozen=True)
class Report:
    id: str
    name: str
    description: str
    report_type: str  # "Opportunities"
    object_key: str
    sql: str  # SELECT ... FROM ... (WHERE added by the engine: base_where and filters)
    columns: tuple[Column, ...]
    groupings: tuple[GroupBy, ...]
    default_groups: tuple[str, ...]
    owner_sql: str  # column compared with the owner filter
    date_sql: str  # column compared with the date range
    date_label: str
    base_where: str = ""
    default_range: str = "all"
    measure: str | None = None  # row key summed per group ("amount")
    measure_label: str = ""
    default_sort: tuple[str, str] = ("name", "asc")
    default_details: bool = True  # summary-only by default for reports with many rows (toggle in the page)
    folder: str = "Public Reports"

    def grouping(self, key: str) -> GroupBy | None:
        return next((g for g in self.groupings if g.key == key), None)

    def column(self, key: str) -> Column | None:
        return next((c for c in self.columns if c.key == key), None)


def _month(value: str) -> str:
    year, month = str(value)[:7].split("-")
    return f"{date(int(year), int(month), 1):%B} {year}"


_OWNER = "u.first_name || ' ' || u.last_name"
_OPP_SQL = f"""
SELECT o.id, o.name, o.account_id, a.name AS account, o.amount, o.stage, o.probability, o.close_date,
       o.type, o.lead_source, o.forecast_category, o.owner_id, {_OWNER} AS owner,
       substr(o.close_date, 1, 7) AS close_month, rt.name AS record_type
FROM crm_opportunity o
LEFT JOIN crm_account a ON a.id = o.account_id
LEFT JOIN identity_user u ON u.id = o.owner_id
LEFT JOIN crm_record_type rt ON rt.id = o.record_type_id"""
_OPP_GROUPS = (
    GroupBy("stage", "Stage", tuple(picklists.STAGE_NAMES)),
    GroupBy("owner", "Opportunity Owner"),
    GroupBy("account", "Account Name"),
    GroupBy("type", "Type", tuple(picklists.OPPORTUNITY_TYPES)),
    GroupBy("lead_source", "Lead Source", tuple(picklists.LEAD_SOURCES)),
    GroupBy("forecast_category", "Forecast Category", ("Pipeline", "Best Case", "Commit", "Closed", "Omitted")),
    GroupBy("close_month", "Close Month", fmt=_month),
    GroupBy("record_type", "Opportunity Record Type", source=record_types("opportunity")),
)
_OPP_LINK = Column("name", "Opportunity Name", link="opportunity")
_ACCOUNT_LINK = Column("account", "Account Name", link="account", link_id="account_id")
_CLOSED = "('Closed Won', 'Closed Lost')"

REPORTS: dict[str, Report] = {
    r.id: r
    for r in [
        Report(
            id="pipeline-by-stage-and-owner",
            name="Pipeline by Stage and Owner",
            description="Open opportunities grouped by stage and owner, with the amount in each.",
            report_type="Opportunities",
            object_key="opportunity",
            sql=_OPP_SQL,
            base_where=f"o.stage NOT IN {_CLOSED}",
            columns=(_OPP_LINK, _ACCOUNT_LINK, Column("amount", "Amount", "money"), Column("probability", "Probability (%)", "percent"),
                     Column("close_date", "Close Date", "date"), Column("stage", "Stage"), Column("owner", "Opportunity Owner")),
            groupings=_OPP_GROUPS,
            default_groups=("stage", "owner"),
            owner_sql="o.owner_id",
            date_sql="o.close_date",
            date_label="Close Date",
            measure="amount",
            measure_label="Amount",
            default_sort=("amount", "desc"),
        ),
        Report(
            id="cases-by-status-and-priority",
            name="Cases by Status and Priority",
            description="Every case grouped by status, then by priority.",
            report_type="Cases",
            object_key="case",
            sql=f"""
SELECT c.id, c.case_number, c.subject, c.status, c.priority, c.origin, c.type, c.reason, c.account_id,
       a.name AS account, c.contact_id, COALESCE(ct.first_name || ' ', '') || ct.last_name AS contact,
       c.created_at, c.closed_at, c.owner_id, {_OWNER} AS owner, rt.name AS record_type
FROM crm_case c
LEFT JOIN crm_account a ON a.id = c.account_id
LEFT JOIN crm_contact ct ON ct.id = c.contact_id
LEFT JOIN identity_user u ON u.id = c.owner_id
LEFT JOIN crm_record_type rt ON rt.id = c.record_type_id""",
            columns=(Column("case_number", "Case Number", link="case"), Column("subject", "Subject"), _ACCOUNT_LINK,
                     Column("contact", "Contact Name", link="contact", link_id="contact_id"), Column("origin", "Case Origin"),
                     Column("created_at", "Date/Time Opened", "datetime"), Column("owner", "Case Owner")),
            groupings=(
                GroupBy("status", "Status", tuple(picklists.CASE_STATUSES)),
                GroupBy("priority", "Priority", tuple(reversed(picklists.CASE_PRIORITIES))),
                GroupBy("origin", "Case Origin", tuple(picklists.CASE_ORIGINS)),
                GroupBy("type", "Type", tuple(picklists.CASE_TYPES)),
                GroupBy("reason", "Case Reason", tuple(picklists.CASE_REASONS)),
                GroupBy("record_type", "Case Record Type", source=record_types("case")),
                GroupBy("owner", "Case Owner"),
                GroupBy("account", "Account Name"),
            ),
            default_groups=("status", "priority"),
            owner_sql="c.owner_id",
            date_sql="c.created_at",
            date_label="Date/Time Opened",
            default_sort=("case_number", "asc"),
        ),
        Report(
            id="deals-won-this-quarter",
            name="Deals Won This Quarter",
            description="Opportunities closed won in the current fiscal quarter, by owner.",
            report_type="Opportunities",
            object_key="opportunity",
            sql=_OPP_SQL,
            base_where="o.stage = 'Closed Won'",
            columns=(_OPP_LINK, _ACCOUNT_LINK, Column("amount", "Amount", "money"), Column("close_date", "Close Date", "date"),
                     Column("type", "Type"), Column("owner", "Opportunity Owner")),
            groupings=tuple(g for g in _OPP_GROUPS if g.key not in ("stage", "forecast_category")),
            default_groups=("owner",),
            owner_sql="o.owner_id",
            date_sql="o.close_date",
            date_label="Close Date",
            default_range="this_quarter",
            measure="amount",
            measure_label="Amount",
            default_sort=("amount", "desc"),
        ),
        Report(
            id="open-leads-by-source",
            name="Open Leads by Source",
            description="Leads not yet converted or closed, grouped by lead source.",
            report_type="Leads",
            object_key="lead",
            sql=f"""
SELECT l.id, COALESCE(l.first_name || ' ', '') || l.last_name AS name, l.company, l.title, l.status, l.source,
       l.rating, l.industry, l.email, l.country, l.created_at, l.owner_id, {_OWNER} AS owner
FROM crm_lead l
LEFT JOIN identity_user u ON u.id = l.owner_id""",
            base_where="l.status IN ({})".format(", ".join(f"'{s}'" for s in picklists.LEAD_OPEN_STATUSES)),
            columns=(Column("name", "Name", link="lead"), Column("company", "Company"), Column("title", "Title"), Column("status", "Lead Status"),
                     Column("rating", "Rating"), Column("email", "Email"), Column("created_at", "Created Date", "date"), Column("owner", "Lead Owner")),
            groupings=(
                GroupBy("source", "Lead Source", tuple(picklists.LEAD_SOURCES)),
                GroupBy("status", "Lead Status", tuple(picklists.LEAD_STATUSES)),
                GroupBy("rating", "Rating", tuple(picklists.RATINGS)),
                GroupBy("industry", "Industry", tuple(picklists.INDUSTRIES)),
                GroupBy("country", "Country"),
                GroupBy("owner", "Lead Owner"),
            ),
            default_groups=("source",),
            owner_sql="l.owner_id",
            date_sql="l.created_at",
            date_label="Created Date",
            default_sort=("created_at", "desc"),
        ),
        Report(
            id="activities-by-assignee",
            name="Activities by Assignee",
            description="Tasks, calls and meetings grouped by the person assigned, then by type.",
            report_type="Activities",
            object_key="activity",
            sql=f"""
SELECT t.id, t.subject, CASE t.kind WHEN 'task' THEN 'Task' WHEN 'call' THEN 'Call' WHEN 'meeting' THEN 'Meeting' ELSE t.kind END AS kind,
       t.status, t.priority, COALESCE(t.due_date, date(t.start_at)) AS activity_date, t.related_type, t.related_id,
       COALESCE(ra.name, ro.name, rs.case_number || ' ' || rs.subject,
                COALESCE(rc.first_name || ' ', '') || rc.last_name, COALESCE(rl.first_name || ' ', '') || rl.last_name) AS related,
       t.assignee_id AS owner_id, {_OWNER} AS owner
FROM crm_activity t
LEFT JOIN crm_account ra ON t.related_type = 'account' AND ra.id = t.related_id
LEFT JOIN crm_opportunity ro ON t.related_type = 'opportunity' AND ro.id = t.related_id
LEFT JOIN crm_case rs ON t.related_type = 'case' AND rs.id = t.related_id
LEFT JOIN crm_contact rc ON t.related_type = 'contact' AND rc.id = t.related_id
LEFT JOIN crm_lead rl ON t.related_type = 'lead' AND rl.id = t.related_id
LEFT JOIN identity_user u ON u.id = t.assignee_id""",
            columns=(Column("subject", "Subject", link="activity"), Column("kind", "Activity Type"), Column("status", "Status"),
                     Column("priority", "Priority"), Column("activity_date", "Date", "date"), Column("related", "Related To", link="@related", link_id="related_id"),
                     Column("owner", "Assigned To")),
            groupings=(
                GroupBy("owner", "Assigned To"),
                GroupBy("kind", "Activity Type", ("Task", "Call", "Meeting")),
                GroupBy("status", "Status", tuple(picklists.TASK_STATUSES)),
                GroupBy("priority", "Priority", tuple(picklists.TASK_PRIORITIES)),
            ),
            default_groups=("owner", "kind"),
            owner_sql="t.assignee_id",
            date_sql="COALESCE(t.due_date, date(t.start_at))",
            date_label="Date",
            default_sort=("activity_date", "asc"),
            default_details=False,
        ),
        Report(
            id="accounts-by-industry",
            name="Accounts by Industry",
            description="Every account grouped by industry, with annual revenue.",
            report_type="Accounts",
            object_key="account",
            sql=f"""
SELECT a.id, a.name, a.type, a.industry, a.rating, a.billing_city, a.billing_country, a.employees, a.annual_revenue,
       a.created_at, a.owner_id, {_OWNER} AS owner
FROM crm_account a
LEFT JOIN identity_user u ON u.id = a.owner_id""",
            columns=(Column("name", "Account Name", link="account"), Column("type", "Type"), Column("rating", "Rating"),
                     Column("billing_city", "Billing City"), Column("billing_country", "Billing Country"),
                     Column("employees", "Employees", "number"), Column("annual_revenue", "Annual Revenue", "money"), Column("owner", "Account Owner")),
            groupings=(
                GroupBy("industry", "Industry", tuple(picklists.INDUSTRIES)),
                GroupBy("type", "Type", tuple(picklists.ACCOUNT_TYPES)),
                GroupBy("rating", "Rating", tuple(picklists.RATINGS)),
                GroupBy("billing_country", "Billing Country"),
                GroupBy("owner", "Account Owner"),
            ),
            default_groups=("industry",),
            owner_sql="a.owner_id",
            date_sql="a.created_at",
            date_label="Created Date",
            measure="annual_revenue",
            measure_label="Annual Revenue",
            default_sort=("name", "asc"),
        ),
    ]
}


# -- date ranges relative to the world clock -----------------------------------------------------------------
def _quarter_start(d: date) -> date:
    return date(d.year, 3 * ((d.month - 1) // 3) + 1, 1)


def _add_months(d: date, months: int) -> date:
    m = d.month - 1 + months
    return date(d.year + m // 12, m % 12 + 1, 1)


RANGES: dict[str, str] = {
    "all": "All Time",
    "this_month": "Current Month",
    "last_month": "Previous Month",
    "this_quarter": "Current FQ",
    "last_quarter": "Previous FQ",
    "next_quarter": "Next FQ",
    "this_year": "Current FY",
    "last_year": "Previous FY",
}


def date_range(key: str, clock: WorldClock) -> tuple[date, date] | None:
    """[start, end) of a named range (fiscal year = calendar year), or None for all time."""
    today = clock.today
    month, quarter, year = date(today.year, today.month, 1), _quarter_start(today), date(today.year, 1, 1)
    spans = {
        "this_month": (month, _add_months(month, 1)),
        "last_month": (_add_months(month, -1), month),
        "this_quarter": (quarter, _add_months(quarter, 3)),
        "last_quarter": (_add_months(quarter, -3), quarter),
        "next_quarter": (_add_months(quarter, 3), _add_months(quarter, 6)),
        "this_year": (year, date(year.year + 1, 1, 1)),
        "last_year": (date(year.year - 1, 1, 1), year),
    }
    return spans.get(key)


def range_caption(key: str, clock: WorldClock) -> str:
    span = date_range(key, clock)
    if span is None:
        return RANGES["all"]
    start, end = span
    last = end - timedelta(days=1)
    return f"{RANGES[key]} ({start:%b} {start.day}, {start.year} – {last:%b} {last.day}, {last.year})"


# -- running a report -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Params:
    """What the report page's controls choose (all from the query string)."""

    groups: tuple[str, ...]
    owner: str = ""  # "" all, "me", or a user id
    range: str = "all"
    sort: str = ""
    direction: str = "asc"
    details: bool = True


@dataclass
class Group:
    field: GroupBy
    value: Any
    label: str
    rows: list[dict] = field(default_factory=list)
    subgroups: list["Group"] = field(default_factory=list)
    count: int = 0
    total: float | None = None


@dataclass
class Result:
    report: Report
    params: Params
    rows: list[dict]  # every filtered row, in display order (group order, then the sort)
    groups: list[Group]
    count: int
    total: float | None
    sort: tuple[str, str]


def parse_params(report: Report, query: Any, clock: WorldClock) -> Params:
    """Read the page's query string; unknown values fall back to the report's defaults."""
    if "g1" in query or "g2" in query:
        chosen = [query.get("g1", ""), query.get("g2", "")]
        groups: list[str] = []
        for key in chosen:
            if key and report.grouping(key) and key not in groups:
                groups.append(key)
            elif not key:
                break  # "then by" without a first level means nothing
    else:
        groups = list(report.default_groups)
    rng = query.get("range", report.default_range)
    rng = rng if rng in RANGES else report.default_range
    owner = query.get("owner", "")
    owner = owner if owner in ("", "me") or owner.isdigit() else ""
    sort = query.get("sort", "")
    sort = sort if report.column(sort) else ""
    direction = "desc" if query.get("dir") == "desc" else "asc"
    details = query.get("details", "1" if report.default_details else "0") != "0"
    return Params(groups=tuple(groups), owner=owner, range=rng, sort=sort, direction=direction, details=details)


def _null_last_key(value: Any) -> tuple:
    if value is None or value == "":
        return (1, "")
    if isinstance(value, str):
        return (0, value.lower())
    return (0, value)


def run(session: Session, report: Report, params: Params, clock: WorldClock, user_id: int | None) -> Result:
    where: list[str] = [report.base_where] if report.base_where else []
    bind: dict[str, Any] = {}
    from .sharing import visible_sql_here

    if (shared := visible_sql_here(session, report.object_key, report.owner_sql.split(".")[0])) is not None:
        where.append(shared)  # a report counts the rows its reader may see, as Salesforce's do
    owner_id = user_id if params.owner == "me" else (int(params.owner) if params.owner.isdigit() else None)
    if params.owner and owner_id is not None:
        where.append(f"{report.owner_sql} = :owner_id")
        bind["owner_id"] = owner_id
    span = date_range(params.range, clock)
    if span is not None:
        # ISO strings compare like the dates and datetimes SQLite stores: [start, end).
        where.append(f"{report.date_sql} >= :start AND {report.date_sql} < :end")
        bind["start"], bind["end"] = span[0].isoformat(), span[1].isoformat()
    sql = report.sql + (" WHERE " + " AND ".join(f"({w})" for w in where) if where else "")
    result = session.connection().execute(text(sql), bind)
    keys = list(result.keys())
    rows = [dict(zip(keys, r)) for r in result.fetchall()]  # zip: much cheaper than RowMapping for 1000s of rows

    sort_key, direction = (params.sort, params.direction) if params.sort else report.default_sort
    # Stable sorts: id first (the tie-breaker), then the chosen column (nulls last either way).
    rows.sort(key=lambda r: r["id"])
    present = [r for r in rows if r.get(sort_key) not in (None, "")]
    missing = [r for r in rows if r.get(sort_key) in (None, "")]
    present.sort(key=lambda r: _null_last_key(r.get(sort_key)), reverse=direction == "desc")
    rows = present + missing

    fields = [report.grouping(k) for k in params.groups]
    fields = [replace(f, order=f.source(session)) if f.source else f for f in fields if f is not None]
    groups = _group(rows, fields, report.measure)
    ordered = _flatten(groups) if groups else rows
    total = _sum(rows, report.measure)
    return Result(report=report, params=params, rows=ordered, groups=groups, count=len(rows), total=total, sort=(sort_key, direction))


def _sum(rows: list[dict], measure: str | None) -> float | None:
    if measure is None:
        return None
    return float(sum(r[measure] or 0 for r in rows))


def _group(rows: list[dict], fields: list[GroupBy], measure: str | None) -> list[Group]:
    if not fields:
        return []
    head, rest = fields[0], fields[1:]
    buckets: dict[Any, list[dict]] = {}
    for row in rows:  # rows keep their sort order inside each bucket
        value = row.get(head.key)
        buckets.setdefault(None if value == "" else value, []).append(row)
    out = []
    for value in sorted(buckets, key=head.sort_key):
        members = buckets[value]
        out.append(Group(field=head, value=value, label=head.label_of(value), rows=members,
                         subgroups=_group(members, rest, measure), count=len(members), total=_sum(members, measure)))
    return out


def _flatten(groups: list[Group]) -> list[dict]:
    out: list[dict] = []
    for g in groups:
        out.extend(_flatten(g.subgroups) if g.subgroups else g.rows)
    return out


# -- CSV export ------------------------------------------------------------------------------------------
def _csv_value(value: Any, kind: str) -> str:
    if value is None:
        return ""
    if kind == "money":
        return f"{float(value):.2f}"
    if kind in ("number", "percent"):
        return f"{float(value):g}"
    if kind == "date":
        return str(value)[:10]
    if kind == "datetime":
        return str(value)[:19].replace("T", " ")
    return str(value)


def to_csv(result: Result) -> str:
    """Detail rows with the group columns first, in the page's order (Salesforce "Details Only")."""
    report = result.report
    fields = [report.grouping(k) for k in result.params.groups]
    fields = [f for f in fields if f is not None]
    grouped_keys = {f.key for f in fields}
    columns = [c for c in report.columns if c.key not in grouped_keys]
    buf = io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    writer.writerow([f.label for f in fields] + [c.label for c in columns])
    for row in result.rows:
        writer.writerow([f.label_of(row.get(f.key)) for f in fields] + [_csv_value(row.get(c.key), c.kind) for c in columns])
    return buf.getvalue()


__all__ = ["Column", "GroupBy", "Group", "Params", "RANGES", "REPORTS", "Report", "Result", "date_range", "parse_params", "range_caption", "run", "to_csv"]
