"""Read-only forms of the other tables (``/<table>.do?sys_id=``), with the approval's UI actions
(Approve, Reject) and a requested item's variables. The incident has its own form."""

from __future__ import annotations

import json

from fastapi import APIRouter, HTTPException, Request
from sqlmodel import select

from ...deps import ClockDep, SessionDep
from ...identity.models import User
from ...ui import redirect, render
from ..catalog import decide, variables_of
from ..changes import conflicts
from ..common import display, displays, get_or_404, reference_maps, sn_datetime
from ..models import Approval, CatalogItem, ChangeRequest, CIRelationship, GroupMember, RequestedItem
from ..tables import REFS, TABLES, value
from ..acl import ROLES, DeskUser, access
from ..roles import user_roles
from .denied import denied

router = APIRouter()


def _fields(session, table, rec, now=None) -> list[dict]:
    refs = reference_maps(session, table, [rec], [c.name for c in table.cols])
    out = []
    for c in table.cols:
        v = value(session, table, c, rec, now)
        href = ""
        if c.type == "reference":
            text = refs[c.name].get(v, "")
            href = REFS[c.ref].form.format(id=v) if v is not None and REFS.get(c.ref) and REFS[c.ref].form else ""
        elif c.type in ("datetime", "date"):
            text = sn_datetime(v)
        else:
            text = c.label_of(v)
        out.append({"label": c.label, "text": text, "href": href, "long": c.name in ("short_description", "description", "comments")})
    return out


def _extras(session, key: str, rec, acc=None) -> dict:  # noqa: ANN001 - the request's Access
    extra: dict = {}
    if key == "sc_req_item":
        item = session.get(CatalogItem, rec.item_id)
        values = json.loads(rec.variables or "{}")
        extra["variables"] = [(v["label"], ("Yes" if values.get(v["name"]) else "No") if v["type"] == "checkbox" else values.get(v["name"], ""))
                              for v in (variables_of(item) if item else [])]
        extra["approvals"] = session.exec(select(Approval).where(Approval.req_item_id == rec.id)).all()
    if key == "sc_request":
        extra["items"] = session.exec(select(RequestedItem).where(RequestedItem.request_id == rec.id)).all()
    if key == "cmdb_ci":
        extra["relations"] = relations_of(session, rec.id)
    if key == "sys_user" and acc is not None and (acc.by_role("sys_user_has_role", "read") or rec.id == acc.user.id):
        extra["roles"] = user_roles(session, rec.id)
        extra["role_choices"] = list(ROLES.items())
    if key == "sys_user_group":
        ids = [m.user_id for m in session.exec(select(GroupMember).where(GroupMember.group_id == rec.id)).all()]
        extra["members"] = session.exec(select(User).where(User.id.in_(ids)).order_by(User.last_name)).all() if ids else []
    if key == "sysapproval_approver" and rec.change_id is not None:
        chg = session.get(ChangeRequest, rec.change_id)
        extra["change"] = chg
        extra["change_conflicts"] = conflicts(session, chg) if chg else []
        extra["change_ci"] = display(session, "cmdb_ci", chg.ci_id) if chg else ""
    if key == "sysapproval_approver" and rec.req_item_id is not None:
        extra["ritm"] = session.get(RequestedItem, rec.req_item_id)
        if extra["ritm"] is not None:
            item = session.get(CatalogItem, extra["ritm"].item_id)
            values = json.loads(extra["ritm"].variables or "{}")
            extra["item"] = item
            extra["variables"] = [(v["label"], ("Yes" if values.get(v["name"]) else "No") if v["type"] == "checkbox" else values.get(v["name"], ""))
                                  for v in (variables_of(item) if item else [])]
    return extra


def relations_of(session, ci_id: int) -> list[dict]:
    """The CI's relationships read from its side: "Runs on", "Depends on" (as parent), "Runs", "Used by" (as child)."""
    rels = session.exec(select(CIRelationship).where((CIRelationship.parent_id == ci_id) | (CIRelationship.child_id == ci_id))).all()
    names = displays(session, "cmdb_ci", {r.child_id for r in rels} | {r.parent_id for r in rels})
    out = []
    for r in rels:
        down, up = r.type.split("::")
        other = r.child_id if r.parent_id == ci_id else r.parent_id
        out.append({"type": down if r.parent_id == ci_id else up, "id": other, "name": names.get(other, "")})
    order = {"Runs on": 0, "Depends on": 1, "Runs": 2, "Used by": 3}
    return sorted(out, key=lambda x: (order.get(x["type"], 9), x["name"]))


@router.get("/{table_key}.do")
def record_form(request: Request, table_key: str, session: SessionDep, user: DeskUser, clock: ClockDep, sys_id: str = ""):
    table = TABLES.get(table_key)
    if table is None or table_key in ("incident", "problem", "change_request"):
        raise HTTPException(status_code=404, detail=f"Invalid table name: {table_key}.")
    acc = access(request)
    if not acc.can(table.key, "read"):
        return denied(request)
    rec = get_or_404(session, table.model, sys_id, table.singular)
    if not acc.can_row(table.key, "read", rec):
        return denied(request)
    fields = _fields(session, table, rec, clock.now)
    title = next((f["text"] for f in fields if f["label"] in ("Number", "Name")), None) or f"{table.singular} {rec.id}"
    extra = _extras(session, table_key, rec, acc)
    if table_key == "sysapproval_approver" and extra.get("ritm") is not None:
        title = f"Approval for {extra['ritm'].number}"
    if table_key == "sysapproval_approver" and extra.get("change") is not None:
        title = f"Approval for {extra['change'].number}"
    return render(request, "desk/record.html", table=table, rec=rec, fields=fields, title=title, errors={}, **extra)


@router.post("/sysapproval_approver.do")
async def approval_action(request: Request, session: SessionDep, user: DeskUser, clock: ClockDep):
    form = await request.form()
    approval = get_or_404(session, Approval, form.get("sys_id"), "approval")
    table = TABLES["sysapproval_approver"]
    decision = {"approve": "approved", "reject": "rejected"}.get(str(form.get("sysverb", "")), "")
    errors = {"__all__": "Only the approver can approve or reject this request."} if approval.approver_id != user.id else \
        decide(session, approval, decision, str(form.get("comments", "")), clock)
    if errors:
        session.rollback()
        extra = _extras(session, "sysapproval_approver", approval)
        return render(request, "desk/record.html", table=table, rec=approval, fields=_fields(session, table, approval, clock.now),
                      title=f"Approval for {extra_number(session, approval)}", errors=errors, comments=str(form.get("comments", "")), **extra)
    session.commit()
    word = "approved" if decision == "approved" else "rejected"
    what = "Change" if approval.change_id is not None else "Request"
    return redirect(request, "/sysapproval_approver_list.do?sysparm_query=approver=javascript:gs.getUserID()^state=requested",
                    toast=f"{what} {extra_number(session, approval)} {word}.")


def extra_number(session, approval: Approval) -> str:
    if approval.change_id is not None:
        return display(session, "change_request", approval.change_id)
    ritm = session.get(RequestedItem, approval.req_item_id) if approval.req_item_id else None
    return ritm.number if ritm else ""

