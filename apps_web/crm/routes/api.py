"""The CRM's JSON API under /api/: list, get, create, update (PATCH) and delete for every object,
and the type-ahead lookups the UI's combobox fields call.

Validation and deletion are the UI's own (``crm.validation``, ``crm.deletion``), so a record saved
here is exactly what the forms would save. Unauthenticated calls get 401 from the host.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import JSONResponse
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import User
from ..api import openapi
from ..api.query import API_OBJECTS, QueryError, build_list_query, search_condition
from ..api.schemas import PUBLIC, to_public
from ..common import get_or_404, stamp
from ..deletion import delete_record
from ..models import Account, Case, Contact, Lead, Opportunity
from ..objects import OBJECTS
from ..sharing import API_NO_ACCESS, can_delete, can_edit, can_read, fls_message, refused_fields, visible, visible_here
from ..validation import DEFAULTS, derive, fields, validate

router = APIRouter(prefix="/api", tags=["crm"])
LOOKUP_LIMIT = 10
# Who a new record belongs to when the caller doesn't say: the signed-in user.
OWNER_FIELD = {"activity": "assignee_id"}


def unprocessable(detail: str, errors: dict[str, str]) -> JSONResponse:
    return JSONResponse({"detail": detail, "errors": errors}, status_code=422)


def _invalid(object_key: str, errors: dict[str, str]) -> JSONResponse:
    if "__rule__" in errors:  # a validation rule refused the save: Salesforce's REST shape, 400
        from ..rules import api_errors

        return JSONResponse(api_errors(errors, object_key), status_code=400)
    label = OBJECTS[object_key].label.lower()
    names = ", ".join(k for k in errors if k != "__all__")
    detail = errors.get("__all__") or f"The {label} wasn't saved: check {names}."
    return unprocessable(detail, errors)


def _unknown_fields(object_key: str, payload: dict[str, Any]) -> dict[str, str]:
    writable = set(fields(object_key))
    columns = set(API_OBJECTS[object_key].model.__table__.c.keys()) | {"name"}
    return {k: ("This field is read-only." if k in columns else "Unknown field.") for k in payload if k not in writable}


def _payload(object_key: str, payload: Any) -> tuple[dict[str, Any] | None, JSONResponse | None]:
    if not isinstance(payload, dict):
        return None, unprocessable("Send a JSON object of field values.", {"__all__": "Send a JSON object of field values."})
    unknown = _unknown_fields(object_key, payload)
    if unknown:
        return None, unprocessable(f"Unknown or read-only fields: {', '.join(unknown)}.", unknown)
    return payload, None


def insufficient() -> JSONResponse:
    """Salesforce's answer to a change of a record one may read but not edit (or delete)."""
    return JSONResponse({"detail": API_NO_ACCESS, "errors": [{"message": API_NO_ACCESS, "errorCode": "INSUFFICIENT_ACCESS_OR_READONLY", "fields": []}]},
                        status_code=403)


def field_security(object_key: str, names: list[str]) -> JSONResponse:
    """A read-only field (field-level security) in the payload: nothing is saved."""
    from ..forms import form_fields

    labels = {f.name: f.label for f in form_fields(object_key)}
    message = fls_message([labels.get(n, n) for n in names])
    return JSONResponse({"detail": message, "errors": [{"message": message, "errorCode": "INVALID_FIELD_FOR_INSERT_UPDATE", "fields": names}]},
                        status_code=400)


def _next_case_number(session) -> str:
    top = session.execute(select(func.max(Case.case_number))).scalar()
    return f"{(int(top) if top and top.isdigit() else 1000) + 1:08d}"


def _commit(session) -> JSONResponse | None:
    try:
        session.commit()
    except IntegrityError:  # a race with another writer (validation checked the lookups just before)
        session.rollback()
        return unprocessable("The record refers to something that no longer exists.", {"__all__": "Try again."})
    return None


def _a(label: str) -> str:
    return f"{'an' if label[0].lower() in 'aeiou' else 'a'} {label.lower()}"


def _register(object_key: str) -> None:
    obj = API_OBJECTS[object_key]
    model, public = obj.model, PUBLIC[object_key]
    label = OBJECTS[object_key].label

    def list_records(request: Request, session: SessionDep, user: CurrentUser):
        try:
            query = build_list_query(object_key, list(request.query_params.multi_items()))
        except QueryError as exc:
            return unprocessable("Invalid query parameters.", exc.errors)
        query.where += visible(session, user, object_key)  # the records the caller may see, as Salesforce's API does
        total = session.execute(query.count()).scalar_one()
        items = session.execute(query.rows()).scalars().all()
        return {"total": total, "limit": query.limit, "offset": query.offset, "items": [to_public(object_key, r) for r in items]}

    def get_record(record_id: int, session: SessionDep, user: CurrentUser):
        return to_public(object_key, _get(session, user, record_id, "read"))

    def _get(session, user, record_id: int, need: str):
        """The record if the caller may ``need`` it. One they may not see is not found (the API doesn't say it
        exists); one they see but may not change answers INSUFFICIENT_ACCESS_OR_READONLY."""
        record = get_or_404(session, model, record_id, label)
        if not can_read(session, user, object_key, record):
            raise HTTPException(404, f"This {label.lower()} doesn't exist or has been deleted.")
        allowed = can_edit if need == "edit" else can_delete if need == "delete" else None
        if allowed is not None and not allowed(session, user, object_key, record):
            raise HTTPException(403, API_NO_ACCESS)
        return record

    def create_record(session: SessionDep, user: CurrentUser, clock: ClockDep, payload: Annotated[Any, Body()] = None):
        data, problem = _payload(object_key, payload)
        if problem:
            return problem
        owner_field = OWNER_FIELD.get(object_key, "owner_id")
        if owner_field in fields(object_key) and data.get(owner_field) in (None, ""):
            data = {**data, owner_field: user.id}
        if refused := [k for k in refused_fields(session, user, object_key, None, data) if data.get(k) not in (None, "")]:
            return field_security(object_key, refused)
        cleaned, errors = validate(object_key, data, session)
        if errors:
            return _invalid(object_key, errors)
        if (blocked := _blocked(session, object_key, cleaned)) is not None:
            return blocked
        values = {**DEFAULTS.get(object_key, {}), **cleaned}
        values.update(derive(object_key, values, None, clock.now))
        if object_key == "case":
            values["case_number"] = _next_case_number(session)
        record = model(**values)
        stamp(record, user, clock, created=True)
        session.add(record)
        if (problem := _commit(session)) is not None:
            return problem
        session.refresh(record)
        return JSONResponse(to_public(object_key, record), status_code=201, headers={"Location": f"/api/{obj.path}/{record.id}"})

    def update_record(record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep, payload: Annotated[Any, Body()] = None):
        try:
            record = _get(session, user, record_id, "edit")
        except HTTPException as exc:
            if exc.status_code != 403:
                raise
            return insufficient()
        data, problem = _payload(object_key, payload)
        if problem:
            return problem
        if refused := refused_fields(session, user, object_key, record, data):
            return field_security(object_key, refused)
        cleaned, errors = validate(object_key, data, session, partial=True, record_id=record_id)
        if errors:
            return _invalid(object_key, errors)
        if (blocked := _blocked(session, object_key, cleaned, record)) is not None:
            return blocked
        cleaned.update(derive(object_key, cleaned, record, clock.now))
        for name, value in cleaned.items():
            setattr(record, name, value)
        stamp(record, user, clock)
        session.add(record)
        if (problem := _commit(session)) is not None:
            return problem
        session.refresh(record)
        return to_public(object_key, record)

    def remove_record(record_id: int, session: SessionDep, user: CurrentUser):
        try:
            _get(session, user, record_id, "delete")
        except HTTPException as exc:
            if exc.status_code != 403:
                raise
            return insufficient()
        counts = delete_record(session, object_key, record_id)
        session.commit()
        return {"deleted": counts}

    path = f"/{obj.path}"
    plural = OBJECTS[object_key].plural
    router.add_api_route(path, list_records, methods=["GET"], summary=f"List {plural.lower()}", name=f"api_list_{object_key}", openapi_extra=openapi.list_parameters(object_key))
    router.add_api_route(path, create_record, methods=["POST"], status_code=201, summary=f"Create {_a(label)}", response_model=public, name=f"api_create_{object_key}", openapi_extra=openapi.body(object_key, partial=False))
    router.add_api_route(path + "/{record_id}", get_record, methods=["GET"], summary=f"Get {_a(label)} by id", response_model=public, name=f"api_get_{object_key}")
    router.add_api_route(path + "/{record_id}", update_record, methods=["PATCH"], summary=f"Update {_a(label)}: only the fields given change", response_model=public, name=f"api_update_{object_key}", openapi_extra=openapi.body(object_key, partial=True))
    router.add_api_route(path + "/{record_id}", remove_record, methods=["DELETE"], summary=f"Delete {_a(label)} (and what goes with it, as the app does)", name=f"api_delete_{object_key}")


def _blocked(session, object_key: str, cleaned: dict, record=None):
    """A Block duplicate rule refuses API saves too (an Allow rule's alert is for the dialogs only)."""
    from ..duplicates import check_save

    dup = check_save(session, object_key, cleaned, record)
    if dup is None or not dup.blocked:
        return None
    return JSONResponse({"detail": dup.rule.alert_text, "error": "DUPLICATES_DETECTED", "duplicates": [m.id for m in dup.matches]}, status_code=409)


for _key in API_OBJECTS:
    _register(_key)


# -- type-ahead lookups: [{id, label, sublabel}], at most 10, sorted by name then id ------------------------------
def _place(city: str | None, state: str | None, country: str | None) -> str:
    return ", ".join(p for p in (city, state if country in (None, "United States", "Canada", "Australia") else country) if p)


def _lookup_accounts(session, q: str) -> list[dict]:
    query = select(Account).where(*visible_here(session, "account"))
    if q:
        query = query.where(search_condition(Account, ("name",), q))
    rows = session.execute(query.order_by(Account.name, Account.id).limit(LOOKUP_LIMIT)).scalars()
    return [{"id": a.id, "label": a.name, "sublabel": _place(a.billing_city, a.billing_state, a.billing_country)} for a in rows]


def _lookup_people(model: type, session, q: str) -> list[dict]:
    full = func.coalesce(model.first_name + " ", "") + model.last_name
    query = select(model).where(*visible_here(session, "lead" if model is Lead else "contact"))
    if q:
        query = query.where(search_condition(model, ("first_name", "last_name", "email"), q))
    rows = session.execute(query.order_by(full, model.id).limit(LOOKUP_LIMIT)).scalars().all()
    if model is Lead:
        return [{"id": r.id, "label": r.name, "sublabel": r.company} for r in rows]
    accounts = _names(session, Account, {r.account_id for r in rows if r.account_id})
    return [{"id": r.id, "label": r.name, "sublabel": " • ".join(p for p in (accounts.get(r.account_id), r.email) if p)} for r in rows]


def _lookup_users(session, q: str) -> list[dict]:
    full = User.first_name + " " + User.last_name
    query = select(User).where(User.active.is_(True))
    if q:
        query = query.where(full.icontains(q.strip(), autoescape=True) | User.username.icontains(q.strip(), autoescape=True) | User.email.icontains(q.strip(), autoescape=True))
    rows = session.execute(query.order_by(full, User.id).limit(LOOKUP_LIMIT)).scalars()
    return [{"id": u.id, "label": u.name, "sublabel": u.title} for u in rows]


def _lookup_opportunities(session, q: str) -> list[dict]:
    query = select(Opportunity).where(*visible_here(session, "opportunity"))
    if q:
        query = query.where(search_condition(Opportunity, ("name",), q))
    rows = session.execute(query.order_by(Opportunity.name, Opportunity.id).limit(LOOKUP_LIMIT)).scalars().all()
    accounts = _names(session, Account, {r.account_id for r in rows if r.account_id})
    return [{"id": r.id, "label": r.name, "sublabel": " • ".join(p for p in (accounts.get(r.account_id), r.stage) if p)} for r in rows]


def _lookup_campaigns(session, q: str) -> list[dict]:
    from ..models import Campaign

    query = select(Campaign)
    if q:
        query = query.where(search_condition(Campaign, ("name",), q))
    rows = session.execute(query.order_by(Campaign.name, Campaign.id).limit(LOOKUP_LIMIT)).scalars()
    return [{"id": c.id, "label": c.name, "sublabel": " • ".join(p for p in (c.type, c.status) if p)} for c in rows]


def _lookup_cases(session, q: str) -> list[dict]:
    query = select(Case).where(*visible_here(session, "case"))
    if q:
        query = query.where(search_condition(Case, ("case_number", "subject"), q))
    rows = session.execute(query.order_by(Case.case_number, Case.id).limit(LOOKUP_LIMIT)).scalars()
    return [{"id": c.id, "label": c.case_number, "sublabel": c.subject} for c in rows]


def _names(session, model: type, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    return dict(session.execute(select(model.id, model.name).where(model.id.in_(sorted(ids)))).all())


LOOKUPS = {
    "accounts": _lookup_accounts,
    "contacts": lambda s, q: _lookup_people(Contact, s, q),
    "leads": lambda s, q: _lookup_people(Lead, s, q),
    "users": _lookup_users,
    "opportunities": _lookup_opportunities,
    "cases": _lookup_cases,
    "campaigns": _lookup_campaigns,
}
SINGULAR = {"campaign": "campaigns", "account": "accounts", "contact": "contacts", "lead": "leads", "user": "users", "opportunity": "opportunities", "case": "cases"}


@router.get("/lookup/{object_name}", summary="Type-ahead search for lookup fields")
def lookup(object_name: str, session: SessionDep, user: CurrentUser, q: str = "") -> list[dict]:
    fn = LOOKUPS.get(SINGULAR.get(object_name, object_name))
    if fn is None:
        raise HTTPException(404, f"No lookup for '{object_name}'. Use one of: {', '.join(LOOKUPS)}.")
    return fn(session, q.strip())
