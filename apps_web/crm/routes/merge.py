"""Duplicates and the merge wizard of accounts, contacts and leads.

Routes, per object path P (/accounts, /contacts, /leads):
  GET  P/<id>/duplicates   the record's potential duplicates (its matching rule), to pick for a merge
  GET  P/merge             step 1 "Select Records": search (q) and tick up to 3 (ids); step=compare goes
                           to step 2 "Select Values": the master record and, per differing field, the value
  POST P/merge             merge (ids, master, f_<field> = the id of the record whose value to keep)
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import or_
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import money, redirect, render
from ..common import get_or_404, users_by_id
from ..duplicates import DUP_OBJECTS, card_message, find_duplicates
from ..forms import display_name
from ..merge import FIELDS, MAX_RECORDS, MergeError, can_merge, check_selection, merge_records
from ..models import Account, Contact
from ..objects import OBJECTS

router = APIRouter(include_in_schema=False)
SUBLABEL = {"account": ("billing_city", "Billing City"), "contact": ("email", "Email"), "lead": ("company", "Company")}


def _ids(values: list[str]) -> list[int]:
    out: list[int] = []
    for v in values:
        for part in str(v).split(","):
            if part.strip().isdigit() and int(part) not in out:
                out.append(int(part))
    return out


def _row(session, object_key: str, rec, users) -> dict:  # noqa: ANN001
    col, _ = SUBLABEL[object_key]
    owner = users.get(rec.owner_id)
    extra = ""
    if object_key == "contact" and rec.account_id:
        acct = session.get(Account, rec.account_id)
        extra = acct.name if acct else ""
    if object_key == "account":
        extra = ", ".join(p for p in (rec.billing_state, rec.billing_country) if p)
    return {"id": rec.id, "name": display_name(object_key, rec), "url": OBJECTS[object_key].url(rec.id), "sub": getattr(rec, col) or "",
            "extra": extra, "owner": owner.name if owner else ""}


def _render_select(request: Request, session, user, object_key: str, *, rows: list, selected: list[int], q: str = "",
                   error: str = "", title: str = "", intro: str = "", record=None, status_code: int = 200) -> Response:  # noqa: ANN001
    info = OBJECTS[object_key]
    return render(request, "crm/merge.html", status_code=status_code, step="select", info=info, object_key=object_key, rows=rows,
                  selected=selected, q=q, error=error, max_records=MAX_RECORDS, title=title or f"Merge {info.plural}",
                  intro=intro or f"Search for {info.plural.lower()} to merge, then select up to {MAX_RECORDS}.",
                  sub_label=SUBLABEL[object_key][1], record=record, allowed=can_merge(user, object_key))


def _search(session, object_key: str, q: str) -> list:  # noqa: ANN001
    model = OBJECTS[object_key].model
    like = f"%{q.strip()}%"
    if object_key == "account":
        cond = Account.name.ilike(like)
        order = (Account.name, Account.id)
    else:
        full = model.first_name + " " + model.last_name
        conds = [model.last_name.ilike(like), model.first_name.ilike(like), full.ilike(like), model.email.ilike(like)]
        if object_key == "lead":
            conds.append(model.company.ilike(like))
        cond = or_(*conds)
        order = (model.last_name, model.first_name, model.id)
    return list(session.exec(select(model).where(cond).order_by(*order).limit(50)).all())


def _display(session, object_key: str, name: str, value: Any, users) -> str:  # noqa: ANN001
    if value is None or value == "":
        return ""
    if name == "owner_id":
        u = users.get(value)
        return u.name if u else str(value)
    if name in ("account_id", "parent_id"):
        a = session.get(Account, value)
        return a.name if a else ""
    if name == "reports_to_id":
        c = session.get(Contact, value)
        return c.name if c else ""
    if name == "annual_revenue":
        return money(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _compare(request: Request, session, user, object_key: str, records: list, *, master: int | None = None,
             choices: dict[str, int] | None = None, error: str = "", status_code: int = 200) -> Response:  # noqa: ANN001
    info = OBJECTS[object_key]
    users = users_by_id(session)
    master = master if master in {r.id for r in records} else records[0].id
    names = [display_name(object_key, r) for r in records]
    columns = []
    for i, r in enumerate(records, start=1):
        label = names[i - 1] if names.count(names[i - 1]) == 1 else f"{names[i - 1]} (Record {i})"
        columns.append({"id": r.id, "n": i, "name": names[i - 1], "label": label, "url": info.url(r.id)})
    rows = []
    for name, label in FIELDS[object_key]:
        shown = [_display(session, object_key, name, getattr(r, name), users) for r in records]
        differ = len(set(shown)) > 1
        chosen = (choices or {}).get(name, master)
        cells = []
        for col, text in zip(columns, shown):
            dup_text = shown.count(text) > 1
            aria = f"{label}: {text or '[empty]'}" + (f" (Record {col['n']})" if dup_text else "")
            cells.append({"id": col["id"], "text": text, "aria": aria, "checked": chosen == col["id"]})
        rows.append({"name": name, "label": label, "differ": differ, "cells": cells})
    return render(request, "crm/merge.html", status_code=status_code, step="compare", info=info, object_key=object_key, columns=columns,
                  rows=rows, master=master, error=error, ids=",".join(str(r.id) for r in records), title=f"Merge {info.plural}",
                  back=f"{info.path}/merge?" + urlencode([("ids", str(r.id)) for r in records]), allowed=True)


def _duplicates_page(object_key: str):
    def duplicates(request: Request, record_id: int, session: SessionDep, user: CurrentUser) -> Response:
        info = OBJECTS[object_key]
        record = get_or_404(session, info.model, record_id, info.label)
        users = users_by_id(session)
        dups = find_duplicates(session, object_key, record, record.id)
        rows = [_row(session, object_key, r, users) for r in [record, *dups]]
        return _render_select(request, session, user, object_key, rows=rows, selected=[record.id], record=record,
                              title=f"Potential Duplicates of {display_name(object_key, record)}",
                              intro=card_message(object_key, len(dups)) + f" Select up to {MAX_RECORDS} records to compare and merge.")

    duplicates.__name__ = f"{object_key}_duplicates"
    return duplicates


def _merge_page(object_key: str):
    def merge_page(request: Request, session: SessionDep, user: CurrentUser) -> Response:
        info = OBJECTS[object_key]
        qp = request.query_params
        ids = _ids(qp.getlist("ids"))
        q = str(qp.get("q") or "").strip()
        users = users_by_id(session)
        if qp.get("step") == "compare":
            try:
                records = check_selection(session, user, object_key, ids)
            except MergeError as exc:
                rows = [_row(session, object_key, r, users) for r in (_search(session, object_key, q) if q else [])]
                known = {r["id"] for r in rows}
                for i in ids:
                    rec = session.get(info.model, i)
                    if rec is not None and i not in known:
                        rows.insert(0, _row(session, object_key, rec, users))
                return _render_select(request, session, user, object_key, rows=rows, selected=ids, q=q, error=str(exc), status_code=422)
            return _compare(request, session, user, object_key, records)
        found = _search(session, object_key, q) if q else []
        chosen = [session.get(info.model, i) for i in ids]
        rows = [_row(session, object_key, r, users) for r in chosen if r is not None]
        known = {r["id"] for r in rows}
        rows += [_row(session, object_key, r, users) for r in found if r.id not in known]
        return _render_select(request, session, user, object_key, rows=rows, selected=ids, q=q)

    merge_page.__name__ = f"{object_key}_merge_page"
    return merge_page


def _merge_post(object_key: str):
    async def merge(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
        info = OBJECTS[object_key]
        form = await request.form()
        ids = _ids(form.getlist("ids"))
        master = int(form["master"]) if str(form.get("master", "")).isdigit() else None
        choices = {name: int(form[f"f_{name}"]) for name, _ in FIELDS[object_key] if str(form.get(f"f_{name}", "")).isdigit()}
        try:
            if master is None:
                raise MergeError("Select a master record.")
            result = merge_records(session, user, clock, object_key, master, ids, choices)
        except MergeError as exc:
            session.rollback()
            try:
                records = check_selection(session, user, object_key, ids)
            except MergeError:
                return _render_select(request, session, user, object_key, rows=[], selected=ids, error=str(exc), status_code=422)
            return _compare(request, session, user, object_key, records, master=master, choices=choices, error=str(exc), status_code=422)
        session.commit()
        n = len(result.merged_ids) + 1
        return redirect(request, info.url(result.master_id), toast=f"{n} {info.plural.lower()} were merged into {display_name(object_key, session.get(info.model, result.master_id))}.")

    merge.__name__ = f"{object_key}_merge"
    return merge


for _key in DUP_OBJECTS:
    _p = OBJECTS[_key].path
    router.add_api_route(_p + "/merge", _merge_page(_key), methods=["GET"], name=f"{_key}_merge_page")
    router.add_api_route(_p + "/merge", _merge_post(_key), methods=["POST"], name=f"{_key}_merge")
    router.add_api_route(_p + "/{record_id:int}/duplicates", _duplicates_page(_key), methods=["GET"], name=f"{_key}_duplicates")
