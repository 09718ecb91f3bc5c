"""ServiceNow encoded queries (``sysparm_query``): parse, describe (breadcrumbs) and compile to SQL.

``active=true^priority=1^ORpriority=2^ORDERBYDESCnumber`` reads "priority is 1 AND (state is ... OR
...)": ``^`` joins conditions with AND, ``^OR`` joins a condition to the previous one with OR (OR binds
tighter, as in ServiceNow), ``ORDERBY``/``ORDERBYDESC`` sort. Reference fields compare the referenced
record's display value (a name or a number), or the signed-in user with ``javascript:gs.getUserID()``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import and_, false, func, not_, or_, select

from .tables import REFS, Col, Table, attr

ME = "javascript:gs.getUserID()"

# operator -> label, by field type (the condition builder offers these).
OPS: dict[str, list[tuple[str, str]]] = {
    "string": [("=", "is"), ("!=", "is not"), ("LIKE", "contains"), ("NOT LIKE", "does not contain"), ("STARTSWITH", "starts with"),
               ("ENDSWITH", "ends with"), ("ISEMPTY", "is empty"), ("ISNOTEMPTY", "is not empty")],
    "choice": [("=", "is"), ("!=", "is not"), ("IN", "is one of"), ("ISEMPTY", "is empty"), ("ISNOTEMPTY", "is not empty")],
    "number": [("=", "is"), ("!=", "is not"), ("<", "less than"), (">", "greater than"), ("<=", "less than or is"),
               (">=", "greater than or is"), ("IN", "is one of"), ("ISEMPTY", "is empty"), ("ISNOTEMPTY", "is not empty")],
    "reference": [("=", "is"), ("!=", "is not"), ("LIKE", "contains"), ("STARTSWITH", "starts with"), ("ISEMPTY", "is empty"), ("ISNOTEMPTY", "is not empty")],
    "datetime": [("ON", "on"), ("<", "before"), (">", "after"), ("ISEMPTY", "is empty"), ("ISNOTEMPTY", "is not empty")],
    "boolean": [("=", "is"), ("!=", "is not")],
}
OPS["date"] = OPS["datetime"]
NO_VALUE = ("ISEMPTY", "ISNOTEMPTY")
_COND = re.compile(r"^([a-z_][a-z0-9_.]*?)(ISNOTEMPTY|ISEMPTY|NOT LIKE|LIKE|STARTSWITH|ENDSWITH|ON|IN|!=|>=|<=|=|>|<)(.*)$", re.S)


class QueryError(ValueError):
    """An encoded query that cannot be run; the message says which part and why."""


@dataclass
class Cond:
    field: str
    op: str
    value: str
    join: str = "AND"  # how it joins the previous condition: AND | OR

    def encode(self) -> str:
        return f"{self.field}{self.op}{'' if self.op in NO_VALUE else self.value}"


@dataclass
class Query:
    conds: list[Cond]
    order: list[tuple[str, bool]]  # (field, descending)
    group_by: str | None = None  # GROUPBYfield: the list shows groups with their counts

    def encode(self, conds: list[Cond] | None = None, order: list[tuple[str, bool]] | None = None, group_by: str | None | bool = True) -> str:
        """The encoded query; ``group_by``: True keeps the grouping, None/False drops it, a name sets it."""
        parts = []
        for k, c in enumerate(self.conds if conds is None else conds):
            parts.append(("OR" if c.join == "OR" and k else "") + c.encode())
        for name, desc in self.order if order is None else order:
            parts.append(("ORDERBYDESC" if desc else "ORDERBY") + name)
        grouping = self.group_by if group_by is True else (group_by or None)
        if grouping:
            parts.append("GROUPBY" + grouping)
        return "^".join(parts)

    def groups(self) -> list[list[Cond]]:
        out: list[list[Cond]] = []
        for c in self.conds:
            if c.join == "OR" and out:
                out[-1].append(c)
            else:
                out.append([c])
        return out


def parse(table: Table, text: str) -> Query:
    conds: list[Cond] = []
    order: list[tuple[str, bool]] = []
    group_by = None
    for raw in (text or "").split("^"):
        if not raw or raw == "EQ":
            continue
        join = "AND"
        if raw.startswith("GROUPBY"):
            group_by = _field(table, raw[7:]).name
            continue
        if raw.startswith("ORDERBYDESC"):
            order.append((_field(table, raw[11:]).name, True))
            continue
        if raw.startswith("ORDERBY"):
            order.append((_field(table, raw[7:]).name, False))
            continue
        if raw == "NQ":
            raise QueryError("Queries joined with ^NQ (a new query) are not supported: combine the conditions with ^ and ^OR.")
        if raw.startswith("OR"):  # field names are lower case, so OR can only be the join
            join, raw = "OR", raw[2:]
        m = _COND.match(raw)
        if not m:
            raise QueryError(f"'{raw}' is not a condition: write field, operator and value, such as priority=1 or short_descriptionLIKEvpn.")
        col = _field(table, m.group(1))
        op, value = m.group(2), m.group(3)
        if op not in dict(OPS[col.type]):
            ops = ", ".join(o for o, _ in OPS[col.type])
            raise QueryError(f"{col.label}: the operator {op} does not apply to this field (use one of {ops}).")
        conds.append(Cond(col.name, op, value, join))
    return Query(conds, order, group_by)


def _field(table: Table, name: str) -> Col:
    col = table.col(name)
    if col is None:
        names = ", ".join(c.name for c in table.cols)
        raise QueryError(f"'{name}' is not a field of {table.label.lower()} (fields: {names}).")
    return col


def _date(col: Col, value: str) -> date:
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        raise QueryError(f"{col.label}: '{value}' is not a date; write it as YYYY-MM-DD, such as 2026-03-01.") from None


def _number(col: Col, value: str) -> float:
    for v, label in (c for c in col.choices if isinstance(c, tuple)):
        if value.strip().lower() == str(label).lower():
            return v
    try:
        return float(value)
    except ValueError:
        raise QueryError(f"{col.label}: '{value}' is not a number.") from None


def condition(table: Table, c: Cond, user_id: int | None, now=None):
    col = table.col(c.field)
    expr = attr(table, col, now)
    op, v = c.op, c.value
    if op == "ISEMPTY":
        return or_(expr.is_(None), expr == "") if col.type in ("string", "choice") else expr.is_(None)
    if op == "ISNOTEMPTY":
        return and_(expr.is_not(None), expr != "") if col.type in ("string", "choice") else expr.is_not(None)
    if op == "IN":
        items = [x.strip() for x in v.split(",") if x.strip()]
        if col.type == "number":
            return expr.in_([_number(col, x) for x in items])
        return func.lower(expr).in_([x.lower() for x in items])
    if col.type == "reference":
        ref = REFS.get(col.ref)
        if v == ME:
            match = expr == user_id if user_id is not None else false()
        elif ref is None:
            match = false()
        else:
            disp = ref.display
            test = {"=": func.lower(disp) == v.lower(), "!=": func.lower(disp) == v.lower(), "LIKE": disp.ilike(f"%{_esc(v)}%", escape="\\"),
                    "STARTSWITH": disp.ilike(f"{_esc(v)}%", escape="\\")}[op]
            ids = select(ref.model.id).where(test)
            if v.isdigit() and op in ("=", "!="):
                ids = select(ref.model.id).where(or_(test, ref.model.id == int(v)))
            match = expr.in_(ids)
        return or_(expr.is_(None), not_(match)) if op == "!=" else match
    if col.type in ("datetime", "date"):
        d = _date(col, v)
        lo, hi = (d, d + timedelta(days=1)) if col.type == "date" else (str(d), str(d + timedelta(days=1)))
        return {"ON": and_(expr >= lo, expr < hi), "<": expr < lo, ">": expr >= hi}[op]
    if col.type == "number":
        n = _number(col, v)
        return {"=": expr == n, "!=": or_(expr.is_(None), expr != n), "<": expr < n, ">": expr > n, "<=": expr <= n, ">=": expr >= n}[op]
    if col.type == "boolean":
        truth = v.strip().lower() in ("true", "1", "yes")
        if col.attr.startswith("__"):  # a computed condition (SLA breaches)
            return expr if (op == "=") == truth else not_(expr)
        return (expr == truth) if op == "=" else (expr != truth)
    low = func.lower(expr)
    return {
        "=": low == v.lower(), "!=": or_(expr.is_(None), low != v.lower()),
        "LIKE": expr.ilike(f"%{_esc(v)}%", escape="\\"), "NOT LIKE": or_(expr.is_(None), not_(expr.ilike(f"%{_esc(v)}%", escape="\\"))),
        "STARTSWITH": expr.ilike(f"{_esc(v)}%", escape="\\"), "ENDSWITH": expr.ilike(f"%{_esc(v)}", escape="\\"),
    }[op]


def _esc(v: str) -> str:
    return v.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def where(table: Table, q: Query, user_id: int | None, now=None):
    """The query's conditions as SQL; ``now`` (the world clock) for conditions that depend on it."""
    return and_(True, *[or_(*[condition(table, c, user_id, now) for c in group]) for group in q.groups()])


def order_by(table: Table, q: Query, now=None) -> list:
    keys = q.order or [(table.default_order.lstrip("-"), table.default_order.startswith("-"))]
    out = []
    for name, desc in keys:
        col = table.col(name)
        expr = attr(table, col, now)
        if col.type == "reference" and col.ref in REFS:
            ref = REFS[col.ref]
            expr = select(ref.display).where(ref.model.id == expr).scalar_subquery()
        out.append(expr.desc() if desc else expr.asc())
    out.append(table.model.id.desc() if keys[0][1] else table.model.id.asc())  # a stable order for equal keys
    return out


def describe(table: Table, c: Cond) -> str:
    """One breadcrumb: 'Priority = 1 - Critical', 'Short description contains vpn'."""
    col = table.col(c.field)
    label = dict(OPS[col.type]).get(c.op, c.op)
    if c.op in NO_VALUE:
        return f"{col.label} {label}"
    value = c.value
    if value == ME:
        value = "(me)"
    elif c.op == "IN":
        value = ", ".join(x.strip() for x in value.split(","))
    elif col.type == "number" and col.choices:
        try:
            value = col.label_of(int(float(value)))
        except ValueError:
            pass
    elif col.type == "choice" and col.choices and isinstance(col.choices[0], tuple):
        value = col.label_of(value)
    sign = {"is": "=", "is not": "!="}.get(label, label)
    return f"{col.label} {sign} {value}"
