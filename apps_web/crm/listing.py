"""Generic list-view machinery: fields, operators, query-string state and the page query.

A list page is fully described by its URL (view, search, filters, sort, page), so an agent or a
task can reproduce any view from a link. The page is one SQL query: the object's rows joined to
their owner/account/contact names, with ``count(*) over ()`` giving the total on every row.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any, Callable
from urllib.parse import urlencode

from sqlalchemy import and_, func, not_, or_, select
from sqlalchemy.orm import aliased
from sqlmodel import Session

from ..identity.models import User
from ..world import WorldClock
from .models import RecentView as RECENT

PAGE_SIZE = 25

# Operators as Salesforce names them; the URL carries the key.
OPERATORS: dict[str, str] = {
    "equals": "equals",
    "not_equal": "not equal to",
    "contains": "contains",
    "not_contains": "does not contain",
    "starts_with": "starts with",
    "less": "less than",
    "greater": "greater than",
    "less_or_equal": "less or equal",
    "greater_or_equal": "greater or equal",
}
_TEXT_OPS = ("equals", "not_equal", "contains", "not_contains", "starts_with")
_RANGE_OPS = ("equals", "not_equal", "less", "greater", "less_or_equal", "greater_or_equal")
KIND_OPERATORS: dict[str, tuple[str, ...]] = {
    "text": _TEXT_OPS,
    "name": _TEXT_OPS,
    "email": _TEXT_OPS,
    "phone": _TEXT_OPS,
    "url": _TEXT_OPS,
    "user": _TEXT_OPS,
    "lookup": _TEXT_OPS,
    "picklist": ("equals", "not_equal"),
    "number": _RANGE_OPS,
    "money": _RANGE_OPS,
    "percent": _RANGE_OPS,
    "date": _RANGE_OPS,
    "datetime": _RANGE_OPS,
}
TEXT_KINDS = frozenset({"text", "name", "email", "phone", "url", "user", "lookup", "picklist"})
NUMERIC_KINDS = frozenset({"number", "money", "percent"})


@dataclass(frozen=True)
class ListField:
    """A field a list can show, sort and filter on."""

    key: str  # URL name, e.g. "industry"
    label: str  # "Industry"
    expr: Any  # SQL expression used to sort and filter
    kind: str = "text"  # text|name|email|phone|url|user|lookup|picklist|number|money|percent|date|datetime
    options: tuple[str, ...] = ()  # picklist values
    link: str | None = None  # "self", or the object key whose id is in ``link_id``
    link_id: str | None = None  # attribute of the record holding the linked id (account_id...)
    extra: bool = False  # value comes from a joined column labelled ``key`` rather than the record
    attr: str | None = None  # record attribute to display (defaults to ``key``)
    # Options the world decides (record types, which Setup creates): read at request time by ``in_world``;
    # ``options`` then holds them. Other picklists are the org's constants and keep ``options``.
    source: Callable[[Session], tuple[str, ...]] | None = None

    @property
    def operators(self) -> tuple[str, ...]:
        return KIND_OPERATORS.get(self.kind, _TEXT_OPS)

    @property
    def numeric(self) -> bool:
        return self.kind in NUMERIC_KINDS


def in_world(fields: dict[str, ListField], session: Session) -> dict[str, ListField]:
    """``fields`` with the options of those that read theirs from the world (``source``) as the world has them
    now: what a filter panel offers and accepts, and the order groups follow. One mechanism for the list
    views (``spec_in_world``) and the report builder (``builder.ReportType.in_world``)."""
    if not any(f.source for f in fields.values()):
        return fields
    return {k: replace(f, options=f.source(session)) if f.source else f for k, f in fields.items()}


@dataclass(frozen=True)
class ViewContext:
    user: User
    clock: WorldClock


@dataclass(frozen=True)
class ListView:
    """A saved list view: a name, base conditions and a default sort."""

    key: str
    label: str
    scope_label: str  # "Filtered by all accounts"
    where: Callable[[ViewContext], list] | None = None
    sort: tuple[str, str] | None = None
    recent: bool = False  # the user's recently viewed records, most recent first


@dataclass
class ListSpec:
    """Everything the generic machinery needs to list one object."""

    object_key: str
    model: type
    fields: dict[str, ListField]
    columns: tuple[str, ...]  # keys of the fields shown, in order
    search: tuple[Any, ...]  # text expressions "Search this list" looks in
    views: tuple[ListView, ...]
    default_view: str
    default_sort: tuple[str, str]
    extras: tuple[Any, ...] = ()  # labelled joined columns (owner_name, account_name...)
    joins: tuple[tuple[Any, Any], ...] = ()  # (alias, onclause) outer joins

    def view(self, key: str | None) -> ListView:
        for v in self.views:
            if v.key == key:
                return v
        return self.view(self.default_view) if key != self.default_view else self.views[0]

    @property
    def filterable(self) -> list[ListField]:
        return sorted(self.fields.values(), key=lambda f: f.label.lower())


def spec_in_world(spec: ListSpec, session: Session) -> ListSpec:
    """The spec with its fields' options as the world has them (``in_world``)."""
    fields = in_world(spec.fields, session)
    return spec if fields is spec.fields else replace(spec, fields=fields)


# -- state of a list page, read from and written to the query string ------------------------------
@dataclass(frozen=True)
class Filter:
    field: str
    op: str
    value: str
    error: str | None = None

    def describe(self, spec: ListSpec) -> str:
        f = spec.fields.get(self.field)
        return f"{f.label if f else self.field} {OPERATORS.get(self.op, self.op)} {self.value}"


@dataclass(frozen=True)
class ListParams:
    view: str
    q: str = ""
    sort: str | None = None  # None: the view's default
    dir: str = "asc"
    page: int = 1
    filters: tuple[Filter, ...] = ()
    panel: bool = False  # filter panel open
    charts: bool = False  # List View Charts panel open

    @classmethod
    def from_query(cls, query: Any, spec: ListSpec) -> "ListParams":
        view = spec.view(query.get("view")).key
        sort = query.get("sort") or None
        if sort is not None and sort not in spec.fields:
            sort = None
        direction = "desc" if query.get("dir") == "desc" else "asc"
        try:
            page = max(1, int(query.get("page") or 1))
        except ValueError:
            page = 1
        fields, ops, values = query.getlist("ff"), query.getlist("fo"), query.getlist("fv")
        filters = []
        for i, key in enumerate(fields):
            if key not in spec.fields:
                continue
            op = ops[i] if i < len(ops) else "equals"
            if op not in spec.fields[key].operators:
                op = spec.fields[key].operators[0]
            filters.append(Filter(key, op, (values[i] if i < len(values) else "").strip()))
        return cls(view=view, q=(query.get("q") or "").strip(), sort=sort, dir=direction, page=page,
                   filters=tuple(filters), panel=query.get("panel") == "1", charts=query.get("charts") == "1")

    def query_items(self, **changes: Any) -> list[tuple[str, str]]:
        p = replace(self, **changes)
        items: list[tuple[str, str]] = [("view", p.view)]
        if p.q:
            items.append(("q", p.q))
        for f in p.filters:
            items += [("ff", f.field), ("fo", f.op), ("fv", f.value)]
        if p.sort:
            items += [("sort", p.sort), ("dir", p.dir)]
        if p.page > 1:
            items.append(("page", str(p.page)))
        if p.panel:
            items.append(("panel", "1"))
        if p.charts:
            items.append(("charts", "1"))
        return items

    def url(self, path: str, **changes: Any) -> str:
        return f"{path}?{urlencode(self.query_items(**changes))}"


# -- query building ----------------------------------------------------------------------------------
def _parse_value(f: ListField, raw: str) -> tuple[Any, str | None]:
    """The typed value of a filter, or an error message for the filter panel."""
    if f.numeric:
        try:
            return float(raw.replace(",", "").replace("$", "").replace("%", "")), None
        except ValueError:
            return None, "Enter a number."
    if f.kind in ("date", "datetime"):
        for fmt in ("%Y-%m-%d", "%m/%d/%Y"):
            try:
                return datetime.strptime(raw, fmt).date(), None
            except ValueError:
                pass
        return None, "Enter a date like 2026-03-16."
    return raw, None


def _condition(f: ListField, flt: Filter) -> tuple[Any, str | None]:
    if flt.value == "":
        # An empty value means "is blank" (equals) or "is not blank" (not equal), as in Salesforce.
        blank = or_(f.expr.is_(None), f.expr == "") if f.kind in TEXT_KINDS else f.expr.is_(None)
        if flt.op == "equals":
            return blank, None
        if flt.op == "not_equal":
            return not_(blank), None
        return None, "Enter a value."
    value, error = _parse_value(f, flt.value)
    if error:
        return None, error
    expr = f.expr
    if f.kind == "datetime":
        expr, value = func.date(expr), value.isoformat()
    elif f.kind == "date":
        value = value.isoformat()
    if f.kind in TEXT_KINDS:
        expr = func.lower(expr)
        if f.kind == "picklist" and flt.op in ("equals", "not_equal"):
            # "Banking, Retail" means either value, like Salesforce's picklist filters.
            values = [v.strip().lower() for v in flt.value.split(",") if v.strip()]
            cond = expr.in_(values)
            return (cond if flt.op == "equals" else or_(f.expr.is_(None), not_(cond))), None
        value = value.lower()
    op = flt.op
    if op == "equals":
        return expr == value, None
    if op == "not_equal":
        return or_(expr.is_(None), expr != value), None
    if op == "contains":
        return expr.contains(value, autoescape=True), None
    if op == "not_contains":
        return or_(expr.is_(None), not_(expr.contains(value, autoescape=True))), None
    if op == "starts_with":
        return expr.startswith(value, autoescape=True), None
    compare = {"less": expr.__lt__, "greater": expr.__gt__, "less_or_equal": expr.__le__, "greater_or_equal": expr.__ge__}
    return compare[op](value), None


def sort_expr(f: ListField) -> Any:
    return f.expr.collate("NOCASE") if f.kind in TEXT_KINDS else f.expr


@dataclass
class Cell:
    field: ListField
    value: Any
    href: str | None = None


@dataclass
class Row:
    record: Any
    cells: list[Cell]
    number: int
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass
class ListPage:
    spec: ListSpec
    params: ListParams
    view: ListView
    rows: list[Row]
    total: int
    page: int
    pages: int
    sort: str | None  # effective sort key (None: recently viewed order)
    dir: str
    filters: list[Filter]  # with per-filter errors

    @property
    def first(self) -> int:
        return (self.page - 1) * PAGE_SIZE + 1 if self.total else 0

    @property
    def last(self) -> int:
        return min(self.page * PAGE_SIZE, self.total)

    @property
    def columns(self) -> list[ListField]:
        return [self.spec.fields[k] for k in self.spec.columns]

    @property
    def sort_label(self) -> str:
        return self.spec.fields[self.sort].label if self.sort else "Last Viewed Date"

    @property
    def filter_summary(self) -> str:
        labels = [self.spec.fields[f.field].label for f in self.filters if f.error is None]
        text = self.view.scope_label
        return text + (" - " + ", ".join(dict.fromkeys(labels)) if labels else "")


def view_conditions(session: Session, spec: ListSpec, view: ListView, ctx: ViewContext) -> list[Any]:
    """The records a list view lists: its own conditions (a saved view's scope, filters and filter logic)
    and the records the user may see (sharing). The list page and the Kanban board both run these."""
    from .sharing import visible

    conditions: list[Any] = list(view.where(ctx)) if view.where else []
    return conditions + visible(session, ctx.user, spec.object_key, spec.model)  # records the user may see, and only those


def with_joins(query: Any, spec: ListSpec) -> Any:
    """``query`` outer-joined to the lookups the spec's fields read (owner, account...), which filters may name."""
    for alias, onclause in spec.joins:
        query = query.outerjoin(alias, onclause)
    return query


def run_list(session: Session, spec: ListSpec, params: ListParams, ctx: ViewContext, url_for: Callable[[str, int], str]) -> ListPage:
    """Run the page query: rows of the requested page, their joined names and the total."""
    model = spec.model
    view = spec.view(params.view)
    conditions: list[Any] = view_conditions(session, spec, view, ctx)
    checked: list[Filter] = []
    for flt in params.filters:
        cond, error = _condition(spec.fields[flt.field], flt)
        checked.append(replace(flt, error=error))
        if cond is not None:
            conditions.append(cond)
    if params.q:
        conditions.append(or_(*(e.contains(params.q, autoescape=True) for e in spec.search)))

    query = with_joins(select(model, *spec.extras, func.count().over().label("_total")).select_from(model), spec)
    order: list[Any] = []
    sort_key, direction = params.sort, params.dir
    if view.recent:
        seen = (
            select(RECENT.record_id.label("record_id"), func.max(RECENT.id).label("seen"))
            .where(RECENT.user_id == ctx.user.id, RECENT.object_type == spec.object_key)
            .group_by(RECENT.record_id)
            .subquery()
        )
        query = query.join(seen, seen.c.record_id == model.id)
        if sort_key is None:
            order.append(seen.c.seen.desc())
    elif sort_key is None:
        sort_key, direction = view.sort or spec.default_sort
    if sort_key is not None:
        expr = sort_expr(spec.fields[sort_key])
        order += [expr.desc(), model.id.desc()] if direction == "desc" else [expr.asc(), model.id.asc()]
    if conditions:
        query = query.where(and_(*conditions))
    query = query.order_by(*order, model.id)

    page = params.page
    result = session.execute(query.limit(PAGE_SIZE).offset((page - 1) * PAGE_SIZE)).all()
    if not result and page > 1:  # past the end (records were deleted): show the last page
        total = session.execute(select(func.count()).select_from(query.order_by(None).subquery())).scalar_one()
        page = max(1, -(-total // PAGE_SIZE))
        result = session.execute(query.limit(PAGE_SIZE).offset((page - 1) * PAGE_SIZE)).all()
    total = result[0]._total if result else 0
    first = (page - 1) * PAGE_SIZE + 1
    rows = []
    for i, r in enumerate(result):
        record = r[0]
        extras = {c.name: r._mapping[c.name] for c in spec.extras}
        cells = []
        for key in spec.columns:
            f = spec.fields[key]
            value = extras.get(key) if f.extra else getattr(record, f.attr or f.key)
            href = None
            if f.link == "self":
                href = url_for(spec.object_key, record.id)
            elif f.link and f.link_id and getattr(record, f.link_id) is not None:
                href = url_for(f.link, getattr(record, f.link_id))
            cells.append(Cell(f, value, href))
        rows.append(Row(record, cells, first + i, extras))
    return ListPage(spec=spec, params=params, view=view, rows=rows, total=total, page=page,
                    pages=max(1, -(-total // PAGE_SIZE)), sort=sort_key, dir=direction, filters=checked)


# -- helpers for object definitions ------------------------------------------------------------------
def person_name(table: Any) -> Any:
    """'First Last' (or 'Last' alone) as SQL, the way names are shown."""
    return func.trim(func.coalesce(table.first_name, "") + " " + table.last_name)


def owner_alias() -> Any:
    return aliased(User, name="owner_user")


def week_start(clock: WorldClock) -> date:
    return clock.today - timedelta(days=clock.today.weekday())


def month_bounds(clock: WorldClock) -> tuple[date, date]:
    start = clock.today.replace(day=1)
    nxt = (start + timedelta(days=32)).replace(day=1)
    return start, nxt - timedelta(days=1)
