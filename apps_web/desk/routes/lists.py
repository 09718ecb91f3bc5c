"""List views of every table: ``/<table>_list.do?sysparm_query=...&sysparm_first_row=21``.

The encoded query holds the conditions and the sort, so a list is fully described by its URL (what
the breadcrumbs, the column headers and the condition builder all link to).
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse
from sqlalchemy import and_, func, select

from ...deps import ClockDep, SessionDep
from ...ui import render
from ..common import displays, reference_maps, sn_datetime
from ..models import Group
from ..query import OPS, Query, QueryError, describe, order_by, parse, where
from ..tables import TABLES, Col, Table, attr, value
from ..acl import DeskUser, access
from .denied import denied

router = APIRouter()
PAGE = 20


def list_href(table: Table, query: str, first_row: int = 1) -> str:
    params = {}
    if query:
        params["sysparm_query"] = query
    if first_row > 1:
        params["sysparm_first_row"] = first_row
    return table.list_url + ("?" + urlencode(params, safe="=^,") if params else "")


def field_meta(table: Table) -> list[dict]:
    """What the condition builder needs of each field (also embedded as JSON for its script)."""
    out = []
    for c in table.cols:
        if not c.list:
            continue
        choices = [[ch[0], ch[1]] if isinstance(ch, tuple) else [ch, ch] for ch in c.choices]
        if c.type == "boolean":
            choices = [["true", "true"], ["false", "false"]]
        out.append({"name": c.name, "label": c.label, "type": c.type, "choices": choices})
    return out


# Cells that a double-click edits in the list (the form's own validation applies); references offer
# their few records as choices (groups), never a free search.
INLINE: dict[str, tuple[str, ...]] = {
    "incident": ("short_description", "state", "category", "impact", "urgency", "assignment_group"),
    "problem": ("short_description", "state", "category", "impact", "urgency", "assignment_group"),
    "change_request": ("short_description", "state", "risk", "assignment_group"),
}
GROUP_LIMIT = 100


def cell_text(c: Col, v, refs: dict) -> str:
    if c.type == "reference":
        return refs[c.name].get(v, "")
    if c.type in ("datetime", "date"):
        return sn_datetime(v)
    if c.type == "number" and c.choices:
        return c.label_of(v)
    if c.type == "number" and isinstance(v, float):
        return f"{v:,.2f}" if c.name in ("price",) else f"{v:g}"
    return c.label_of(v)


def cell_condition(c: Col, v, text: str) -> str:
    """The encoded condition "this field has this cell's value" (Show Matching, groups)."""
    if v is None or v == "":
        return f"{c.name}ISEMPTY"
    if c.type == "reference":
        return f"{c.name}={text.replace('^', ' ')}"
    if c.type in ("datetime", "date"):
        return f"{c.name}ON{v.strftime('%Y-%m-%d')}"
    if c.type == "boolean":
        return f"{c.name}={'true' if v else 'false'}"
    return f"{c.name}={str(v).replace('^', ' ')}"


def inline_options(session, c: Col) -> list[list]:
    if c.type == "reference" and c.ref == "sys_user_group":
        return [[i, n] for i, n in session.execute(select(Group.id, Group.name).order_by(Group.name)).all()]
    return [[ch[0], ch[1]] if isinstance(ch, tuple) else [ch, ch] for ch in c.choices]


def _rows(session, table: Table, columns: list[Col], rows: list, now) -> list[dict]:
    refs = reference_maps(session, table, rows, [c.name for c in columns])
    body = []
    for r in rows:
        cells = []
        for c in columns:
            v = value(session, table, c, r, now)
            text = cell_text(c, v, refs)
            cells.append({"col": c, "text": text, "value": v, "cond": cell_condition(c, v, text)})
        href = table.extra["form"].format(id=r.id) if "form" in table.extra else table.form_url(r.id)
        body.append({"id": r.id, "href": href, "cells": cells})
    return body


def _groups(session, table: Table, q: Query, cond, now) -> list[dict]:
    """Group-by: every value of the grouped column with its count (references by display value)."""
    col = table.col(q.group_by)
    expr = attr(table, col, now)
    counts = session.execute(select(expr, func.count()).select_from(table.model).where(cond).group_by(expr)).all()
    refs = {col.name: displays(session, col.ref, {k for k, _ in counts})} if col.type == "reference" else {}
    groups = []
    for key, n in counts:
        text = cell_text(col, key, refs) if key is not None else ""
        groups.append({"text": text or "(empty)", "count": n, "cond": cell_condition(col, key, text), "key": key})
    groups.sort(key=lambda g: (g["key"] is None, g["text"].lower() if not isinstance(g["key"], (int, float)) or col.type != "number" else f"{g['key']:012.3f}"))
    return groups


@router.get("/{table_key}_list.do")
def list_view(request: Request, table_key: str, session: SessionDep, user: DeskUser, clock: ClockDep, sysparm_query: str = "", sysparm_first_row: int = 1,
              sysparm_search_field: str = "", sysparm_search: str = "", sysparm_fragment: str = ""):
    table = TABLES.get(table_key)
    if table is None:
        raise HTTPException(status_code=404, detail=f"Invalid table name: {table_key}. There is no such list.")
    acc = access(request)
    if not acc.can(table.key, table.extra.get("list_op", "read")):  # Maintain Items is for those who may write items
        return denied(request, f"The {table.label} list needs a role you do not have.")
    mine = acc.row_filter(table.key, table.model)  # a self-service user's own records only
    if sysparm_search.strip() and table.col(sysparm_search_field):
        # The list's search box adds "<field> contains <text>" to the current filter.
        extra = f"{sysparm_search_field}LIKE{sysparm_search.strip().replace('^', ' ')}"
        return RedirectResponse(list_href(table, "^".join(p for p in (sysparm_query, extra) if p)), status_code=303)
    error = None
    try:
        q = parse(table, sysparm_query)
        cond = where(table, q, user.id, clock.now)
    except QueryError as exc:
        error, q = str(exc), Query([], [])
        cond = where(table, q, user.id, clock.now)
    if mine is not None:
        cond = and_(cond, mine)
    columns = [table.col(n) for n in table.columns]
    editable = set(INLINE.get(table.key, ())) & set(table.columns) if acc.by_role(table.key, "write") else set()
    options = {c.name: inline_options(session, c) for c in columns if c.name in editable}
    total = session.execute(select(func.count()).select_from(table.model).where(cond)).scalar_one()
    first = max(1, min(sysparm_first_row, max(total, 1)))
    first = ((first - 1) // PAGE) * PAGE + 1
    groups = _groups(session, table, q, cond, clock.now) if q.group_by and not error else None
    if groups is None or sysparm_fragment == "rows":
        rows = session.execute(select(table.model).where(cond).order_by(*order_by(table, q, clock.now)).offset(first - 1).limit(PAGE)).scalars().all()
        body = _rows(session, table, columns, rows, clock.now)
    else:
        body = []
    if sysparm_fragment == "rows":  # one group's records, for a group the user expands
        return render(request, "desk/list_rows.html", table=table, rows=body, columns=columns, editable=editable, total=total,
                      more_href=list_href(table, q.encode(group_by=False)) if total > PAGE else "")
    # Breadcrumbs: each AND-group is a level; a crumb links to the list filtered up to it.
    crumbs, upto = [], []
    for group in q.groups():
        upto = upto + group
        crumbs.append({"text": " .or. ".join(describe(table, c) for c in group), "href": list_href(table, q.encode(upto))})
    sort = q.order[0] if q.order else (table.default_order.lstrip("-"), table.default_order.startswith("-"))

    def sort_href(name: str) -> str:
        desc = not sort[1] if sort[0] == name else False
        return list_href(table, q.encode(order=[(name, desc)]))

    def with_cond(extra: str, grouped: bool = True) -> str:
        """The list filtered further by one more condition (groups, Show Matching, Filter Out)."""
        return list_href(table, q.encode(conds=q.conds + parse(table, extra).conds, group_by=True if grouped else False))

    last = min(first + PAGE - 1, total)
    return render(
        request, "desk/list.html", table=table, columns=columns, rows=body, total=total, first=first, last=last,
        page=PAGE, crumbs=crumbs, query=q, query_text=q.encode(), error=error, sort=sort, sort_href=sort_href,
        href=lambda first_row: list_href(table, q.encode(), first_row),
        fields_json=json.dumps(field_meta(table)), conds_json=json.dumps([c.__dict__ for c in q.conds]), order_json=json.dumps(q.order), ops_json=json.dumps(OPS), ops=OPS,
        groups=q.groups(), col_of=table.col, attr=attr, grouped=groups[:GROUP_LIMIT] if groups is not None else None,
        group_col=table.col(q.group_by) if q.group_by else None, group_more=max(0, len(groups) - GROUP_LIMIT) if groups else 0, with_cond=with_cond,
        ungroup_href=list_href(table, q.encode(group_by=False)), editable=editable, options_json=json.dumps(options),
        group_choices=[c for c in table.cols if c.list and c.type in ("choice", "reference", "boolean") or (c.type == "number" and c.choices)],
    )
