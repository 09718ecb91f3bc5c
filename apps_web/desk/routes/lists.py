"""List views of every table: ``/<table>_list.do?sysparm_query=...&sysparm_first_row=21``.

The encoded query holds the conditions and the sort, so a list is fully described by its URL (what
the breadcrumbs, the column headers and the condition builder all link to).
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse
from sqlalchemy import func, select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import render
from ..common import reference_maps, sn_datetime
from ..query import OPS, Query, QueryError, describe, order_by, parse, where
from ..tables import TABLES, Table, attr, value

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


@router.get("/{table_key}_list.do")
def list_view(request: Request, table_key: str, session: SessionDep, user: CurrentUser, clock: ClockDep, sysparm_query: str = "", sysparm_first_row: int = 1,
              sysparm_search_field: str = "", sysparm_search: str = ""):
    table = TABLES.get(table_key)
    if table is None:
        raise HTTPException(status_code=404, detail=f"Invalid table name: {table_key}. There is no such list.")
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
    total = session.execute(select(func.count()).select_from(table.model).where(cond)).scalar_one()
    first = max(1, min(sysparm_first_row, max(total, 1)))
    first = ((first - 1) // PAGE) * PAGE + 1
    rows = session.execute(select(table.model).where(cond).order_by(*order_by(table, q, clock.now)).offset(first - 1).limit(PAGE)).scalars().all()
    columns = [table.col(n) for n in table.columns]
    refs = reference_maps(session, table, rows, list(table.columns))
    body = []
    for r in rows:
        cells = []
        for c in columns:
            v = value(session, table, c, r, clock.now)
            if c.type == "reference":
                text = refs[c.name].get(v, "")
            elif c.type in ("datetime", "date"):
                text = sn_datetime(v)
            elif c.type == "number" and c.choices:
                text = c.label_of(v)
            elif c.type == "number" and isinstance(v, float):
                text = f"{v:,.2f}" if c.name in ("price",) else f"{v:g}"
            else:
                text = c.label_of(v)
            cells.append({"col": c, "text": text, "value": v})
        body.append({"id": r.id, "href": table.form_url(r.id), "cells": cells})
    # Breadcrumbs: each AND-group is a level; a crumb links to the list filtered up to it.
    crumbs, upto = [], []
    for group in q.groups():
        upto = upto + group
        crumbs.append({"text": " .or. ".join(describe(table, c) for c in group), "href": list_href(table, q.encode(upto))})
    sort = q.order[0] if q.order else (table.default_order.lstrip("-"), table.default_order.startswith("-"))

    def sort_href(name: str) -> str:
        desc = not sort[1] if sort[0] == name else False
        return list_href(table, q.encode(order=[(name, desc)]))

    last = min(first + PAGE - 1, total)
    return render(
        request, "desk/list.html", table=table, columns=columns, rows=body, total=total, first=first, last=last,
        page=PAGE, crumbs=crumbs, query=q, query_text=q.encode(), error=error, sort=sort, sort_href=sort_href,
        href=lambda first_row: list_href(table, q.encode(), first_row),
        fields_json=json.dumps(field_meta(table)), conds_json=json.dumps([c.__dict__ for c in q.conds]), order_json=json.dumps(q.order), ops_json=json.dumps(OPS), ops=OPS,
        groups=q.groups(), col_of=table.col, attr=attr,
    )
