"""The report builder: report types, a report definition (columns, filters with filter logic, up to
three row groupings, summaries, chart), its validation with Salesforce's messages, and the engine
that runs it.

A report type is one flat SQL select over an object and its lookups (one row per record); filters
compile to SQL over that select (the list views' operators and value checks), groups and summaries
are computed in Python on the filtered rows, so the page, the chart and the saved definition agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import literal_column, select, text
from sqlmodel import Session

from . import filterlogic
from . import picklists as P
from .listing import Filter, ListField, _condition, in_world
from .recordtypes import options as record_types
from .reports import NONE_LABEL

AGGREGATES = {"sum": "Sum", "avg": "Average", "min": "Min", "max": "Max"}
MAX_GROUPS = 3
FOLDERS = ("Private Reports", "Public Reports")
_OWNER = "u.first_name || ' ' || u.last_name"


def _f(key: str, label: str, kind: str = "text", options: tuple[str, ...] = (), link: str | None = None, link_id: str = "id",
       source: Any = None) -> ListField:
    return ListField(key, label, literal_column(f"r.{key}"), kind, options, link, link_id, source=source)


@dataclass(frozen=True)
class ReportType:
    key: str  # opportunities
    label: str  # Opportunities
    object_key: str
    description: str
    sql: str
    fields: dict[str, ListField]
    default_columns: tuple[str, ...]

    @property
    def groupable(self) -> list[ListField]:
        return [f for f in self.fields.values() if not f.numeric and f.kind not in ("datetime",) and f.link != self.object_key]

    @property
    def numeric(self) -> list[ListField]:
        return [f for f in self.fields.values() if f.numeric]

    @property
    def sorted_fields(self) -> list[ListField]:
        return sorted(self.fields.values(), key=lambda f: f.label.lower())

    def in_world(self, session: Session) -> "ReportType":
        """The type with its fields' options as the world has them (the record types Setup has): what the
        builder's filters accept and the order its groups follow (``listing.in_world``, as the list views)."""
        fields = in_world(self.fields, session)
        return self if fields is self.fields else replace(self, fields=fields)


def report_type(session: Session, key: str) -> ReportType | None:
    """A report type by key, in the world of ``session`` (None: no such type)."""
    rtype = TYPES.get(key)
    return rtype.in_world(session) if rtype is not None else None


def _type(key: str, label: str, object_key: str, description: str, sql: str, fields: list[ListField], default: tuple[str, ...]) -> ReportType:
    return ReportType(key, label, object_key, description, sql, {f.key: f for f in fields}, default)


TYPES: dict[str, ReportType] = {t.key: t for t in [
    _type("opportunities", "Opportunities", "opportunity", "Opportunities with their account and owner.", f"""
SELECT o.id, o.name, o.account_id, a.name AS account, o.amount, o.amount * o.probability / 100.0 AS expected_revenue, o.stage, o.probability, o.close_date,
       o.type, o.lead_source, o.forecast_category, o.next_step, o.loss_reason, {_OWNER} AS owner, a.industry AS account_industry,
       substr(o.close_date, 1, 7) AS close_month, o.created_at, ta.name AS territory, rt.name AS record_type
FROM crm_opportunity o LEFT JOIN crm_account a ON a.id = o.account_id LEFT JOIN identity_user u ON u.id = o.owner_id
LEFT JOIN crm_territory ta ON ta.id = a.territory_id LEFT JOIN crm_record_type rt ON rt.id = o.record_type_id""", [
        _f("name", "Opportunity Name", "name", link="opportunity"), _f("account", "Account Name", "lookup", link="account", link_id="account_id"),
        _f("amount", "Amount", "money"), _f("expected_revenue", "Expected Revenue", "money"), _f("stage", "Stage", "picklist", tuple(P.STAGE_NAMES)),
        _f("probability", "Probability (%)", "percent"), _f("close_date", "Close Date", "date"), _f("close_month", "Close Month"),
        _f("type", "Type", "picklist", tuple(P.OPPORTUNITY_TYPES)), _f("lead_source", "Lead Source", "picklist", tuple(P.LEAD_SOURCES)),
        _f("forecast_category", "Forecast Category", "picklist", ("Pipeline", "Best Case", "Commit", "Closed", "Omitted")),
        _f("next_step", "Next Step"), _f("loss_reason", "Loss Reason"), _f("owner", "Opportunity Owner", "user"),
        _f("account_industry", "Account: Industry", "picklist", tuple(P.INDUSTRIES)), _f("territory", "Account: Territory"),
        _f("created_at", "Created Date", "datetime"), _f("record_type", "Opportunity Record Type", "picklist", source=record_types("opportunity"))],
        ("name", "account", "stage", "amount", "close_date", "owner")),
    _type("accounts", "Accounts", "account", "Accounts with their owner and territory.", f"""
SELECT a.id, a.name, a.type, a.industry, a.rating, a.annual_revenue, a.employees, a.phone, a.billing_city, a.billing_state,
       a.billing_country, t.name AS territory, {_OWNER} AS owner, a.created_at
FROM crm_account a LEFT JOIN crm_territory t ON t.id = a.territory_id LEFT JOIN identity_user u ON u.id = a.owner_id""", [
        _f("name", "Account Name", "name", link="account"), _f("type", "Type", "picklist", tuple(P.ACCOUNT_TYPES)),
        _f("industry", "Industry", "picklist", tuple(P.INDUSTRIES)), _f("rating", "Rating", "picklist", tuple(P.RATINGS)),
        _f("annual_revenue", "Annual Revenue", "money"), _f("employees", "Employees", "number"), _f("phone", "Phone", "phone"),
        _f("billing_city", "Billing City"), _f("billing_state", "Billing State/Province"), _f("billing_country", "Billing Country"),
        _f("territory", "Territory"), _f("owner", "Account Owner", "user"), _f("created_at", "Created Date", "datetime")],
        ("name", "type", "industry", "billing_state", "annual_revenue", "owner")),
    _type("cases", "Cases", "case", "Cases with their account, contact and owner.", f"""
SELECT c.id, c.case_number, c.subject, c.status, c.priority, c.origin, c.type, c.reason, c.account_id, a.name AS account,
       c.contact_id, COALESCE(ct.first_name || ' ', '') || ct.last_name AS contact, {_OWNER} AS owner, c.created_at, c.closed_at,
       CASE WHEN c.status = 'Closed' THEN 1 ELSE 0 END AS closed, rt.name AS record_type
FROM crm_case c LEFT JOIN crm_account a ON a.id = c.account_id LEFT JOIN crm_contact ct ON ct.id = c.contact_id
LEFT JOIN identity_user u ON u.id = c.owner_id LEFT JOIN crm_record_type rt ON rt.id = c.record_type_id""", [
        _f("case_number", "Case Number", "text", link="case"), _f("subject", "Subject"), _f("status", "Status", "picklist", tuple(P.CASE_STATUSES)),
        _f("priority", "Priority", "picklist", tuple(P.CASE_PRIORITIES)), _f("origin", "Case Origin", "picklist", tuple(P.CASE_ORIGINS)),
        _f("type", "Type", "picklist", tuple(P.CASE_TYPES)), _f("reason", "Case Reason", "picklist", tuple(P.CASE_REASONS)),
        _f("account", "Account Name", "lookup", link="account", link_id="account_id"), _f("contact", "Contact Name", "lookup", link="contact", link_id="contact_id"),
        _f("owner", "Case Owner", "user"), _f("created_at", "Date/Time Opened", "datetime"), _f("closed_at", "Date/Time Closed", "datetime"),
        _f("record_type", "Case Record Type", "picklist", source=record_types("case"))],
        ("case_number", "subject", "status", "priority", "account", "owner")),
    _type("leads", "Leads", "lead", "Leads with their owner.", f"""
SELECT l.id, COALESCE(l.first_name || ' ', '') || l.last_name AS name, l.company, l.title, l.status, l.source, l.rating, l.industry,
       l.annual_revenue, l.employees, l.email, l.state, l.country, {_OWNER} AS owner, l.created_at
FROM crm_lead l LEFT JOIN identity_user u ON u.id = l.owner_id""", [
        _f("name", "Name", "name", link="lead"), _f("company", "Company"), _f("title", "Title"),
        _f("status", "Lead Status", "picklist", tuple(P.LEAD_STATUSES)), _f("source", "Lead Source", "picklist", tuple(P.LEAD_SOURCES)),
        _f("rating", "Rating", "picklist", tuple(P.RATINGS)), _f("industry", "Industry", "picklist", tuple(P.INDUSTRIES)),
        _f("annual_revenue", "Annual Revenue", "money"), _f("employees", "No. of Employees", "number"), _f("email", "Email", "email"),
        _f("state", "State/Province"), _f("country", "Country"), _f("owner", "Lead Owner", "user"), _f("created_at", "Created Date", "datetime")],
        ("name", "company", "status", "source", "owner")),
    _type("contacts", "Contacts & Accounts", "contact", "Contacts with their account.", f"""
SELECT c.id, COALESCE(c.first_name || ' ', '') || c.last_name AS name, c.title, c.department, c.email, c.phone, c.lead_source,
       c.mailing_city, c.mailing_country, c.account_id, a.name AS account, a.industry AS account_industry, {_OWNER} AS owner, c.created_at
FROM crm_contact c LEFT JOIN crm_account a ON a.id = c.account_id LEFT JOIN identity_user u ON u.id = c.owner_id""", [
        _f("name", "Contact Name", "name", link="contact"), _f("title", "Title"), _f("department", "Department"), _f("email", "Email", "email"),
        _f("phone", "Phone", "phone"), _f("lead_source", "Lead Source", "picklist", tuple(P.LEAD_SOURCES)), _f("mailing_city", "Mailing City"),
        _f("mailing_country", "Mailing Country"), _f("account", "Account Name", "lookup", link="account", link_id="account_id"),
        _f("account_industry", "Account: Industry", "picklist", tuple(P.INDUSTRIES)), _f("owner", "Contact Owner", "user"),
        _f("created_at", "Created Date", "datetime")],
        ("name", "title", "account", "email", "owner")),
]}


# -- the definition a builder edits and a report saves ------------------------------------------------------
@dataclass(frozen=True)
class Definition:
    type: ReportType
    columns: tuple[str, ...]
    groups: tuple[str, ...] = ()
    summaries: tuple[tuple[str, str], ...] = ()  # (field, agg)
    filters: tuple[Filter, ...] = ()
    logic: str = ""
    chart: str = "none"  # none | bar | donut

    @property
    def summaries_text(self) -> str:
        return ",".join(f"{k}:{a}" for k, a in self.summaries)

    def summary_label(self, key: str, agg: str) -> str:
        return f"{AGGREGATES[agg]} of {self.type.fields[key].label}"


def definition_from(rtype: ReportType, query: Any) -> Definition:
    """The builder's state from its form (query string or POST body); unknown keys are dropped."""
    cols = [c for c in dict.fromkeys(query.getlist("col")) if c in rtype.fields] if "col" in query or "cols" in query else list(rtype.default_columns)
    groups = [g for g in (query.get("g1", ""), query.get("g2", ""), query.get("g3", "")) if g]
    summaries = []
    for item in query.getlist("sum"):
        key, _, agg = str(item).partition(":")
        if key in rtype.fields and rtype.fields[key].numeric and agg in AGGREGATES and (key, agg) not in summaries:
            summaries.append((key, agg))
    fields, ops, values = query.getlist("ff"), query.getlist("fo"), query.getlist("fv")
    filters = tuple(Filter(str(k), str(ops[i]) if i < len(ops) else "equals", str(values[i] if i < len(values) else "").strip())
                    for i, k in enumerate(fields))
    chart = query.get("chart", "none")
    return Definition(rtype, tuple(cols), tuple(groups), tuple(summaries), filters, str(query.get("logic") or "").strip(),
                      chart if chart in ("none", "bar", "donut") else "none")


def check(defn: Definition) -> tuple[Definition, dict[str, str]]:
    """Errors of a definition (keyed ``groups``, ``columns``, ``logic``; filter errors ride on the filters)."""
    errors: dict[str, str] = {}
    fields = defn.type.fields
    checked = []
    for f in defn.filters:
        fld = fields.get(f.field)
        if fld is None:
            checked.append(replace(f, error="Select a field."))
            continue
        if f.op not in fld.operators:
            checked.append(replace(f, error="Select an operator."))
            continue
        _c, err = _condition(fld, f)
        if err is None and fld.kind == "picklist" and f.value:
            bad = [v.strip() for v in f.value.split(",") if v.strip() and v.strip().lower() not in {o.lower() for o in fld.options}]
            if bad:
                err = f"Bad value for restricted picklist field: {bad[0]}"
        checked.append(replace(f, error=err))
    groups = list(defn.groups)
    if len(groups) > MAX_GROUPS:
        errors["groups"] = f"You can group rows by up to {MAX_GROUPS} fields."
    elif any(g not in {x.key for x in defn.type.groupable} for g in groups):
        errors["groups"] = "You can't group by this field."
    elif len(set(groups)) != len(groups):
        errors["groups"] = "You've already grouped by this field."
    if not defn.columns and not groups:
        errors["columns"] = "Add at least one column."
    if defn.logic:
        try:
            filterlogic.parse(defn.logic, len(checked))
        except filterlogic.LogicError as err:
            errors["logic"] = str(err)
    out = replace(defn, filters=tuple(checked), logic=filterlogic.normalize(defn.logic) or "" if "logic" not in errors else defn.logic)
    if any(f.error for f in checked):
        errors["filters"] = "Fix the errors in your filters."
    return out, errors


# -- running -------------------------------------------------------------------------------------------------
@dataclass
class RGroup:
    field: ListField
    value: Any
    label: str
    level: int
    rows: list[dict] = field(default_factory=list)
    subgroups: list["RGroup"] = field(default_factory=list)
    count: int = 0
    values: dict[tuple[str, str], float | None] = field(default_factory=dict)


@dataclass
class RResult:
    defn: Definition
    rows: list[dict]
    groups: list[RGroup]
    count: int
    values: dict[tuple[str, str], float | None]


def _aggregate(rows: list[dict], summaries: tuple[tuple[str, str], ...]) -> dict[tuple[str, str], float | None]:
    out: dict[tuple[str, str], float | None] = {}
    for key, agg in summaries:
        nums = [float(r[key]) for r in rows if r.get(key) is not None]
        if agg == "sum":
            out[(key, agg)] = float(sum(nums))
        elif not nums:
            out[(key, agg)] = None
        elif agg == "avg":
            out[(key, agg)] = sum(nums) / len(nums)
        else:
            out[(key, agg)] = min(nums) if agg == "min" else max(nums)
    return out


def _order(f: ListField, value: Any) -> tuple:
    if value is None or value == "":
        return (2, 0, "")
    if f.options and value in f.options:
        return (0, f.options.index(value), "")
    return (1, 0, str(value).lower())


def _group(rows: list[dict], fields: list[ListField], summaries, level: int = 1) -> list[RGroup]:
    if not fields:
        return []
    head, rest = fields[0], fields[1:]
    buckets: dict[Any, list[dict]] = {}
    for row in rows:
        value = row.get(head.key)
        buckets.setdefault(None if value == "" else value, []).append(row)
    out = []
    for value in sorted(buckets, key=lambda v: _order(head, v)):
        members = buckets[value]
        out.append(RGroup(head, value, NONE_LABEL if value is None else str(value), level, members,
                          _group(members, rest, summaries, level + 1), len(members), _aggregate(members, summaries)))
    return out


def run(session: Session, defn: Definition) -> RResult:
    """Rows that pass the (valid) filters, grouped, with each summary per group and overall."""
    fields = in_world(defn.type.fields, session)  # groups follow the world's order of record types
    conds = []
    for f in defn.filters:
        if f.error is None and f.field in fields:
            cond, err = _condition(fields[f.field], f)
            conds.append(cond if err is None else literal_column("1") == 1)
    node = None
    if defn.logic and len(conds) == len(defn.filters):
        try:
            node = filterlogic.parse(defn.logic, len(conds))
        except filterlogic.LogicError:  # shown under the field; the preview ANDs the filters meanwhile
            node = None
    where = filterlogic.combine(node, conds)
    query = select(literal_column("r.*")).select_from(text(f"({defn.type.sql}) AS r"))
    if where is not None:
        query = query.where(where)
    from .sharing import viewer, visible_ids_sql

    user = viewer(session)
    if user is not None and (shared := visible_ids_sql(session, user, defn.type.object_key, "r.id")) is not None:
        query = query.where(text(shared))  # only the rows the reader may see (dashboards too: they run as their viewer)
    first_col = defn.columns[0] if defn.columns else "id"
    query = query.order_by(literal_column(f"r.{first_col}"), literal_column("r.id"))
    result = session.connection().execute(query)
    keys = list(result.keys())
    rows = [dict(zip(keys, r)) for r in result.fetchall()]
    groups = _group(rows, [fields[g] for g in defn.groups if g in fields], defn.summaries)
    return RResult(defn, rows, groups, len(rows), _aggregate(rows, defn.summaries))


def top_group(result: RResult) -> RGroup | None:
    """The level-1 group with the largest first summary (or the most records)."""
    if not result.groups:
        return None
    key = result.defn.summaries[0] if result.defn.summaries else None
    return max(result.groups, key=lambda g: (g.values.get(key) or 0) if key else g.count)


_UNIQUE = re.compile(r"^[A-Za-z](?:[A-Za-z0-9]|_(?!_))*(?<!_)$")
UNIQUE_NAME_MESSAGE = ("The Report Unique Name field can only contain underscores and alphanumeric characters. It must be unique, "
                       "begin with a letter, not include spaces, not end with an underscore, and not contain two consecutive underscores.")


def check_unique_name(value: str) -> str | None:
    if not value:
        return "Complete this field."
    if not _UNIQUE.match(value) or len(value) > 80:
        return UNIQUE_NAME_MESSAGE
    return None


__all__ = ["AGGREGATES", "Definition", "FOLDERS", "MAX_GROUPS", "RGroup", "RResult", "ReportType", "TYPES", "check", "check_unique_name", "report_type",
           "definition_from", "run", "top_group"]


def definition_of(session: Session, rep: Any) -> Definition:
    """The definition of a saved report (a ``crm_report`` row and its filters)."""
    from sqlmodel import select as sm_select

    from .models import ReportFilter

    rtype = TYPES[rep.report_type].in_world(session)
    rows = session.exec(sm_select(ReportFilter).where(ReportFilter.report_id == rep.id).order_by(ReportFilter.position)).all()
    sums = tuple(tuple(s.split(":", 1)) for s in rep.summaries.split(",") if ":" in s)
    return Definition(rtype, tuple(c for c in rep.columns.split(",") if c in rtype.fields), tuple(g for g in rep.groupings.split(",") if g),
                      sums, tuple(Filter(r.field, r.operator, r.value) for r in rows), rep.filter_logic or "", rep.chart)  # type: ignore[arg-type]
