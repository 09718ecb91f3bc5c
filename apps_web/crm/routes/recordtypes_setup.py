"""Setup > Object Manager > Opportunity/Case > Record Types, and Profile > Record Type Settings.

Everyone may read these pages (View Setup and Configuration); only a system administrator (Customize
Application, Manage Profiles) creates or edits a record type, the values it makes available, or a
profile's record types: others see no such buttons and the server answers 403 "Insufficient Privileges".
A change takes effect at once: the "New" chooser, Change Record Type, the edit dialogs, the path and
inline edit read these tables on every request (``crm.recordtypes``).

  GET  /setup/object-manager/<object>/record-types                      the object's record types
  GET  /setup/object-manager/<object>/record-types/new                  New Record Type (admin)
  POST /setup/object-manager/<object>/record-types                      create it (admin), with its profiles
  GET  /setup/object-manager/<object>/record-types/<id>                 its detail page and picklists
  GET  /setup/object-manager/<object>/record-types/<id>/edit            Edit (admin): label, name, description, active
  POST /setup/object-manager/<object>/record-types/<id>                 save (admin); a profile's default can't be deactivated
  GET  /setup/object-manager/<object>/record-types/<id>/picklists/<f>   a picklist's Available Values / Default (admin)
  POST /setup/object-manager/<object>/record-types/<id>/picklists/<f>   save them (admin)
  GET  /setup/profiles/<profile>                                        a profile: its Record Type Settings
  GET  /setup/profiles/<profile>/record-types/<object>/edit             Edit Record Type Settings (admin)
  POST /setup/profiles/<profile>/record-types/<object>                  save: assigned types and the default (admin)
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from sqlmodel import Session, select

from ...deps import CurrentUser, SessionDep
from ...identity.models import Role
from ...ui import redirect, render
from .. import recordtypes as R
from ..models import RecordType, RecordTypeAssignment, RecordTypeValue
from ..objects import OBJECTS
from .setup import _require_admin, can_customize
from .sharing import PROFILE_NAMES

router = APIRouter()
API_NAME_RE = re.compile(r"^[A-Za-z](?:[A-Za-z0-9]|_(?!_))*(?<!_)$")
API_NAME_ERROR = ("The Record Type Name can only contain underscores and alphanumeric characters. It must be unique, begin with a letter, "
                  "not include spaces, not end with an underscore, and not contain two consecutive underscores.")
PICKLIST_LABELS = {"stage": "Stage", "reason": "Case Reason"}


def base(object_key: str) -> str:
    return f"/setup/object-manager/{object_key}/record-types"


def _object(object_key: str) -> str:
    if object_key not in R.RECORD_TYPE_OBJECTS:
        raise HTTPException(404, "Record types exist for Opportunity and Case only.")
    return object_key


def _type(session: Session, object_key: str, rt_id: int) -> RecordType:
    rt = session.get(RecordType, rt_id)
    if rt is None or rt.object_type != object_key:
        raise HTTPException(404, "Record Type not found. It may have been deleted.")
    return rt


def profile_name(profile: str) -> str:
    return PROFILE_NAMES.get(profile, profile.replace("_", " ").title())


def _profiles() -> list[tuple[str, str]]:
    return [(r.value, profile_name(r.value)) for r in Role]


def _assignments(session: Session, **where: Any) -> list[RecordTypeAssignment]:
    q = select(RecordTypeAssignment).order_by(RecordTypeAssignment.id)
    for k, v in where.items():
        q = q.where(getattr(RecordTypeAssignment, k) == v)
    return list(session.exec(q).all())


def _values(session: Session, rt_id: int) -> list[RecordTypeValue]:
    return list(session.exec(select(RecordTypeValue).where(RecordTypeValue.record_type_id == rt_id)
                             .order_by(RecordTypeValue.sort_order, RecordTypeValue.id)).all())


# -- the list and the detail page ------------------------------------------------------------------------------
@router.get("/setup/object-manager/{object_key}/record-types", include_in_schema=False)
def type_list(request: Request, object_key: str, session: SessionDep, user: CurrentUser) -> Response:
    _object(object_key)
    rows = session.exec(select(RecordType).where(RecordType.object_type == object_key).order_by(RecordType.name)).all()
    return render(request, "crm/setup_record_types.html", object_key=object_key, rows=rows, base=base(object_key), can_edit=can_customize(user),
                  objects_with_types=R.RECORD_TYPE_OBJECTS)


@router.get("/setup/object-manager/{object_key}/record-types/{rt_id:int}", include_in_schema=False)
def type_view(request: Request, object_key: str, rt_id: int, session: SessionDep, user: CurrentUser) -> Response:
    rt = _type(session, _object(object_key), rt_id)
    field, label = R.RESTRICTED_FIELD[object_key]
    values = _values(session, rt.id)
    profiles = [(profile_name(a.profile), a.is_default) for a in _assignments(session, record_type_id=rt.id)]
    return render(request, "crm/setup_record_type.html", rt=rt, object_key=object_key, base=base(object_key), can_edit=can_customize(user),
                  picklists=[{"field": field, "label": label, "options": [v.value for v in values],
                              "default": next((v.value for v in values if v.is_default), None)}], profiles=profiles)


# -- new and edit ----------------------------------------------------------------------------------------------
@router.get("/setup/object-manager/{object_key}/record-types/new", include_in_schema=False)
def type_new(request: Request, object_key: str, session: SessionDep, user: CurrentUser) -> Response:
    _require_admin(user)
    _object(object_key)
    values = {"active": "1", "copy_from": "", "available": {p for p, _ in _profiles()}, "make_default": set()}
    return _form(request, session, object_key, None, values, {})


@router.get("/setup/object-manager/{object_key}/record-types/{rt_id:int}/edit", include_in_schema=False)
def type_edit(request: Request, object_key: str, rt_id: int, session: SessionDep, user: CurrentUser) -> Response:
    _require_admin(user)
    rt = _type(session, _object(object_key), rt_id)
    values = {"name": rt.name, "developer_name": rt.developer_name, "description": rt.description or "", "active": "1" if rt.active else ""}
    return _form(request, session, object_key, rt, values, {})


def _form(request: Request, session: Session, object_key: str, rt: RecordType | None, values: dict[str, Any], errors: dict[str, str],
          status_code: int = 200) -> Response:
    others = session.exec(select(RecordType).where(RecordType.object_type == object_key).order_by(RecordType.name)).all()
    return render(request, "crm/setup_record_type_edit.html", status_code=status_code, rt=rt, object_key=object_key, base=base(object_key),
                  values=values, errors=errors, existing=others, profiles=_profiles())


def _clean(session: Session, object_key: str, form: Any, rt: RecordType | None) -> tuple[dict[str, Any], dict[str, str]]:
    values: dict[str, Any] = {k: str(form.get(k) or "").strip() for k in ("name", "developer_name", "description", "copy_from")}
    values["active"] = "1" if form.get("active") else ""
    errors: dict[str, str] = {}
    if not values["developer_name"] and values["name"]:  # Salesforce fills the name from the label
        values["developer_name"] = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9]", "_", values["name"])).strip("_")
    same = select(RecordType).where(RecordType.object_type == object_key)
    if rt is not None:
        same = same.where(RecordType.id != rt.id)
    others = session.exec(same).all()
    if not values["name"]:
        errors["name"] = "Error: You must enter a value"
    elif len(values["name"]) > 80:
        errors["name"] = "Error: Use 80 characters or fewer."
    elif any(o.name.lower() == values["name"].lower() for o in others):
        errors["name"] = "Error: This record type label is already in use. Enter a unique label."
    if not values["developer_name"]:
        errors["developer_name"] = "Error: You must enter a value"
    elif len(values["developer_name"]) > 80 or not API_NAME_RE.match(values["developer_name"]):
        errors["developer_name"] = f"Error: {API_NAME_ERROR}"
    elif any(o.developer_name.lower() == values["developer_name"].lower() for o in others):
        errors["developer_name"] = "Error: Record Type Name already in use. Please enter a unique name."
    if len(values["description"]) > 255:
        errors["description"] = "Error: Use 255 characters or fewer."
    if rt is not None and rt.active and not values["active"]:
        defaults = [profile_name(a.profile) for a in _assignments(session, record_type_id=rt.id) if a.is_default]
        if defaults or rt.is_default:
            errors["active"] = (f"This record type {rt.name} cannot be deactivated because the following profiles use this record type as default: "
                                f"{', '.join(defaults or [profile_name('admin')])}.")
    if rt is None:
        values["available"] = {str(p) for p in form.getlist("available")}
        values["make_default"] = {str(p) for p in form.getlist("make_default")}
        known = {p for p, _ in _profiles()}
        if not values["active"] and values["make_default"]:
            errors["make_default"] = "Error: An inactive record type can't be a profile's default."
        elif values["make_default"] - values["available"]:
            errors["make_default"] = "Error: Make the record type available to a profile before making it the profile's default."
        values["available"] &= known
        values["make_default"] &= known
        if values["copy_from"] and not any(str(o.id) == values["copy_from"] for o in others):
            errors["copy_from"] = "Error: Choose an existing record type, or --Master--."
    return values, errors


@router.post("/setup/object-manager/{object_key}/record-types", include_in_schema=False)
async def type_create(request: Request, object_key: str, session: SessionDep, user: CurrentUser) -> Response:
    _require_admin(user)
    _object(object_key)
    form = await request.form()
    values, errors = _clean(session, object_key, form, None)
    if errors:
        return _form(request, session, object_key, None, values, errors, status_code=422)
    rt = RecordType(object_type=object_key, name=values["name"], developer_name=values["developer_name"], description=values["description"] or None,
                    active=bool(values["active"]), is_default=False)
    session.add(rt)
    session.flush()
    field = R.RESTRICTED_FIELD[object_key][0]
    master = R.master_values(object_key)
    if values["copy_from"]:  # the values (and default) of the record type it copies
        source = [(v.value, v.is_default) for v in _values(session, int(values["copy_from"]))]
    else:  # --Master--: every value of the picklist
        source = [(v, False) for v in master]
    session.add_all(RecordTypeValue(record_type_id=rt.id, field=field, value=v, sort_order=master.index(v) if v in master else len(master),
                                    is_default=d) for v, d in source)
    for profile in sorted(values["available"]):
        if profile in values["make_default"]:
            for a in _assignments(session, profile=profile):
                other = session.get(RecordType, a.record_type_id)
                if a.is_default and other is not None and other.object_type == object_key:
                    a.is_default = False
                    session.add(a)
        session.add(RecordTypeAssignment(profile=profile, record_type_id=rt.id, is_default=profile in values["make_default"]))
    session.flush()
    _sync_org_default(session, object_key)
    session.commit()
    return redirect(request, f"{base(object_key)}/{rt.id}", toast=f'Record type "{rt.name}" was created.')


@router.post("/setup/object-manager/{object_key}/record-types/{rt_id:int}", include_in_schema=False)
async def type_save(request: Request, object_key: str, rt_id: int, session: SessionDep, user: CurrentUser) -> Response:
    _require_admin(user)
    rt = _type(session, _object(object_key), rt_id)
    form = await request.form()
    values, errors = _clean(session, object_key, form, rt)
    if errors:
        return _form(request, session, object_key, rt, values, errors, status_code=422)
    rt.name, rt.developer_name, rt.description, rt.active = values["name"], values["developer_name"], values["description"] or None, bool(values["active"])
    session.add(rt)
    session.commit()
    return redirect(request, f"{base(object_key)}/{rt.id}", toast=f'Record type "{rt.name}" was saved.')


# -- a picklist's values for the record type ------------------------------------------------------------------
@router.get("/setup/object-manager/{object_key}/record-types/{rt_id:int}/picklists/{field}", include_in_schema=False)
def picklist_edit(request: Request, object_key: str, rt_id: int, field: str, session: SessionDep, user: CurrentUser) -> Response:
    _require_admin(user)
    rt = _type(session, _object(object_key), rt_id)
    _field(object_key, field)
    rows = _values(session, rt.id)
    values = {"selected": {v.value for v in rows}, "default": next((v.value for v in rows if v.is_default), "")}
    return _picklist_form(request, object_key, rt, field, values, {})


def _field(object_key: str, field: str) -> None:
    if R.RESTRICTED_FIELD[object_key][0] != field:
        raise HTTPException(404, "This picklist has no values per record type.")


def _picklist_form(request: Request, object_key: str, rt: RecordType, field: str, values: dict[str, Any], errors: dict[str, str],
                   status_code: int = 200) -> Response:
    return render(request, "crm/setup_record_type_picklist.html", status_code=status_code, rt=rt, object_key=object_key, base=base(object_key),
                  field=field, field_label=PICKLIST_LABELS[field], master=R.master_values(object_key), values=values, errors=errors)


@router.post("/setup/object-manager/{object_key}/record-types/{rt_id:int}/picklists/{field}", include_in_schema=False)
async def picklist_save(request: Request, object_key: str, rt_id: int, field: str, session: SessionDep, user: CurrentUser) -> Response:
    _require_admin(user)
    rt = _type(session, _object(object_key), rt_id)
    _field(object_key, field)
    form = await request.form()
    master = R.master_values(object_key)
    selected = {str(v) for v in form.getlist("selected")}
    default = str(form.get("default") or "").strip()
    values = {"selected": selected, "default": default}
    errors: dict[str, str] = {}
    unknown = sorted(selected - set(master))
    if unknown:
        errors["selected"] = R.restricted_message(PICKLIST_LABELS[field], unknown[0])
    elif not selected:
        errors["selected"] = "Error: Select at least one value."
    elif default and default not in selected:
        errors["default"] = "Error: The default value must be one of the selected values."
    if errors:
        return _picklist_form(request, object_key, rt, field, values, errors, status_code=422)
    for v in _values(session, rt.id):
        session.delete(v)
    session.flush()
    session.add_all(RecordTypeValue(record_type_id=rt.id, field=field, value=v, sort_order=master.index(v), is_default=v == default)
                    for v in master if v in selected)
    session.commit()
    return redirect(request, f"{base(object_key)}/{rt.id}", toast=f'The {PICKLIST_LABELS[field]} values of record type "{rt.name}" were saved.')


# -- Profile > Record Type Settings ---------------------------------------------------------------------------
def _profile(profile: str) -> str:
    if profile not in {r.value for r in Role}:
        raise HTTPException(404, "Profile not found.")
    return profile


def _settings(session: Session, profile: str) -> list[dict[str, Any]]:
    mine = {a.record_type_id: a.is_default for a in _assignments(session, profile=profile)}
    out = []
    for object_key in R.RECORD_TYPE_OBJECTS:
        types = session.exec(select(RecordType).where(RecordType.object_type == object_key).order_by(RecordType.name)).all()
        assigned = [t for t in types if t.id in mine]
        out.append({"object": object_key, "label": OBJECTS[object_key].label, "types": types, "assigned": assigned,
                    "default": next((t for t in assigned if mine[t.id]), None), "ids": set(mine)})
    return out


@router.get("/setup/profiles/{profile}", include_in_schema=False)
def profile_view(request: Request, profile: str, session: SessionDep, user: CurrentUser) -> Response:
    _profile(profile)
    return render(request, "crm/setup_profile.html", profile=profile, name=profile_name(profile), settings=_settings(session, profile),
                  can_edit=can_customize(user), editing=None, errors={})


@router.get("/setup/profiles/{profile}/record-types/{object_key}/edit", include_in_schema=False)
def profile_rt_edit(request: Request, profile: str, object_key: str, session: SessionDep, user: CurrentUser) -> Response:
    _require_admin(user)
    _profile(profile)
    _object(object_key)
    return render(request, "crm/setup_profile.html", profile=profile, name=profile_name(profile), settings=_settings(session, profile),
                  can_edit=True, editing=object_key, errors={}, posted=None)


@router.post("/setup/profiles/{profile}/record-types/{object_key}", include_in_schema=False)
async def profile_rt_save(request: Request, profile: str, object_key: str, session: SessionDep, user: CurrentUser) -> Response:
    _require_admin(user)
    _profile(profile)
    _object(object_key)
    form = await request.form()
    types = {t.id: t for t in session.exec(select(RecordType).where(RecordType.object_type == object_key)).all()}
    wanted = {int(v) for v in form.getlist("assigned") if str(v).isdigit() and int(v) in types}
    default = int(form.get("default")) if str(form.get("default") or "").isdigit() else None
    errors: dict[str, str] = {}
    if not wanted:
        errors["assigned"] = "Error: Select at least one record type."
    elif default is None or default not in wanted:
        errors["default"] = "Error: The default record type must be one of the assigned record types."
    elif not types[default].active:
        errors["default"] = f"Error: The record type {types[default].name} is inactive and can't be a default."
    if errors:
        return render(request, "crm/setup_profile.html", status_code=422, profile=profile, name=profile_name(profile),
                      settings=_settings(session, profile), can_edit=True, editing=object_key, errors=errors,
                      posted={"assigned": wanted, "default": default})
    for a in _assignments(session, profile=profile):
        if a.record_type_id in types:
            session.delete(a)
    session.flush()
    session.add_all(RecordTypeAssignment(profile=profile, record_type_id=i, is_default=i == default) for i in sorted(wanted))
    session.flush()
    if profile == Role.admin.value:
        _sync_org_default(session, object_key)
    session.commit()
    return redirect(request, f"/setup/profiles/{profile}", toast=f"Record type settings for {OBJECTS[object_key].label} were saved.")


def _sync_org_default(session: Session, object_key: str) -> None:
    """The org's default record type (``crm_record_type.is_default``) is the System Administrator's."""
    admin_default = {a.record_type_id for a in _assignments(session, profile=Role.admin.value) if a.is_default}
    for t in session.exec(select(RecordType).where(RecordType.object_type == object_key)).all():
        if admin_default and t.is_default != (t.id in admin_default):
            t.is_default = t.id in admin_default
            session.add(t)


__all__ = ["router"]
