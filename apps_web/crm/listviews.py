"""List views people save (``crm_list_view`` + ``crm_list_view_filter``): who sees and may change
them, their validation (Salesforce's messages), and the ``ListView`` the list machinery runs.

A saved view's URL key is ``lv<id>`` (``/accounts?view=lv12``); standard views keep their names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import or_
from sqlmodel import Session, select

from ..identity.models import User
from . import filterlogic
from .listing import Filter, ListField, ListSpec, ListView, ViewContext, _condition, spec_in_world
from .models import ListViewDef, ListViewFilter

MAX_FILTERS = 10
MAX_COLUMNS = 15
# Profiles with "Manage Public List Views": they may share a view with all users and edit shared ones.
PUBLIC_VIEW_ROLES = frozenset({"admin", "sales_manager", "support_manager", "marketing"})
VISIBILITY = {"only_me": "Only I can see this list view", "all_users": "All users can see this list view"}
_API_NAME = re.compile(r"^[A-Za-z](?:[A-Za-z0-9]|_(?!_))*(?<!_)$")
API_NAME_MESSAGE = ("The List API Name field can only contain underscores and alphanumeric characters. It must be unique, "
                    "begin with a letter, not include spaces, not end with an underscore, and not contain two consecutive underscores.")


def view_key(lv: ListViewDef) -> str:
    return f"lv{lv.id}"


def role_of(user: User) -> str:
    return getattr(user.role, "value", user.role)


def can_share(user: User) -> bool:
    return role_of(user) in PUBLIC_VIEW_ROLES


def can_edit(user: User, lv: ListViewDef) -> bool:
    return lv.owner_id == user.id or (lv.visibility == "all_users" and can_share(user))


def visible(session: Session, user: User, object_key: str) -> list[ListViewDef]:
    """The saved views of an object this user sees: their own and those shared with all users."""
    q = select(ListViewDef).where(ListViewDef.object_type == object_key,
                                  or_(ListViewDef.owner_id == user.id, ListViewDef.visibility == "all_users"))
    return sorted(session.exec(q).all(), key=lambda v: (v.name.lower(), v.id))


def find(session: Session, user: User, object_key: str, key: str | None) -> ListViewDef | None:
    if not key or not key.startswith("lv") or not key[2:].isdigit():
        return None
    lv = session.get(ListViewDef, int(key[2:]))
    if lv is None or lv.object_type != object_key or not (lv.owner_id == user.id or lv.visibility == "all_users"):
        return None
    return lv


def filters_of(session: Session, lv: ListViewDef) -> list[Filter]:
    rows = session.exec(select(ListViewFilter).where(ListViewFilter.list_view_id == lv.id).order_by(ListViewFilter.position)).all()
    return [Filter(r.field, r.operator, r.value) for r in rows]


def columns_of(spec: ListSpec, lv: ListViewDef) -> tuple[str, ...]:
    cols = tuple(k for k in (lv.columns or "").split(",") if k in spec.fields)
    return cols or spec.columns


def scope_label(spec: ListSpec, scope: str) -> str:
    from .objects import OBJECTS

    plural = OBJECTS[spec.object_key].plural.lower()
    return f"{'my' if scope == 'mine' else 'all'} {plural}"


def as_view(spec: ListSpec, lv: ListViewDef, filters: list[Filter]) -> ListView:
    node = filterlogic.parse(lv.filter_logic or "", len(filters)) if lv.filter_logic else None
    fields = spec.fields
    model = spec.model

    def where(ctx: ViewContext) -> list:
        out = [model.owner_id == ctx.user.id] if lv.scope == "mine" else []
        conds = []
        for f in filters:
            cond, _err = _condition(fields[f.field], f) if f.field in fields else (None, "unknown")
            conds.append(cond if cond is not None else model.id.is_(None))
        combined = filterlogic.combine(node, conds)
        if combined is not None:
            out.append(combined)
        return out

    return ListView(view_key(lv), lv.name, scope_label(spec, lv.scope), where=where)


def spec_with(spec: ListSpec, session: Session, user: User, key: str | None) -> tuple[ListSpec, ListViewDef | None, list[Filter]]:
    """The object's spec with this user's saved views added, the current one's columns in force."""
    mine = visible(session, user, spec.object_key)
    current = next((v for v in mine if view_key(v) == key), None)
    extra = []
    filters: list[Filter] = []
    for lv in mine:
        if lv is current:
            filters = filters_of(session, lv)
            extra.append(as_view(spec, lv, filters))
        else:  # listed in the picker only; never run
            extra.append(ListView(view_key(lv), lv.name, scope_label(spec, lv.scope)))
    out = replace(spec_in_world(spec, session), views=spec.views + tuple(extra))  # record types as Setup has them
    if current is not None:
        out = replace(out, columns=columns_of(spec, current))
    return out, current, filters


# -- validation ------------------------------------------------------------------------------------------
def api_name_for(name: str) -> str:
    text = re.sub(r"[^A-Za-z0-9]+", "_", name.strip()).strip("_")
    text = re.sub(r"_+", "_", text)
    if text and not text[0].isalpha():
        text = "X" + text
    return text[:80]


def check_names(session: Session, object_key: str, name: str, api_name: str, exclude: int | None = None) -> dict[str, str]:
    errors: dict[str, str] = {}
    if not name.strip():
        errors["name"] = "Complete this field."
    elif len(name) > 40:
        errors["name"] = "List Name: data value too large (max length=40)."
    if not api_name.strip():
        errors["api_name"] = "Complete this field."
    elif not _API_NAME.match(api_name) or len(api_name) > 80:
        errors["api_name"] = API_NAME_MESSAGE
    else:
        clash = session.exec(select(ListViewDef).where(ListViewDef.object_type == object_key, ListViewDef.api_name == api_name)).all()
        if any(v.id != exclude for v in clash):
            errors["api_name"] = "The list view API name must be unique. Enter a different List API Name."
    return errors


@dataclass
class FilterCheck:
    filters: list[Filter]  # with their errors
    logic: str | None  # normalized
    logic_error: str | None

    @property
    def ok(self) -> bool:
        return self.logic_error is None and all(f.error is None for f in self.filters)


def check_filters(spec: ListSpec, fields: list[str], ops: list[str], values: list[str], logic: str, fields_map: dict[str, ListField] | None = None) -> FilterCheck:
    """Validate filter rows and a logic as the panel's Save does; nothing is saved when not ``ok``."""
    fmap = fields_map or spec.fields
    out: list[Filter] = []
    for i, key in enumerate(fields):
        op = ops[i] if i < len(ops) else "equals"
        value = (values[i] if i < len(values) else "").strip()
        f = fmap.get(key)
        if f is None:
            out.append(Filter(key, op, value, "Select a field."))
            continue
        if op not in f.operators:
            out.append(Filter(key, op, value, "Select an operator."))
            continue
        flt = Filter(key, op, value)
        _cond, error = _condition(f, flt)
        if error is None and f.kind == "picklist" and value:
            bad = [v.strip() for v in value.split(",") if v.strip() and v.strip().lower() not in {o.lower() for o in f.options}]
            if bad:
                error = f"Bad value for restricted picklist field: {bad[0]}"
        out.append(replace(flt, error=error))
    logic_error = None
    normalized = None
    if len(out) > MAX_FILTERS:
        logic_error = f"You can add up to {MAX_FILTERS} filters."
    elif logic.strip():
        try:
            filterlogic.parse(logic, len(out))
            normalized = filterlogic.normalize(logic)
        except filterlogic.LogicError as err:
            logic_error = str(err)
    return FilterCheck(out, normalized, logic_error)


def save_filters(session: Session, lv: ListViewDef, filters: list[Filter]) -> None:
    for row in session.exec(select(ListViewFilter).where(ListViewFilter.list_view_id == lv.id)).all():
        session.delete(row)
    session.flush()
    for i, f in enumerate(filters, start=1):
        session.add(ListViewFilter(list_view_id=lv.id, position=i, field=f.field, operator=f.op, value=f.value))


__all__ = ["API_NAME_MESSAGE", "FilterCheck", "MAX_COLUMNS", "VISIBILITY", "api_name_for", "as_view", "can_edit", "can_share",
           "check_filters", "check_names", "columns_of", "filters_of", "find", "save_filters", "spec_with", "view_key", "visible"]
