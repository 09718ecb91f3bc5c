"""List views of accounts, contacts, leads, opportunities and cases; create and edit through the
record dialog; mass actions (change owner, change status/stage, delete) on the selected rows.

Routes, per object path P (/accounts, /contacts, /leads, /opportunities, /cases):
  GET  P                     the list (?view, q, ff/fo/fv filters, sort, dir, page, panel; new=1 and
                             edit=<id> open the create / edit dialog on load)
  POST P                     create (Save -> the record or ``return_to``; Save & New -> the list
                             it came from, ``list_url``, with new=1)
  POST P/<id>/edit           edit (Save -> ``return_to`` or the record)
  POST /mass/<P>/<action>    owner | status (leads, cases) | stage (opportunities) | delete
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlmodel import Session, select
from starlette.datastructures import QueryParams

from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import User
from ...ui import redirect, render
from ...world import WorldClock
from .. import listcharts, listviews
from .. import picklists as P
from ..common import get_or_404, stamp
from ..inline_edit import cell_input, editor_meta
from ..forms import apply_field_security, apply_rules, build_form, display_name, parse_form, save_record
from ..listing import OPERATORS, ListParams, ViewContext, run_list
from ..objects import OBJECTS
from ..views import SPECS

router = APIRouter(include_in_schema=False)
LIST_OBJECTS = tuple(SPECS)
BY_PATH = {OBJECTS[k].path.lstrip("/"): k for k in LIST_OBJECTS}


@dataclass(frozen=True)
class MassField:
    name: str  # URL action and model column
    title: str  # button and dialog title
    label: str  # the select's label
    options: tuple[str, ...]


MASS_FIELDS = {
    "lead": MassField("status", "Change Status", "Lead Status", tuple(P.LEAD_OPEN_STATUSES + ["Closed - Not Converted"])),
    "case": MassField("status", "Change Status", "Status", tuple(P.CASE_STATUSES)),
    "opportunity": MassField("stage", "Change Stage", "Stage", tuple(P.STAGE_NAMES)),
}


def record_url(object_key: str, record_id: int) -> str:
    return OBJECTS[object_key].url(record_id)


def safe_return(value: Any, default: str) -> str:
    """Only a local path may be a redirect target."""
    text = str(value or "")
    return text if text.startswith("/") and not text.startswith("//") and "\\" not in text else default


def list_url_of(form: Any, object_key: str) -> str:
    """The list view a dialog came from (``list_url``), or the object's default list."""
    path = OBJECTS[object_key].path
    url = safe_return(form.get("list_url"), path)
    return url if urlsplit(url).path == path else path


def add_query(url: str, **params: str) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k not in params and k not in ("new", "edit")]
    return f"{parts.path}?{urlencode(query + list(params.items()))}"


def plural(object_key: str, n: int) -> str:
    info = OBJECTS[object_key]
    return f"{n} {(info.label if n == 1 else info.plural).lower()}"


def active_users(session: Session) -> list[User]:
    return list(session.exec(select(User).where(User.active == True).order_by(User.first_name, User.last_name, User.id)).all())  # noqa: E712


# -- the list page ---------------------------------------------------------------------------------
def render_list(
    request: Request,
    session: Session,
    user: User,
    clock: WorldClock,
    object_key: str,
    query: Any,
    *,
    create_form: Any = None,
    edit_form: Any = None,
    status_code: int = 200,
    lv_state: dict | None = None,
    inline_state: dict | None = None,
    chart_state: dict | None = None,
) -> Response:
    info = OBJECTS[object_key]
    spec, current_lv, saved_filters = listviews.spec_with(SPECS[object_key], session, user, query.get("view"))
    params = ListParams.from_query(query, spec)
    page = run_list(session, spec, params, ViewContext(user, clock), record_url)
    here = params.url(info.path, page=page.page)
    from .. import recordtypes

    rt_types = recordtypes.assigned(session, object_key, user) if object_key in recordtypes.RECORD_TYPE_OBJECTS else []
    rt_chooser = None
    if len(rt_types) > 1:  # the profile has more than one record type: "New" asks which one first, its default checked
        rt_chooser = {"id": "select-record-type", "title": f"New {info.label}", "action": info.path, "types": rt_types,
                      "selected": rt_types[0].id, "hidden": {"new": "1", **({"view": query["view"]} if query.get("view") else {})}}
    if create_form is None:
        chosen = query.get("record_type") if query.get("new") == "1" and str(query.get("record_type") or "").isdigit() else None
        chosen_rt = recordtypes.get(session, chosen) if chosen else None
        if chosen_rt is not None and chosen_rt not in rt_types:  # another object's, inactive, or not the profile's
            chosen_rt = None
        create_form = build_form(session, object_key, user=user, origin="list", open=query.get("new") == "1",
                                 record_type_id=chosen_rt.id if chosen_rt else None)
    create_form.list_url = here
    if edit_form is None and (query.get("edit") or "").isdigit():
        record = session.get(info.model, int(query["edit"]))
        if record is not None:
            edit_form = build_form(session, object_key, mode="edit", record=record, user=user, return_to=here, origin="list", list_url=here, open=True)
    users = active_users(session)
    filter_meta = {
        f.key: {
            "kind": f.kind,
            "operators": list(f.operators),
            "numeric": f.numeric,
            "list": f"dl-{f.key}" if f.kind in ("picklist", "user") else None,
        }
        for f in spec.filterable
    }
    lv_state = lv_state or {}
    charts_open = params.charts or chart_state is not None
    chart_list = listcharts.charts_of(session, user, object_key, page.view.key) if charts_open else []
    wanted = str(query.get("chart") or "")
    shown_chart = next((c for c in chart_list if str(c.id) == wanted), chart_list[-1] if chart_list else None)
    rendered_chart = listcharts.render(session, spec, params, ViewContext(user, clock), shown_chart) if shown_chart else None
    panel_filters = lv_state.get("filters", saved_filters)
    panel_logic = lv_state.get("logic", current_lv.filter_logic if current_lv else "") or ""
    return render(
        request,
        "crm/list.html",
        status_code=status_code,
        spec=spec,
        info=info,
        page=page,
        users=users,
        operators=OPERATORS,
        filter_meta=filter_meta,
        mass_field=MASS_FIELDS.get(object_key),
        rt_chooser=rt_chooser,
        create_form=create_form,
        edit_form=edit_form,
        sort_url=lambda key, direction: params.url(info.path, sort=key, dir=direction, page=1),
        page_url=lambda n: params.url(info.path, page=n),
        edit_url=lambda rid: add_query(here, edit=str(rid)),
        current_lv=current_lv,
        lv_editable=current_lv is not None and listviews.can_edit(user, current_lv),
        lv_can_share=listviews.can_share(user),
        lv_state=lv_state,
        lv_custom=[v for v in spec.views if v.key.startswith("lv")],
        lv_standard=[v for v in spec.views if not v.key.startswith("lv")],
        panel_filters=panel_filters,
        panel_logic=panel_logic,
        panel_scope=lv_state.get("scope", current_lv.scope if current_lv else "all"),
        visibility_labels=listviews.VISIBILITY,
        all_fields=sorted(spec.fields.values(), key=lambda f: f.label.lower()),
        clone_name=("Copy of " + page.view.label)[:40],
        clone_api=listviews.api_name_for(("Copy of " + page.view.label)[:40]),
        inline_fields=editor_meta(spec, list(spec.columns), user, session),
        inline_value=cell_input,
        charts_open=charts_open,
        chart_list=chart_list,
        chart=rendered_chart,
        chart_state=chart_state or {},
        chart_types=listcharts.CHART_TYPES,
        chart_aggregates=listcharts.AGGREGATES,
        chart_groups=listcharts.group_fields(spec),
        chart_numbers=listcharts.number_fields(spec),
        chart_url=lambda cid: add_query(params.url(info.path, page=page.page, charts=True), chart=str(cid)),
        inline=inline_state or {},
        inline_edits=(inline_state or {}).get("edits", {}),
        inline_errors=(inline_state or {}).get("errors", {}),
    )


def _list_view(object_key: str):
    def list_view(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
        return render_list(request, session, user, clock, object_key, request.query_params)

    list_view.__name__ = f"list_{object_key}"
    return list_view


# -- create and edit ----------------------------------------------------------------------------------
_RECORD_PATH = re.compile(r"^/(%s)/(\d+)(?:[/?#]|$)" % "|".join(BY_PATH))


def _render_errors(request: Request, session: Session, user: User, clock: WorldClock, object_key: str, form: Any,
                   raw: dict[str, str], errors: dict[str, str], *, mode: str, record: Any = None) -> Response:
    """Show the dialog again with the values typed and the messages; nothing was saved."""
    return_to = safe_return(form.get("return_to"), "")
    dialog_id = str(form.get("dialog") or "") or None
    match = _RECORD_PATH.match(return_to)
    if match and form.get("origin") != "list":
        # Opened from a record page (Edit, Clone, a related list's New): show that page again.
        from .records import render_record

        page_key = BY_PATH[match.group(1)]
        page_record = get_or_404(session, OBJECTS[page_key].model, int(match.group(2)), OBJECTS[page_key].label)
        state = {"values": raw, "errors": errors}
        form_state = {str(form.get("form_mode") or mode): state}
        if dialog_id:
            form_state[dialog_id] = state
        return render_record(request, session, user, clock, page_key, page_record, status_code=422, form_state=form_state)
    info = OBJECTS[object_key]
    list_url = list_url_of(form, object_key)
    query = QueryParams(urlsplit(list_url).query)
    built = build_form(session, object_key, mode=mode, record=record, values=raw, errors=errors, user=user,
                       return_to=return_to, origin="list", list_url=list_url, dialog_id=dialog_id)
    if mode == "edit":
        return render_list(request, session, user, clock, object_key, query, edit_form=built, status_code=422)
    return render_list(request, session, user, clock, object_key, query, create_form=built, status_code=422)


def _dup_mode(form: Any) -> str:
    """Saving again after the duplicate alert saves past it (for the same matches)."""
    ack = str(form.get("duplicates_ack") or "")
    return f"ack:{ack}" if ack else "check"


def _create(object_key: str):
    async def create(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
        form = await request.form()
        raw = parse_form(object_key, form)
        if errors := apply_field_security(session, user, object_key, raw, form):
            return _render_errors(request, session, user, clock, object_key, form, raw, errors, mode="create")
        record, errors = save_record(session, object_key, raw, user=user, clock=clock, duplicates=_dup_mode(form))
        if errors:
            return _render_errors(request, session, user, clock, object_key, form, raw, errors, mode="create")
        info = OBJECTS[object_key]
        name = display_name(object_key, record)
        toast = f'{info.label} "{name}" was created.'
        url = record_url(object_key, record.id)
        if form.get("save_action") == "save_new":
            extra = {"record_type": str(record.record_type_id)} if getattr(record, "record_type_id", None) else {}
            return redirect(request, add_query(list_url_of(form, object_key), new="1", **extra), toast=toast, link=url, link_text="View")
        return redirect(request, safe_return(form.get("return_to"), url), toast=toast, link=url, link_text="View")

    create.__name__ = f"create_{object_key}"
    return create


def _edit(object_key: str):
    async def edit(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
        info = OBJECTS[object_key]
        from .records import load

        record = load(session, object_key, record_id, "edit")  # Insufficient Privileges without edit access
        form = await request.form()
        raw = parse_form(object_key, form)
        if errors := apply_field_security(session, user, object_key, raw, form, record):
            return _render_errors(request, session, user, clock, object_key, form, raw, errors, mode="edit", record=record)
        saved, errors = save_record(session, object_key, raw, user=user, clock=clock, record=record, duplicates=_dup_mode(form))
        if errors:
            session.rollback()
            return _render_errors(request, session, user, clock, object_key, form, raw, errors, mode="edit", record=record)
        url = record_url(object_key, record_id)
        return redirect(request, safe_return(form.get("return_to"), url), toast=f'{info.label} "{display_name(object_key, saved)}" was saved.', link=url, link_text="View")

    edit.__name__ = f"edit_{object_key}"
    return edit


# -- mass actions ------------------------------------------------------------------------------------
async def _selected(request: Request) -> tuple[Any, list[int]]:
    form = await request.form()
    row = str(form.get("row_id") or "")
    raw = [row] if row else form.getlist("ids")
    ids = sorted({int(v) for v in raw if str(v).isdigit()})
    return form, ids


@router.post("/mass/{objects}/{action}")
async def mass_action(objects: str, action: str, request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    object_key = BY_PATH.get(objects)
    mass_field = MASS_FIELDS.get(object_key) if object_key else None
    if object_key is None or action not in ("owner", "delete") and (mass_field is None or action != mass_field.name):
        from fastapi import HTTPException

        raise HTTPException(404, "This action doesn't exist.")
    info = OBJECTS[object_key]
    form, ids = await _selected(request)
    back = safe_return(form.get("return_to"), info.path)
    if not back.startswith(info.path):
        back = info.path
    model = info.model
    records = list(session.exec(select(model).where(model.id.in_(ids)).order_by(model.id)).all()) if ids else []
    if not records:
        return redirect(request, back, toast=f"Select at least one {info.label.lower()}.", kind="error")
    from ..sharing import can_delete, can_edit

    allowed = can_delete if action == "delete" else can_edit
    if denied := [r for r in records if not allowed(session, user, object_key, r)]:  # all or nothing, as a mass action is
        return redirect(request, back, kind="error",
                        toast=f"{display_name(object_key, denied[0])}: insufficient access rights on object id. Nothing was changed.")

    if action == "delete":
        from ..deletion import delete_record

        for record_id in [r.id for r in records]:  # ids first: each deletion expires loaded objects
            delete_record(session, object_key, record_id)
        session.commit()
        return redirect(request, back, toast=f"{plural(object_key, len(records))} {'was' if len(records) == 1 else 'were'} deleted.")

    if action == "owner":
        owner = session.get(User, int(form.get("owner_id"))) if str(form.get("owner_id") or "").isdigit() else None
        if owner is None or not owner.active:
            return redirect(request, back, toast="Select a new owner.", kind="error")
        if (refused := _refused(session, object_key, records, {"owner_id": owner.id})) is not None:
            return redirect(request, back, toast=refused, kind="error")
        for record in records:
            record.owner_id = owner.id
            stamp(record, user, clock)
            session.add(record)
        session.commit()
        return redirect(request, back, toast=f"Owner changed to {owner.name} for {plural(object_key, len(records))}.")

    value = str(form.get("value") or "")
    if value not in mass_field.options:
        return redirect(request, back, toast=f"Select a {mass_field.label.lower()}.", kind="error")
    if object_key == "lead" and any(r.status == P.LEAD_CONVERTED for r in records):
        return redirect(request, back, toast="Converted leads can't change status. Nothing was changed.", kind="error")
    if (refused := _refused(session, object_key, records, {mass_field.name: value})) is not None:
        return redirect(request, back, toast=refused, kind="error")
    for record in records:
        cleaned: dict[str, Any] = {mass_field.name: value}
        apply_rules(object_key, cleaned, record, clock)
        for key, val in cleaned.items():
            setattr(record, key, val)
        stamp(record, user, clock)
        session.add(record)
    session.commit()
    return redirect(request, back, toast=f"{mass_field.label} changed to {value} for {plural(object_key, len(records))}.")


def _refused(session: Session, object_key: str, records: list, changes: dict[str, Any]) -> str | None:
    """A mass change is saved for every selected record or none: the first record a validation rule
    refuses names the rule's message."""
    from ..rules import check, messages

    for record in records:
        values = dict(changes)
        if object_key == "opportunity" and "stage" in values and values["stage"] != record.stage:
            values["probability"] = P.STAGE_PROBABILITY[values["stage"]]
        errors = check(session, object_key, record, values)
        if errors:
            return f"{display_name(object_key, record)}: {messages(errors)} Nothing was changed."
    return None


for _key in LIST_OBJECTS:
    _path = OBJECTS[_key].path
    router.add_api_route(_path, _list_view(_key), methods=["GET"], name=f"{_key}_list")
    router.add_api_route(_path, _create(_key), methods=["POST"], name=f"{_key}_create")
    router.add_api_route(_path + "/{record_id:int}/edit", _edit(_key), methods=["POST"], name=f"{_key}_edit")
