"""Setup > Object Manager > Validation Rules: the org's rules, one rule's page, and its edit form.

Everyone may read the rules (View Setup and Configuration); only a system administrator (Customize
Application) may create, edit, activate or deactivate one: others see no such buttons and the server
answers 403 with Salesforce's "Insufficient Privileges". A rule's formula is checked when it is saved
(``rules.compile_formula``), with Salesforce's messages, and a refused save keeps what was typed.

  GET  /setup/validation-rules[?object=]        the rules (all objects, or one)
  GET  /setup/validation-rules/new?object=      New Validation Rule (admin)
  POST /setup/validation-rules                  create (admin)
  GET  /setup/validation-rules/<id>             the rule's detail page
  GET  /setup/validation-rules/<id>/edit        the edit form (admin)
  POST /setup/validation-rules/<id>             save the edit (admin)
  POST /setup/validation-rules/<id>/active      activate or deactivate (admin): active=1|0
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from sqlmodel import Session, func, select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...errors import TitledError
from ...identity.models import Role, User
from ...ui import redirect, render
from ..common import get_or_404, stamp, users_by_id
from ..forms import LAYOUTS
from ..models import ValidationRule
from ..objects import OBJECTS
from ..rules import FIELD_NAMES, RULE_OBJECTS, FormulaError, compile_formula

router = APIRouter()
BASE = "/setup/validation-rules"
INSUFFICIENT = "Insufficient Privileges: You don't have the level of access necessary to perform the operation you requested. Contact your Salesforce administrator."
API_NAME_RE = re.compile(r"^[A-Za-z](?:[A-Za-z0-9]|_(?!_))*(?<!_)$")
API_NAME_ERROR = ("The Rule Name can only contain underscores and alphanumeric characters. It must be unique, begin with a letter, "
                  "not include spaces, not end with an underscore, and not contain two consecutive underscores.")


def can_customize(user: User) -> bool:
    return user.role == Role.admin


def _require_admin(user: User) -> None:
    if not can_customize(user):
        raise TitledError(403, INSUFFICIENT, "Insufficient Privileges")


def field_choices(object_key: str) -> list[tuple[str, str]]:
    """The fields a message can be shown under: the object's form fields that a formula can name."""
    columns = set(FIELD_NAMES[object_key].values())
    return [(f.name, f.label) for _t, fields in LAYOUTS[object_key] for f in fields if f.name in columns]


def field_label(object_key: str, column: str | None) -> str:
    if not column:
        return "Top of Page"
    return dict(field_choices(object_key)).get(column, column)


@router.get(BASE, include_in_schema=False)
def rules_list(request: Request, session: SessionDep, user: CurrentUser, object: str = "") -> Response:  # noqa: A002
    query = select(ValidationRule).order_by(ValidationRule.object_type, ValidationRule.name)
    if object in RULE_OBJECTS:
        query = query.where(ValidationRule.object_type == object)
    rows = session.exec(query).all()
    return render(request, "crm/setup_rules.html", rows=rows, object=object if object in RULE_OBJECTS else "", rule_objects=RULE_OBJECTS,
                  users=users_by_id(session), field_label=field_label, can_edit=can_customize(user))


@router.get(BASE + "/new", include_in_schema=False)
def rule_new(request: Request, session: SessionDep, user: CurrentUser, object: str = "opportunity") -> Response:  # noqa: A002
    _require_admin(user)
    object_key = object if object in RULE_OBJECTS else "opportunity"
    return _form(request, None, object_key, {"active": "1"}, {})


@router.get(BASE + "/{rule_id:int}", include_in_schema=False)
def rule_view(request: Request, rule_id: int, session: SessionDep, user: CurrentUser) -> Response:
    rule = get_or_404(session, ValidationRule, rule_id, "Validation Rule")
    return render(request, "crm/setup_rule.html", rule=rule, users=users_by_id(session), field_label=field_label, can_edit=can_customize(user))


@router.get(BASE + "/{rule_id:int}/edit", include_in_schema=False)
def rule_edit(request: Request, rule_id: int, session: SessionDep, user: CurrentUser) -> Response:
    _require_admin(user)
    rule = get_or_404(session, ValidationRule, rule_id, "Validation Rule")
    values = {"name": rule.name, "active": "1" if rule.active else "", "description": rule.description or "", "error_condition": rule.error_condition,
              "error_message": rule.error_message, "location": "field" if rule.error_field else "top", "error_field": rule.error_field or ""}
    return _form(request, rule, rule.object_type, values, {})


def _form(request: Request, rule: ValidationRule | None, object_key: str, values: dict[str, Any], errors: dict[str, str],
          status_code: int = 200) -> Response:
    return render(request, "crm/setup_rule_edit.html", status_code=status_code, rule=rule, object_key=object_key, values=values, errors=errors,
                  fields=field_choices(object_key), api_names=sorted(FIELD_NAMES[object_key]), checked=values.get("_checked", ""))


def _clean(session: Session, object_key: str, form: Any, rule: ValidationRule | None) -> tuple[dict[str, Any], dict[str, str]]:
    values = {k: str(form.get(k) or "").replace("\r\n", "\n").strip() for k in ("name", "description", "error_condition", "error_message",
                                                                               "location", "error_field")}
    values["active"] = "1" if form.get("active") else ""
    errors: dict[str, str] = {}
    if not values["name"]:
        errors["name"] = "You must enter a value"
    elif len(values["name"]) > 40 or not API_NAME_RE.match(values["name"]):
        errors["name"] = API_NAME_ERROR
    else:
        same = select(func.count()).select_from(ValidationRule).where(ValidationRule.object_type == object_key,
                                                                      func.lower(ValidationRule.name) == values["name"].lower())
        if rule is not None:
            same = same.where(ValidationRule.id != rule.id)
        if session.exec(same).one():
            errors["name"] = "Rule name already in use. Please enter a unique name."
    if len(values["description"]) > 500:
        errors["description"] = "Use 500 characters or fewer."
    if not values["error_condition"]:
        errors["error_condition"] = "Error: You must enter a value"
    elif len(values["error_condition"]) > 3900:
        errors["error_condition"] = "Error: Formula is too long (3,900 characters maximum)."
    else:
        try:
            compile_formula(object_key, values["error_condition"])
        except FormulaError as exc:
            errors["error_condition"] = f"Error: {exc}"
    if not values["error_message"]:
        errors["error_message"] = "Error: You must enter a value"
    elif len(values["error_message"]) > 255:
        errors["error_message"] = "Error: Use 255 characters or fewer."
    if values["location"] == "field":
        if values["error_field"] not in dict(field_choices(object_key)):
            errors["error_field"] = "Error: Select a field for the error location."
    else:
        values["location"], values["error_field"] = "top", ""
    return values, errors


def _apply(rule: ValidationRule, values: dict[str, Any]) -> None:
    rule.name = values["name"]
    rule.active = bool(values["active"])
    rule.description = values["description"] or None
    rule.error_condition = values["error_condition"]
    rule.error_message = values["error_message"]
    rule.error_field = values["error_field"] or None


@router.post(BASE, include_in_schema=False)
async def rule_create(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    _require_admin(user)
    form = await request.form()
    object_key = str(form.get("object") or "")
    if object_key not in RULE_OBJECTS:
        raise HTTPException(400, "Choose an object.")
    values, errors = _clean(session, object_key, form, None)
    if errors or form.get("save_action") == "check":
        values["_checked"] = "" if errors else "No errors found"
        return _form(request, None, object_key, values, errors, status_code=422 if errors else 200)
    rule = ValidationRule(object_type=object_key, name="", error_condition="", error_message="")
    return _save(request, session, rule, values, user, clock, created=True)


@router.post(BASE + "/{rule_id:int}", include_in_schema=False)
async def rule_save(request: Request, rule_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    _require_admin(user)
    rule = get_or_404(session, ValidationRule, rule_id, "Validation Rule")
    form = await request.form()
    values, errors = _clean(session, rule.object_type, form, rule)
    if errors or form.get("save_action") == "check":
        values["_checked"] = "" if errors else "No errors found"
        return _form(request, rule, rule.object_type, values, errors, status_code=422 if errors else 200)
    return _save(request, session, rule, values, user, clock)


def _save(request: Request, session: Session, rule: ValidationRule, values: dict[str, Any], user: User, clock: Any,
          created: bool = False) -> Response:
    _apply(rule, values)
    stamp(rule, user, clock, created=created)
    rule.last_modified_by_id = user.id
    session.add(rule)
    session.commit()
    return redirect(request, f"{BASE}/{rule.id}", toast=f'Validation rule "{rule.name}" was saved.')


@router.post(BASE + "/{rule_id:int}/active", include_in_schema=False)
async def rule_active(request: Request, rule_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    _require_admin(user)
    rule = get_or_404(session, ValidationRule, rule_id, "Validation Rule")
    form = await request.form()
    rule.active = str(form.get("active") or "") == "1"
    stamp(rule, user, clock)
    rule.last_modified_by_id = user.id
    session.add(rule)
    session.commit()
    state = "activated" if rule.active else "deactivated"
    back = str(form.get("return_to") or "")
    return redirect(request, back if back.startswith(BASE) else f"{BASE}/{rule.id}", toast=f'Validation rule "{rule.name}" was {state}.')


__all__ = ["can_customize", "router"]
