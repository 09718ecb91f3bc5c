"""The desk's JSON API, shaped like ServiceNow's Table API: ``/api/now/table/<table>`` (list with
``sysparm_query``, ``sysparm_limit``, ``sysparm_offset``; get; create and update for incidents and
approvals), ``/api/sn_sc/servicecatalog/items/<id>/order_now``, and the type-ahead lookups the forms
call (``/api/desk/lookup/<table>?q=``). Writes go through the forms' own validation.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy import and_, case, func, select

from ...deps import ClockDep, SessionDep
from ...identity.models import User
from .. import openapi
from ..catalog import decide, place_order, validate_order
from ..common import get_or_404, reference_maps
from ..models import Approval, CatalogItem, GroupMember, Incident
from ..query import QueryError, order_by, parse, where
from ..tables import REFS, TABLES, Table, value
from ..validation import FIELDS, JOURNAL_FIELDS, apply, validate
from .. import articles as A
from .. import changes as CH
from .. import problems as P
from ..acl import ACL, ESS_INCIDENT_FIELDS, DeskUser, access

router = APIRouter(prefix="/api", tags=["desk"])
CREATABLE = ("incident", "problem", "change_request")
WRITABLE = ("incident", "problem", "change_request", "kb_knowledge", "sysapproval_approver")
NOTES = {"work_notes": "Work notes"}
# the forms' rules of the other writable tables: (fields, validate(session, data, record, user), apply, label, journal fields)
TASKS = {
    "problem": (P.FIELDS, lambda s, d, r, u: P.validate(s, d, r), P.apply, "problem", NOTES),
    "change_request": (CH.FIELDS, CH.validate, CH.apply, "change request", NOTES),
    "kb_knowledge": (A.FIELDS, A.validate, A.apply, "knowledge article", {}),
}
MAX_LIMIT = 1000


def _table(key: str) -> Table:
    table = TABLES.get(key)
    if table is None:
        raise HTTPException(status_code=404, detail=f"Invalid table {key}: use one of {', '.join(TABLES)}.")
    return table


def _json(v: Any) -> Any:
    return v.isoformat(sep=" ") if isinstance(v, datetime) else v.isoformat() if isinstance(v, date) else v


def serialize(session, table: Table, rows: list, now=None) -> list[dict]:
    refs = reference_maps(session, table, rows, [c.name for c in table.cols])
    out = []
    for r in rows:
        rec: dict[str, Any] = {"sys_id": r.id}
        for c in table.cols:
            v = value(session, table, c, r, now)
            rec[c.name] = {"value": v, "display_value": refs[c.name].get(v, "")} if c.type == "reference" and v is not None else _json(v)
        out.append(rec)
    return out


def acl_error(detail: str, message: str = "Operation Failed") -> JSONResponse:
    """ServiceNow's answer when an ACL refuses a Table API call (403)."""
    return JSONResponse({"error": {"message": message, "detail": detail}, "status": "failure"}, status_code=403)


def not_authorized(table: Table) -> JSONResponse:
    return acl_error(f"User is unauthorized to access table: {table.key}", "User Not Authorized")


def _invalid(label: str, errors: dict[str, str]) -> JSONResponse:
    fields = ", ".join(k for k in errors if k != "__all__")
    detail = errors.get("__all__") or f"The {label} wasn't saved: check {fields}."
    return JSONResponse({"error": {"message": detail, "detail": errors}}, status_code=422)


def _tables(tables: tuple[str, ...]) -> Any:
    """A ``table_key`` path parameter whose OpenAPI schema lists the tables the route serves."""
    return Annotated[str, Path(json_schema_extra=openapi.table_param(tables))]


AnyTable = _tables(openapi.ALL_TABLES)
CreatableTable = _tables(CREATABLE)
WritableTable = _tables(WRITABLE)


@router.get("/now/table/{table_key}", name="list_{table_key}", summary="List records of a table (Table API)")
def table_list(request: Request, table_key: AnyTable, session: SessionDep, user: DeskUser, clock: ClockDep,
               sysparm_query: Annotated[str, Query(description="Encoded query, e.g. active=true^priority<=2^ORDERBYDESCopened_at")] = "",
               sysparm_limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 100, sysparm_offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0):
    table = _table(table_key)
    acc = access(request)
    if not acc.can(table.key, "read"):
        return not_authorized(table)
    try:
        q = parse(table, sysparm_query)
        cond = where(table, q, user.id, clock.now)
    except QueryError as exc:
        return JSONResponse({"error": {"message": str(exc), "detail": {"sysparm_query": str(exc)}}}, status_code=400)
    mine = acc.row_filter(table.key, table.model)
    if mine is not None:
        cond = and_(cond, mine)
    limit = max(1, min(sysparm_limit, MAX_LIMIT))
    total = session.execute(select(func.count()).select_from(table.model).where(cond)).scalar_one()
    rows = session.execute(select(table.model).where(cond).order_by(*order_by(table, q, clock.now)).offset(max(0, sysparm_offset)).limit(limit)).scalars().all()
    return JSONResponse({"result": serialize(session, table, rows, clock.now)}, headers={"X-Total-Count": str(total)})


@router.get("/now/table/{table_key}/{sys_id}", name="get_{table_key}", summary="Get a record by sys_id (Table API)")
def table_get(request: Request, table_key: AnyTable, sys_id: str, session: SessionDep, user: DeskUser, clock: ClockDep):
    table = _table(table_key)
    acc = access(request)
    if not acc.can(table.key, "read"):
        return not_authorized(table)
    rec = get_or_404(session, table.model, sys_id, table.singular)
    if not acc.can_row(table.key, "read", rec):  # as ServiceNow: the record is not shown, not confirmed
        return JSONResponse({"error": {"message": "No Record found", "detail": "Record doesn't exist or ACL restricts the record retrieval"},
                             "status": "failure"}, status_code=404)
    return {"result": serialize(session, table, [rec], clock.now)[0]}


def _payload(payload: Any, fields: dict, journal_fields: dict) -> tuple[dict | None, dict | None, JSONResponse | None]:
    if not isinstance(payload, dict):
        return None, None, JSONResponse({"error": {"message": "Send a JSON object of field values."}}, status_code=400)
    unknown = [k for k in payload if k not in fields and k not in journal_fields]
    if unknown:
        allowed = ", ".join(list(fields) + list(journal_fields))
        return None, None, JSONResponse({"error": {"message": f"Unknown or read-only fields: {', '.join(unknown)} (writable: {allowed}).",
                                                   "detail": {k: "Unknown or read-only field." for k in unknown}}}, status_code=422)
    data = {k: v for k, v in payload.items() if k in fields}
    journal = {k: str(payload.get(k) or "") for k in journal_fields}
    return data, journal, None


def _incident_payload(payload: Any) -> tuple[dict | None, dict | None, JSONResponse | None]:
    return _payload(payload, FIELDS, JOURNAL_FIELDS)


def _refused_fields(acc, table: str, payload: dict, allowed: tuple[str, ...] | None, verb: str) -> JSONResponse | None:
    """403 when the payload writes a field the user's ACLs do not allow (nothing is written)."""
    names = [k for k in payload if (allowed is not None and k not in allowed) or not acc.field(table, k, "write")]
    if not names:
        return None
    return acl_error(f"ACL Exception {verb} Failed due to security constraints: your roles do not allow writing {', '.join(names)} of {table}.")


def _task_write(request: Request, session, table: Table, rec, payload: Any, user, clock) -> JSONResponse:
    """Create (``rec`` None) or update a problem or change request through its form's rules."""
    fields, check, save, label, notes = TASKS[table.key]
    acc = access(request)
    verb = "Insert" if rec is None else "Update"
    if not acc.by_role(table.key, "create" if rec is None else "write"):
        return acl_error(f"ACL Exception {verb} Failed due to security constraints")
    data, journal, bad = _payload(payload, fields, notes)
    if bad:
        return bad
    refused = _refused_fields(acc, table.key, payload, None, verb)
    if refused:
        return refused
    values, errors = check(session, data, rec, user)
    if errors:
        return _invalid(label, errors)
    rec = save(session, rec, values if rec is None else {k: values[k] for k in fields}, journal.get("work_notes", ""), user, clock)
    session.commit()
    return JSONResponse({"result": serialize(session, table, [rec], clock.now)[0]}, status_code=201 if verb == "Insert" else 200)


@router.post("/now/table/{table_key}", status_code=201, name="create_{table_key}", summary="Create a record (Table API)",
             openapi_extra=openapi.bodies(CREATABLE, create=True))
def table_create(request: Request, table_key: CreatableTable, session: SessionDep, user: DeskUser, clock: ClockDep, payload: Any = Body(...)):
    table = _table(table_key)
    if table_key not in CREATABLE:
        raise HTTPException(status_code=405, detail=f"Records of {table.label.lower()} cannot be created through the API." + (
            " Order catalog items with POST /api/sn_sc/servicecatalog/items/<id>/order_now." if table_key in ("sc_request", "sc_req_item") else ""))
    if table_key in TASKS:
        return _task_write(request, session, table, None, payload, user, clock)
    acc = access(request)
    data, journal, bad = _incident_payload(payload)
    if bad:
        return bad
    if not acc.by_role("incident", "write"):  # self-service: a few fields, the caller is you
        mine = {k: v for k, v in payload.items() if not (k == "caller_id" and str(v) == str(user.id))}
        refused = _refused_fields(acc, "incident", mine, ESS_INCIDENT_FIELDS, "Insert")
        if refused:
            return refused
        data.update(caller_id=user.id, contact_type="Self-service", state="New")
    values, errors = validate(session, data, None)
    if errors:
        return _invalid("incident", errors)
    inc = apply(session, None, values, journal, user, clock)
    session.commit()
    return JSONResponse({"result": serialize(session, table, [inc])[0]}, status_code=201)


@router.patch("/now/table/{table_key}/{sys_id}", name="update_{table_key}", summary="Update a record's fields (Table API)",
              openapi_extra=openapi.bodies(WRITABLE))
@router.put("/now/table/{table_key}/{sys_id}", name="put_{table_key}", include_in_schema=False)
def table_update(request: Request, table_key: WritableTable, sys_id: str, session: SessionDep, user: DeskUser, clock: ClockDep, payload: Any = Body(...)):
    table = _table(table_key)
    if table_key not in WRITABLE:
        raise HTTPException(status_code=405, detail=f"Records of {table.label.lower()} are read-only through the API.")
    acc = access(request)
    if not acc.can(table_key, "read"):
        return not_authorized(table)
    if table_key in TASKS:
        return _task_write(request, session, table, get_or_404(session, table.model, sys_id, table.singular), payload, user, clock)
    if table_key == "sysapproval_approver":
        approval = get_or_404(session, Approval, sys_id, "approval")
        if approval.approver_id != user.id:
            raise HTTPException(status_code=403, detail="Only the approver can approve or reject this request.")
        if not isinstance(payload, dict) or set(payload) - {"state", "comments"}:
            return JSONResponse({"error": {"message": "Send {\"state\": \"approved\"|\"rejected\", \"comments\": \"...\"}."}}, status_code=422)
        errors = decide(session, approval, str(payload.get("state", "")), str(payload.get("comments") or ""), clock)
        if errors:
            return _invalid("approval", errors)
        session.commit()
        return {"result": serialize(session, table, [approval])[0]}
    inc = get_or_404(session, Incident, sys_id, "incident")
    if not acc.can_row("incident", "read", inc):
        return acl_error("ACL Exception Update Failed due to security constraints")
    data, journal, bad = _incident_payload(payload)
    if bad:
        return bad
    allowed = acc.writable_fields("incident", inc)
    if allowed == ():
        return acl_error("ACL Exception Update Failed due to security constraints")
    refused = _refused_fields(acc, "incident", payload, allowed, "Update")
    if refused:
        return refused
    values, errors = validate(session, data, inc)
    if errors:
        return _invalid("incident", errors)
    inc = apply(session, inc, {k: values[k] for k in FIELDS}, journal, user, clock)
    session.commit()
    return {"result": serialize(session, table, [inc])[0]}


@router.delete("/now/table/{table_key}/{sys_id}", include_in_schema=False)
def table_delete(table_key: str, sys_id: str, user: DeskUser):
    _table(table_key)
    raise HTTPException(status_code=405, detail="Deleting records is not allowed: cancel an incident by setting its state to Canceled.")


@router.post("/sn_sc/servicecatalog/items/{item_id}/order_now", name="order_catalog_item",
             summary="Order a catalog item (Service Catalog API): variables by name, quantity, requested for",
             openapi_extra=openapi.ORDER_BODY)
def order_now(item_id: str, session: SessionDep, user: DeskUser, clock: ClockDep, payload: Any = Body(default={})):
    item = get_or_404(session, CatalogItem, item_id, "catalog item")
    if not isinstance(payload, dict):
        return JSONResponse({"error": {"message": "Send a JSON object: {\"sysparm_quantity\": 1, \"variables\": {...}}."}}, status_code=400)
    variables = payload.get("variables") or {}
    values, qty, who, errors = validate_order(session, item, variables, payload.get("sysparm_quantity", 1), payload.get("requested_for", user.id))
    if errors:
        return _invalid("order", errors)
    req, ritm = place_order(session, item, values, qty, who, user, clock)
    session.commit()
    return {"result": {"sys_id": req.id, "number": req.number, "request_number": req.number, "request_id": req.id, "ritm_number": ritm.number, "ritm_id": ritm.id}}


@router.get("/desk/lookup/{ref_key}", name="lookup", summary="Type-ahead search of reference fields: users, groups, configuration items")
def lookup(request: Request, ref_key: str, session: SessionDep, user: DeskUser, response: Response, q: str = "", group: int | None = None,
           limit: int = Query(10, ge=1, le=50), offset: int = Query(0, ge=0)):
    """The first ``limit`` matches from ``offset`` (the type-ahead asks for 10, the lookup popup pages
    through them); the number of matches is in the X-Total-Count header."""
    ref = REFS.get(ref_key)
    if ref is None:
        raise HTTPException(status_code=404, detail=f"Nothing to look up in {ref_key}.")
    acc = access(request)
    readable = acc.can(ref_key, "read") if ref_key in ACL else acc.has("itil")  # the CRM's accounts: the service desk's
    if not readable:
        return acl_error(f"User is unauthorized to access table: {ref_key}", "User Not Authorized")
    text = q.strip().lower()
    disp = ref.display
    stmt = select(ref.model.id, disp)
    mine = acc.row_filter(ref_key, ref.model) if ref_key in ACL else None
    if mine is not None:
        stmt = stmt.where(mine)
    if text:
        stmt = stmt.where(func.lower(disp).contains(text, autoescape=True))
    if ref_key == "sys_user":
        stmt = stmt.where(User.active.is_(True))
        if group is not None:
            stmt = stmt.where(User.id.in_(select(GroupMember.user_id).where(GroupMember.group_id == group)))
    response.headers["X-Total-Count"] = str(session.execute(select(func.count()).select_from(stmt.subquery())).scalar_one())
    stmt = stmt.order_by(case((func.lower(disp).startswith(text, autoescape=True), 0), else_=1), disp, ref.model.id).offset(offset).limit(limit)
    rows = session.execute(stmt).all()
    sub: dict[int, str] = {}
    if ref_key == "sys_user" and rows:
        sub = {i: f"{t} · {e}" for i, t, e in session.execute(select(User.id, User.title, User.email).where(User.id.in_([r[0] for r in rows]))).all()}
    elif ref_key == "cmdb_ci" and rows:
        from ..models import ConfigItem

        sub = {i: c for i, c in session.execute(select(ConfigItem.id, ConfigItem.ci_class).where(ConfigItem.id.in_([r[0] for r in rows]))).all()}
    elif hasattr(ref.model, "short_description") and rows:  # numbered tasks: incidents, problems, changes
        sub = {i: f"{st} · {d}" for i, st, d in session.execute(select(ref.model.id, ref.model.state, ref.model.short_description)
                                                                .where(ref.model.id.in_([r[0] for r in rows]))).all()}
    return [{"id": i, "label": str(d), "sublabel": sub.get(i, "")} for i, d in rows]
