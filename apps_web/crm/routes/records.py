"""Record pages of accounts, contacts, leads, opportunities and cases, and their actions:
inline edit, path (stage/status), delete, close case, contact roles, View All of a related list.
An activity (task, call, event) has a simpler page: details with inline edit, and delete."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect, render
from .. import picklists as pl
from ..common import get_or_404, record_view, stamp, users_by_id
from ..models import Contact, OpportunityContactRole
from ..objects import OBJECTS
from ...errors import TitledError
from ..sharing import INSUFFICIENT, INSUFFICIENT_TITLE
from ..record import LAYOUTS, build_activity_page, build_page, layout_of, record_label, related_list

router = APIRouter()
RECORD_OBJECTS = ("account", "contact", "lead", "opportunity", "case")


def load(session, object_key: str, record_id: int, need: str = "read"):
    """The record, if the signed-in user may ``need`` it (read, edit, delete): else Insufficient Privileges (403)."""
    from ..sharing import can_delete, require_edit, require_read, viewer

    obj = OBJECTS[object_key]
    record = get_or_404(session, obj.model, record_id, obj.label)
    user = viewer(session)
    if user is not None:
        if need == "edit":
            require_edit(session, user, object_key, record)
        elif need == "delete":
            require_read(session, user, object_key, record)
            if not can_delete(session, user, object_key, record):
                raise TitledError(403, INSUFFICIENT, INSUFFICIENT_TITLE)
        else:
            require_read(session, user, object_key, record)
    return record


def record_url(object_key: str, record_id: int, tab: str | None = None, anchor: str = "") -> str:
    url = OBJECTS[object_key].url(record_id)
    if tab:
        url += "?" + urlencode({"tab": tab})
    return url + (f"#{anchor}" if anchor else "")


def record_forms(session, object_key: str, record, user, page: dict, form_state: dict | None = None,
                 change_record_type: int | None = None) -> dict[str, Any]:
    """The create/edit dialogs of the page (the list views' dialog partial), prefilled:
    Edit and Clone of this record, and New from each related list."""
    from ..forms import build_form

    here = OBJECTS[object_key].url(record.id)
    state = form_state or {}
    forms = {}
    for mode in ("edit", "clone"):
        s = state.get(mode, {})
        # Change Record Type: the edit dialog opens with the new type, its picklists limited to what the type offers.
        rt_id = change_record_type if mode == "edit" else None
        # A clone opens on its own new record once saved (Salesforce does the same); an edit comes back here.
        forms[mode] = build_form(session, object_key, mode=mode, record=record, user=user, return_to=here if mode == "edit" else "",
                                 values=s.get("values"), errors=s.get("errors"), dialog_id=f"{mode}-dialog",
                                 open=bool(s.get("errors")) or bool(rt_id), record_type_id=rt_id)
    for rl in page["related"]:
        new = rl.new or {}
        if "object" in new:
            dialog_id = f"new-{new['object']}-dialog"
            new["dialog"] = dialog_id
            if dialog_id not in forms:
                s = state.get(dialog_id, {})
                forms[dialog_id] = build_form(session, new["object"], mode="create", user=user, return_to=f"{here}?tab=related",
                                              values={**new.get("prefill", {}), **(s.get("values") or {})}, errors=s.get("errors"),
                                              dialog_id=dialog_id, open=bool(s.get("errors")))
    for extra in ("contact", "case"):  # header actions "New Contact", "New Case" reuse the related-list dialogs
        dialog_id = f"new-{extra}-dialog"
        if any(a["dialog"] == dialog_id for a in page["actions"]) and dialog_id not in forms:
            prefill = {"account_id": record.id} if object_key == "account" else {"contact_id": record.id, "account_id": getattr(record, "account_id", None)}
            forms[dialog_id] = build_form(session, extra, mode="create", user=user, return_to=f"{here}?tab=related", values=prefill, dialog_id=dialog_id)
    return forms


def render_record(request: Request, session, user, clock, object_key: str, record, *, tab: str = "details",
                  status_code: int = 200, form_state: dict | None = None, change_record_type: int | None = None, **extra: Any) -> Response:
    """The record page; callers pass what an action left behind (errors, an open dialog)."""
    if object_key == "activity":  # no tabs, related lists or create dialogs: a page of its own
        page = build_activity_page(session, record, clock)
        page.update(extra)
        return render(request, "crm/activity.html", status_code=status_code, **page)
    from ..email.compose import composer_defaults, mail_installed, templates_for
    from ..record.timeline import TimelineFilter

    page = build_page(session, object_key, record, clock, tab=tab, filters=TimelineFilter.from_query(request.query_params))
    page["forms"] = record_forms(session, object_key, record, user, page, form_state, change_record_type)
    page["base"] = OBJECTS[object_key].url(record.id)
    from .. import recordtypes

    if object_key in recordtypes.RECORD_TYPE_OBJECTS:  # Change Record Type: pick the type, then the edit dialog with it
        types = recordtypes.assigned(session, object_key, user)  # the profile's types only (its default first)
        selected = record.record_type_id if any(t.id == record.record_type_id for t in types) else (types[0].id if types else None)
        page["rt_chooser"] = {"id": "change-record-type", "title": "Change Record Type", "action": page["base"], "types": types, "selected": selected}
    if mail_installed():  # the Email composer sends through the mail app
        page["email"] = {**composer_defaults(session, user, object_key, record), "templates": templates_for(session, object_key)}
    if object_key in ("account", "contact", "lead") and not (object_key == "lead" and record.converted_at):
        from ..duplicates import active_rule, card_message, find_duplicates

        if active_rule(session, object_key) is not None:  # the card shows while a duplicate rule watches the object
            dups = find_duplicates(session, object_key, record, record.id)
            if dups:
                page["dup_card"] = {"message": card_message(object_key, len(dups)), "url": f"{OBJECTS[object_key].url(record.id)}/duplicates"}
    if object_key == "contact" or (object_key == "lead" and not record.converted_at):
        from .campaigns import add_to_campaign_context

        page["add_campaign"] = add_to_campaign_context(session, object_key, record)
        page["actions"].insert(0, {"label": "Add to Campaign", "dialog": "add-campaign-dialog"})
    if object_key == "lead":
        from .convert import convert_context

        page.update(convert_context(session, record, user, page["users"], extra.pop("convert", None)))
    page.update(extra)
    return render(request, "crm/record.html", status_code=status_code, **page)


# -- the page ------------------------------------------------------------------------------------------
def _view(object_key: str):
    def view(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep, tab: str = "details",
             record_type: str = "") -> Response:
        record = load(session, object_key, record_id)
        record_view(session, user, object_key, record_id)
        change = None
        if record_type.isdigit() and object_key in ("opportunity", "case"):  # Next in Change Record Type
            from .. import recordtypes

            rt = recordtypes.get(session, record_type)
            change = rt.id if rt is not None and rt in recordtypes.assigned(session, object_key, user) else None
        return render_record(request, session, user, clock, object_key, record, tab=tab, change_record_type=change)

    return view


def _related(object_key: str):
    def view_all(request: Request, record_id: int, list_key: str, session: SessionDep, user: CurrentUser) -> Response:
        record = load(session, object_key, record_id)
        rl = related_list(session, users_by_id(session), object_key, record, list_key)
        if rl is None:
            raise HTTPException(404, "This related list doesn't exist.")
        from ..record import record_title

        return render(request, "crm/record_related.html", obj=OBJECTS[object_key], record=record, title=record_title(object_key, record),
                      rl=rl, base=OBJECTS[object_key].url(record.id))

    return view_all


# -- inline edit ---------------------------------------------------------------------------------------------
def _inline(object_key: str):
    async def inline_edit(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
        from ..validation import REQUIRED, derive, validate

        record = load(session, object_key, record_id, "edit")
        form = await request.form()
        fd = layout_of(object_key, record).field(str(form.get("_field", "")))
        if fd is None or not fd.editable or fd.kind == "readonly":
            raise HTTPException(400, "This field can't be edited.")
        from ..sharing import fls_message, read_only_fields

        if read_only_fields(session, user, object_key) & set(fd.columns):  # field-level security: read-only for the profile
            return redirect(request, record_url(object_key, record_id, "details", f"detail-{fd.name}"), toast=fls_message([fd.label]), kind="error")
        data = {c: str(form.get(c, "")).replace("\r\n", "\n").strip() for c in fd.columns}  # textareas post CRLF
        cleaned, errors = validate(object_key, data, session, partial=True, record_id=record.id)
        if fd.required and not fd.parts and not data[fd.name]:  # the page marks it required even where the API allows blank
            errors.setdefault(fd.name, REQUIRED)
        if not errors and object_key in ("account", "contact", "lead"):  # the duplicate rule, as the Edit dialog applies it
            errors = _duplicate_errors(session, object_key, record, {k: v for k, v in cleaned.items() if k in fd.columns},
                                       str(form.get("duplicates_ack") or ""), fd.name)
        if errors:
            return render_record(request, session, user, clock, object_key, record, tab="details", status_code=422,
                                 inline_open=fd.name, inline_values=data, inline_errors=errors)
        cleaned = {k: v for k, v in cleaned.items() if k in fd.columns}
        cleaned.update(derive(object_key, cleaned, record, clock.now))
        for key, value in cleaned.items():
            setattr(record, key, value)
        stamp(record, user, clock)
        session.add(record)
        session.commit()
        return redirect(request, record_url(object_key, record_id, "details", f"detail-{fd.name}"))

    return inline_edit


def _duplicate_errors(session, object_key: str, record, changes: dict[str, Any], ack: str, field: str) -> dict[str, str]:
    """What the object's duplicate rule says about an inline edit: a Block rule refuses with its message;
    an Allow rule with an alert refuses once with the alert and saves when Save is clicked again for the
    same matches (the form carries them back in ``duplicates_ack``)."""
    from ..duplicates import alert_message, check_save

    dup = check_save(session, object_key, changes, record)
    if dup is None or (not dup.blocked and ack == dup.ids):
        return {}
    message = dup.rule.alert_text if dup.blocked else alert_message(object_key)
    return {field: message, "__duplicates__": dup.ids, **({"__blocked__": "1"} if dup.blocked else {})}


# -- path: stage / status ------------------------------------------------------------------------------------
PATH_VALUES = {
    "opportunity": pl.STAGE_NAMES,
    "lead": pl.LEAD_STATUSES,
    "case": pl.CASE_STATUSES,
}


def _path(object_key: str):
    async def set_path(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
        from ..validation import derive

        record = load(session, object_key, record_id, "edit")
        form = await request.form()
        value = str(form.get("value", ""))
        field = LAYOUTS[object_key].path_field
        noun = "Stage" if object_key == "opportunity" else "Status"
        if value not in PATH_VALUES[object_key]:
            return redirect(request, record_url(object_key, record_id), toast=f"Choose a valid {noun.lower()}.", kind="error")
        if object_key == "lead":
            if record.status == pl.LEAD_CONVERTED:
                return redirect(request, record_url(object_key, record_id), toast="This lead was converted; its status can't change.", kind="error")
            if value == pl.LEAD_CONVERTED:  # converting is a workflow of its own
                return redirect(request, f"/leads/{record_id}/convert")
        cleaned: dict[str, Any] = {field: value}
        if object_key == "opportunity" and value != record.stage:  # the record type's sales process
            from ..recordtypes import get as get_record_type, restricted_message, values_for

            allowed = values_for(get_record_type(session, record.record_type_id), "opportunity")
            if allowed is not None and value not in allowed:
                return redirect(request, record_url(object_key, record_id), toast=f"We hit a snag. {restricted_message('Stage', value)}", kind="error")
        if object_key == "opportunity" and value == "Closed Lost" and record.stage != "Closed Lost":
            from ..validation import LOSS_REASON_REQUIRED

            reason, competitors = str(form.get("loss_reason", "")), str(form.get("main_competitors", "")).strip()
            if reason not in pl.LOSS_REASONS:
                return render_record(request, session, user, clock, object_key, record, status_code=422, open_dialog="close-opportunity-dialog",
                                     close_values={"value": value, "loss_reason": reason, "main_competitors": competitors},
                                     close_errors={"loss_reason": LOSS_REASON_REQUIRED})
            cleaned["loss_reason"] = reason
            if competitors:
                cleaned["main_competitors"] = competitors[:255]
        if object_key == "case" and value == "Closed" and form.get("reason"):
            reason = str(form.get("reason"))
            from ..recordtypes import get as get_record_type, values_for

            allowed = values_for(get_record_type(session, record.record_type_id), "case") or pl.CASE_REASONS
            if reason in allowed:
                cleaned["reason"] = reason
        cleaned.update(derive(object_key, cleaned, record, clock.now))
        from ..rules import check, messages

        if errors := check(session, object_key, record, cleaned):  # the org's validation rules
            return redirect(request, record_url(object_key, record_id), toast=f"We hit a snag. {messages(errors)}", kind="error")
        for key, val in cleaned.items():
            setattr(record, key, val)
        stamp(record, user, clock)
        session.add(record)
        session.commit()
        toast = f"{noun} changed successfully." if not (object_key == "case" and value == "Closed") else f"{record_label(object_key, record)} was closed."
        return redirect(request, record_url(object_key, record_id), toast=toast)

    return set_path


# -- delete ----------------------------------------------------------------------------------------------
def after_delete(object_key: str, record) -> str:
    """Where a delete lands: the object's list; for an activity (no list of its own) the record it was about."""
    if object_key != "activity":
        return OBJECTS[object_key].path
    return record_url(record.related_type, record.related_id, "activity") if record.related_type in RECORD_OBJECTS else "/"


def _delete(object_key: str):
    def delete(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
        from ..deletion import delete_record

        record = load(session, object_key, record_id, "delete")
        label, target = record_label(object_key, record), after_delete(object_key, record)  # read before the rows go
        delete_record(session, object_key, record.id)
        session.commit()
        return redirect(request, target, toast=f"{label} was deleted.")

    return delete


for _key in RECORD_OBJECTS:
    _path_prefix = OBJECTS[_key].path + "/{record_id:int}"
    router.add_api_route(_path_prefix, _view(_key), methods=["GET"], name=f"{_key}_record", include_in_schema=False)
    router.add_api_route(_path_prefix + "/related/{list_key}", _related(_key), methods=["GET"], name=f"{_key}_related", include_in_schema=False)
    router.add_api_route(_path_prefix + "/inline", _inline(_key), methods=["POST"], name=f"{_key}_inline", include_in_schema=False)
    router.add_api_route(_path_prefix + "/delete", _delete(_key), methods=["POST"], name=f"{_key}_delete", include_in_schema=False)
    if _key in PATH_VALUES:
        router.add_api_route(_path_prefix + "/path", _path(_key), methods=["POST"], name=f"{_key}_path", include_in_schema=False)

# An activity's page (Mark Complete is in routes/activities.py).
_path_prefix = OBJECTS["activity"].path + "/{record_id:int}"
router.add_api_route(_path_prefix, _view("activity"), methods=["GET"], name="activity_record", include_in_schema=False)
router.add_api_route(_path_prefix + "/inline", _inline("activity"), methods=["POST"], name="activity_inline", include_in_schema=False)
router.add_api_route(_path_prefix + "/delete", _delete("activity"), methods=["POST"], name="activity_delete", include_in_schema=False)


# -- opportunity contact roles ------------------------------------------------------------------------------
@router.post("/opportunities/{record_id:int}/contact-roles", include_in_schema=False)
async def add_contact_role(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    opp = load(session, "opportunity", record_id, "edit")
    form = await request.form()
    values = {k: str(form.get(k, "")).strip() for k in ("contact_id", "role", "is_primary")}
    errors: dict[str, str] = {}
    contact = session.get(Contact, int(values["contact_id"])) if values["contact_id"].isdigit() else None
    if contact is None:
        errors["contact_id"] = "Complete this field." if not values["contact_id"] else "Select a contact from the list."
    elif session.exec(select(OpportunityContactRole).where(OpportunityContactRole.opportunity_id == opp.id,
                                                           OpportunityContactRole.contact_id == contact.id)).first():
        errors["contact_id"] = f"{contact.name} already has a role on this opportunity."
    if values["role"] and values["role"] not in pl.CONTACT_ROLES:
        errors["role"] = "Choose a role from the list."
    if errors:
        return render_record(request, session, user, clock, "opportunity", opp, tab="related", status_code=422,
                             open_dialog="contact-role-dialog", role_values=values, role_errors=errors,
                             role_contact_label=contact.name if contact else "")
    primary = values["is_primary"] in ("on", "true", "1")
    if primary:
        for other in session.exec(select(OpportunityContactRole).where(OpportunityContactRole.opportunity_id == opp.id)).all():
            other.is_primary = False
            session.add(other)
    session.add(OpportunityContactRole(opportunity_id=opp.id, contact_id=contact.id, role=values["role"] or None, is_primary=primary))
    stamp(opp, user, clock)
    session.add(opp)
    session.commit()
    return redirect(request, record_url("opportunity", opp.id, "related"), toast=f"{contact.name} was added as a contact role.")


@router.post("/opportunities/{record_id:int}/contact-roles/{role_id:int}/delete", include_in_schema=False)
def remove_contact_role(request: Request, record_id: int, role_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    opp = load(session, "opportunity", record_id, "edit")
    role = session.get(OpportunityContactRole, role_id)
    if role is None or role.opportunity_id != opp.id:
        raise HTTPException(404, "This contact role doesn't exist or has been removed.")
    contact = session.get(Contact, role.contact_id)
    session.delete(role)
    stamp(opp, user, clock)
    session.add(opp)
    session.commit()
    name = contact.name if contact else "The contact"
    return redirect(request, record_url("opportunity", opp.id, "related"), toast=f"{name} was removed from the contact roles.")
