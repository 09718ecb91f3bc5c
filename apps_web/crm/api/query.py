"""List queries of the API: field filters with operators, free-text ``q``, sorting and paging.

``?stage=Closed%20Won&owner_id=3&amount__gte=10000&q=acme&order=-amount&limit=50&offset=0``
Operators: ``eq`` (bare name), ``ne``, ``gt``, ``gte``, ``lt``, ``lte``, ``in`` (comma-separated, or the
parameter repeated), ``contains`` and ``startswith`` (case-insensitive), ``isnull`` (true/false).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from sqlalchemy import Boolean, Date, DateTime, Float, Integer, and_, func, or_, select
from sqlalchemy.sql import ColumnElement, Select

from ..models import Account, Activity, Case, Contact, Lead, Note, Opportunity
from ..validation import Invalid, parse_date, parse_datetime, parse_number

MAX_LIMIT = 200
DEFAULT_LIMIT = 50
MAX_OFFSET = 1_000_000_000
RESERVED = ("limit", "offset", "order", "q")
OPERATORS = ("eq", "ne", "gt", "gte", "lt", "lte", "in", "contains", "startswith", "isnull")


@dataclass(frozen=True)
class ApiObject:
    key: str
    path: str  # /api/<path>
    model: type
    default_order: tuple[str, ...]
    search: tuple[str, ...]  # columns the free-text q looks in


API_OBJECTS: dict[str, ApiObject] = {
    o.key: o
    for o in [
        ApiObject("account", "accounts", Account, ("name",), ("name", "phone", "website", "billing_city")),
        ApiObject("contact", "contacts", Contact, ("last_name", "first_name"), ("first_name", "last_name", "email", "phone", "mobile", "title")),
        ApiObject("lead", "leads", Lead, ("last_name", "first_name"), ("first_name", "last_name", "company", "email", "phone")),
        ApiObject("opportunity", "opportunities", Opportunity, ("name",), ("name",)),
        ApiObject("case", "cases", Case, ("case_number",), ("case_number", "subject")),
        ApiObject("activity", "activities", Activity, ("due_date",), ("subject", "location")),
        ApiObject("note", "notes", Note, ("-created_at",), ("title", "body")),
    ]
}


class QueryError(ValueError):
    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def _strip_phone(column: Any) -> Any:
    """The column's digits only (SQLite has no regexp_replace), so '4155550134' finds '(415) 555-0134'."""
    for ch in "()- +.":
        column = func.replace(column, ch, "")
    return column


def search_condition(model: type, columns: tuple[str, ...], q: str) -> ColumnElement[bool]:
    """Case-insensitive substring match of ``q`` in any of ``columns`` (and in full names)."""
    q = q.strip()
    conditions = [getattr(model, c).icontains(q, autoescape=True) for c in columns]
    if hasattr(model, "first_name") and hasattr(model, "last_name"):
        full = func.coalesce(model.first_name + " ", "") + model.last_name
        conditions.append(full.icontains(q, autoescape=True))
    digits = _digits(q)
    if len(digits) >= 4 and len(digits) >= len(q.replace(" ", "")) - 4:  # looks like a phone number
        for c in ("phone", "mobile"):
            if c in columns:
                conditions.append(_strip_phone(getattr(model, c)).contains(digits, autoescape=True))
    return or_(*conditions)


def _parser(column: Any) -> Callable[[str], Any]:
    kind = column.type
    if isinstance(kind, Boolean):
        return _parse_bool
    if isinstance(kind, Integer):
        return lambda v: parse_number(v, integer=True)
    if isinstance(kind, Float):
        return lambda v: parse_number(v, integer=False)
    if isinstance(kind, DateTime):
        return parse_datetime
    if isinstance(kind, Date):
        return parse_date
    return str


def _parse_bool(value: str) -> bool:
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise Invalid("Use true or false.")


@dataclass
class ListQuery:
    obj: ApiObject
    where: list[ColumnElement[bool]] = field(default_factory=list)
    order: list[Any] = field(default_factory=list)
    limit: int = DEFAULT_LIMIT
    offset: int = 0

    def rows(self) -> Select:
        return select(self.obj.model).where(and_(True, *self.where)).order_by(*self.order).limit(self.limit).offset(self.offset)

    def count(self) -> Select:
        return select(func.count()).select_from(self.obj.model).where(and_(True, *self.where))


def build_list_query(object_key: str, params: list[tuple[str, str]]) -> ListQuery:
    """A list query from query-string pairs, or ``QueryError`` with one message per bad parameter."""
    obj = API_OBJECTS[object_key]
    table = obj.model.__table__
    query = ListQuery(obj)
    errors: dict[str, str] = {}
    grouped: dict[str, list[str]] = {}
    for key, value in params:
        grouped.setdefault(key, []).append(value)
    for key, values in grouped.items():
        value = values[-1]
        if key == "limit" or key == "offset":
            try:
                n = int(value)
            except ValueError:
                errors[key] = "Enter a whole number."
                continue
            if key == "limit" and not 1 <= n <= MAX_LIMIT:
                errors[key] = f"Use a limit from 1 to {MAX_LIMIT}."
            elif key == "offset" and not 0 <= n <= MAX_OFFSET:
                errors[key] = f"Use an offset from 0 to {MAX_OFFSET}."
            else:
                setattr(query, key, n)
        elif key == "q":
            if value.strip():
                query.where.append(search_condition(obj.model, obj.search, value))
        elif key == "order":
            continue
        else:
            name, _, op = key.partition("__")
            op = op or ("in" if len(values) > 1 else "eq")
            if name not in table.c:
                errors[key] = f"Unknown field '{name}'."
                continue
            if op not in OPERATORS:
                errors[key] = f"Unknown operator '{op}'. Use one of: {', '.join(OPERATORS)}."
                continue
            try:
                query.where.append(_condition(table.c[name], op, values))
            except Invalid as exc:
                errors[key] = str(exc)
    order = grouped.get("order", [",".join(obj.default_order)])[-1]
    for part in [p.strip() for p in order.split(",") if p.strip()]:
        name = part.lstrip("-+")
        if name not in table.c:
            errors["order"] = f"Unknown field '{name}'."
            break
        query.order.append(table.c[name].desc() if part.startswith("-") else table.c[name].asc())
    query.order.append(table.c.id.asc())  # the tie-breaker that makes every page stable
    if errors:
        raise QueryError(errors)
    return query


def _condition(column: Any, op: str, values: list[str]) -> ColumnElement[bool]:
    parse = _parser(column)
    if op == "isnull":
        return column.is_(None) if _parse_bool(values[-1]) else column.is_not(None)
    if op == "in":
        items = [parse(v.strip()) for value in values for v in value.split(",") if v.strip()]
        return column.in_(items)
    if op in ("contains", "startswith"):
        text = values[-1]
        return column.icontains(text, autoescape=True) if op == "contains" else func.lower(column).startswith(text.lower(), autoescape=True)
    value = parse(values[-1])
    return {
        "eq": column == value, "ne": or_(column != value, column.is_(None)), "gt": column > value, "gte": column >= value,
        "lt": column < value, "lte": column <= value,
    }[op]
