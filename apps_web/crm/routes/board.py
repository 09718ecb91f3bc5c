"""Kanban boards of opportunities, leads and cases: one column per value of a picklist; cards move by
drag and drop, keyboard or menu. One board, configured per object (``BOARDS``).

A board is a display of a list view, as Salesforce's Kanban is: ``?view=`` takes the keys the list takes
(a standard view's, ``mine``, ``all_open``..., or a saved view's ``lv<id>``) and the board shows exactly
the records that view lists (its scope, filters and filter logic, and the user's sharing, by the list's own
``listing.view_conditions``). The list's "Display as Kanban" opens the board of the view shown, "Display as
Table" goes back to it, and the board's list view picker switches views. The first version's
``?scope=mine|all`` still opens My .../All ... . A card moved out of the view's filters stays until the
board is loaded again, as in the product. Recently Viewed has no board (the product's message instead).

Kanban Settings choose the picklist the columns follow (Group By; ``?group=``): an opportunity's Stage,
Type, Forecast Category or Lead Source; a lead's Lead Status, Rating or Lead Source; a case's Status,
Priority or Origin. Opportunity columns also add up the amounts (Summarize By: Amount or none;
``?summarize=``). A card the user may only read has no drag handle nor menu, and the server refuses its
move with Insufficient Privileges.

A move sets the grouping field. For opportunities grouped by Stage, every way of moving a card ends in
the same POST, which sets the stage and the stage's default probability and forecast category, as
changing the stage on the record does. Moving to Closed Won or Closed Lost is saved directly, without a
confirmation dialog (as Salesforce's Kanban does for Closed Won; we keep Closed Lost symmetric so a move
is always one gesture). A lead or case move is saved by the record's own save (``inline_edit.save_edits``:
the edit form's checks, the org's validation rules, the duplicate rules, field history); converting a
lead is a workflow of its own, so the Converted column takes no card. Browsers running board.js send
``Accept: application/json`` and update the columns in place; the "Move to" menu is a plain form that
redirects back to the board with a toast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import urlencode

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import JSONResponse
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...errors import TitledError
from ...identity.models import User
from ...ui import redirect, render
from ..common import get_or_404, stamp
from ..models import Account, Case, Lead, Opportunity
from ..picklists import (CASE_ORIGINS, CASE_PRIORITIES, CASE_STATUSES, CLOSED_STAGES, LEAD_CONVERTED, LEAD_SOURCES, LEAD_STATUSES,
                         OPEN_STAGES, OPPORTUNITY_TYPES, RATINGS, STAGE_FORECAST, STAGE_NAMES, STAGE_PROBABILITY)
from ..sharing import INSUFFICIENT, INSUFFICIENT_RECORD, INSUFFICIENT_TITLE
from ..validation import FORECAST_CATEGORIES

router = APIRouter()
NONE_VALUE = ""  # the column of cards with no value ("--None--"), shown when any card has none
# Salesforce's Kanban refuses a drop on the lead's converted status: conversion has its own page.
CONVERT_REFUSED = "You can't convert a lead from the Kanban view. Open the lead and click Convert."


@dataclass(frozen=True)
class BoardConfig:
    """What differs between the objects' boards."""

    key: str  # the object: opportunity, lead, case
    path: str  # the object's tab: /opportunities
    plural: str  # Opportunities
    noun: str  # opportunities (the empty column's "No opportunities")
    groups: dict[str, tuple[str, list[str]]]  # Group By: column -> (label, values in picklist order)
    path_field: str  # the field the record's path follows (stage, status): its column shows every value
    closed_values: tuple[str, ...] = ()  # the path's closed values (Show/Hide Closed toggles them)
    closed_label: str = "Closed Stages"
    mine_view: str = "my_open"  # the list view "Display as Table" returns to from My ...
    summaries: dict[str, str] = field(default_factory=lambda: {"none": "None"})
    rows: Callable[[Any], Any] | None = None  # the card query's columns, given the grouping column

    @property
    def url(self) -> str:
        return f"{self.path}/board"

    def default_summary(self) -> str:
        return next(iter(self.summaries))


def _opportunity_rows(group_col: Any) -> Any:
    # Plain rows, not ORM objects: a board holds hundreds of cards and needs a few fields of each.
    return (select(Opportunity.id, Opportunity.name, Opportunity.amount, Opportunity.close_date, Opportunity.stage,
                   Opportunity.account_id, Opportunity.owner_id, Account.name.label("account"), group_col.label("group_value"))
            .outerjoin(Account, Account.id == Opportunity.account_id).order_by(Opportunity.close_date, Opportunity.id))


def _lead_rows(group_col: Any) -> Any:
    return (select(Lead.id, Lead.first_name, Lead.last_name, Lead.company, Lead.title, Lead.status, Lead.owner_id,
                   group_col.label("group_value"))
            .where(Lead.status != LEAD_CONVERTED)  # converted leads leave the lists, as in Salesforce
            .order_by(Lead.last_name, Lead.first_name, Lead.id))


def _case_rows(group_col: Any) -> Any:
    return (select(Case.id, Case.case_number, Case.subject, Case.priority, Case.status, Case.account_id, Case.owner_id,
                   Account.name.label("account"), group_col.label("group_value"))
            .outerjoin(Account, Account.id == Case.account_id).order_by(Case.case_number))


BOARDS: dict[str, BoardConfig] = {
    "opportunity": BoardConfig(
        "opportunity", "/opportunities", "Opportunities", "opportunities",
        groups={"stage": ("Stage", STAGE_NAMES), "type": ("Type", OPPORTUNITY_TYPES),
                "forecast_category": ("Forecast Category", FORECAST_CATEGORIES), "lead_source": ("Lead Source", LEAD_SOURCES)},
        path_field="stage", closed_values=tuple(CLOSED_STAGES), mine_view="mine", summaries={"amount": "Amount", "none": "None"}, rows=_opportunity_rows),
    "lead": BoardConfig(
        "lead", "/leads", "Leads", "leads",
        groups={"status": ("Lead Status", LEAD_STATUSES), "rating": ("Rating", RATINGS), "source": ("Lead Source", LEAD_SOURCES)},
        path_field="status", rows=_lead_rows),
    "case": BoardConfig(
        "case", "/cases", "Cases", "cases",
        groups={"status": ("Status", CASE_STATUSES), "priority": ("Priority", CASE_PRIORITIES), "origin": ("Case Origin", CASE_ORIGINS)},
        path_field="status", closed_values=("Closed",), closed_label="Closed Cases", rows=_case_rows),
}
MODELS = {"opportunity": Opportunity, "lead": Lead, "case": Case}
# Kept for callers of the opportunity board's first version.
BOARD = BOARDS["opportunity"].url
GROUPS = BOARDS["opportunity"].groups
SUMMARIES = BOARDS["opportunity"].summaries


@dataclass
class Card:
    opp: Any  # a row of the board query (its id, the card's fields, owner_id, group_value)
    account: str | None
    owner: User | None
    key: str = "opportunity"
    editable: bool = True  # False: the user may only read the record (no drag, no menu)

    @property
    def sort_key(self) -> str:
        # Cards keep the query's order; board.js inserts moved cards with the same key.
        row = self.opp
        if self.key == "lead":
            return f"{(row.last_name or '').lower()}|{(row.first_name or '').lower()}|{row.id:09d}"
        if self.key == "case":
            return f"{row.case_number}|{row.id:09d}"
        return f"{row.close_date.isoformat()}|{row.id:09d}"

    @property
    def name(self) -> str:
        row = self.opp
        if self.key == "lead":
            return f"{row.first_name} {row.last_name}" if row.first_name else row.last_name
        if self.key == "case":
            return row.case_number
        return row.name


@dataclass
class Column:
    stage: str  # the column's value of the grouping field ("" for no value)
    cards: list[Card] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.stage or "--None--"

    @property
    def count(self) -> int:
        return len(self.cards)

    @property
    def total(self) -> float:
        return float(sum(getattr(c.opp, "amount", None) or 0 for c in self.cards))


def view_of(cfg: BoardConfig, view: str = "", scope: str = "") -> str:
    """The list view the board displays: ``view`` (a standard view's key, or a saved view's ``lv<id>``, as the
    list takes them), else the first version's ``scope`` (mine: My ..., else All ...)."""
    return view or (cfg.mine_view if scope == "mine" else "all")


def board_state(view: str, closed: str, group: str = "stage", summarize: str = "amount", cfg: BoardConfig | None = None) -> dict[str, str]:
    cfg = cfg or BOARDS["opportunity"]
    state = {"view": view}
    if cfg.closed_values:
        state["closed"] = "0" if closed == "0" else "1"
    if group in cfg.groups and group != cfg.path_field:
        state["group"] = group
    if summarize in cfg.summaries and summarize != cfg.default_summary():
        state["summarize"] = summarize
    return state


def board_url(state: dict[str, str], cfg: BoardConfig | None = None, **changes: str) -> str:
    return f"{(cfg or BOARDS['opportunity']).url}?{urlencode({**state, **changes})}"


# Salesforce offers no Kanban for the Recently Viewed list: its records are a history, not a filter.
RECENT_UNAVAILABLE = "The Kanban view isn't available for the Recently Viewed list view. Select another list view."


def _board_page(cfg: BoardConfig, request: Request, session: Any, user: User, clock: Any, view_key: str, closed: str, group: str,
                summarize: str):
    """The board of a list view: the records that view lists (its scope, filters, filter logic and the user's
    sharing, by the list's own code: ``listing.view_conditions``), in columns of the Group By picklist."""
    from .. import listviews
    from ..listing import ViewContext, view_conditions, with_joins
    from ..sharing import access
    from ..views import SPECS

    spec, current_lv, _filters = listviews.spec_with(SPECS[cfg.key], session, user, view_key)
    view = spec.view(view_key)  # an unknown or unshared view: the object's default, as the list does
    state = board_state(view.key, closed, group or cfg.path_field, summarize or cfg.default_summary(), cfg)
    group = state.get("group", cfg.path_field)
    model = MODELS[cfg.key]
    path_values = list(cfg.groups[cfg.path_field][1])
    shown = [v for v in path_values if not (state.get("closed") == "0" and v in cfg.closed_values)]
    rows: list[Any] = []
    if not view.recent:
        query = cfg.rows(getattr(model, group)).where(getattr(model, cfg.path_field).in_(shown))
        if current_lv is not None:  # a saved view's filters may name a lookup's field (owner, account, record type)
            query = with_joins(query, spec)
        query = query.where(*view_conditions(session, spec, view, ViewContext(user, clock)))
        rows = session.exec(query).all()
    owner_ids = {row.owner_id for row in rows}
    owners = {u.id: u for u in session.exec(select(User).where(User.id.in_(owner_ids))).all()} if owner_ids else {}
    values = shown if group == cfg.path_field else list(cfg.groups[group][1])
    if group != cfg.path_field and any(not row.group_value for row in rows):
        values = values + [NONE_VALUE]
    columns = {value: Column(value) for value in values}
    for row in rows:
        value = row.group_value or NONE_VALUE
        if value not in columns:  # a value no longer in the picklist keeps its own column
            columns[value] = Column(value)
        editable = access(session, user, cfg.key, row) == "edit"
        columns[value].cards.append(Card(row, getattr(row, "account", None), owners.get(row.owner_id), cfg.key, editable))
    cols = list(columns.values()) if not view.recent else []
    summarize = state.get("summarize", cfg.default_summary())
    return render(
        request,
        "crm/board.html",
        cfg=cfg,
        info_key=cfg.key,
        view=view,
        scope_title=view.label,
        lv_standard=[v for v in spec.views if not v.key.startswith("lv")],
        lv_custom=[v for v in spec.views if v.key.startswith("lv")],
        unavailable=RECENT_UNAVAILABLE if view.recent else None,
        columns=cols,
        # The Move to menu: every value of the path (a hidden closed column too, as before), else the columns;
        # never a lead's Converted status (conversion has its own page).
        move_values=[v for v in (path_values if group == cfg.path_field else [c.stage for c in cols])
                     if not (cfg.key == "lead" and v == LEAD_CONVERTED)],
        group=group,
        group_label=cfg.groups[group][0],
        groups={k: v[0] for k, v in cfg.groups.items()},
        summarize=summarize,
        summaries=cfg.summaries,
        state=state,
        board_url=lambda **kw: board_url(state, cfg, **kw),
        table_url=f"{cfg.path}?{urlencode({'view': view.key})}",
        here=board_url(state, cfg),
        total_count=sum(c.count for c in cols),
        total_amount=sum(c.total for c in cols),
    )


def _safe_next(cfg: BoardConfig, url: str) -> str:
    return url if url.startswith(cfg.url) else cfg.url


def _move_opportunity(request: Request, opp: Opportunity, user: User, clock: Any, session: Any, field_name: str, target: str,
                      wants_json: bool, next_url: str):
    cfg = BOARDS["opportunity"]
    label = cfg.groups[field_name][0]
    shown = target or "--None--"
    current = getattr(opp, field_name) or NONE_VALUE
    changed = current != target
    if changed:
        from ..rules import check, messages

        changes: dict[str, Any] = {field_name: target or None}
        if field_name == "stage":
            changes.update(probability=STAGE_PROBABILITY[target], forecast_category=STAGE_FORECAST[target])
        errors = check(session, "opportunity", opp, changes)
        if field_name == "stage":
            from ..recordtypes import get as get_record_type, restricted_message, values_for

            allowed = values_for(get_record_type(session, opp.record_type_id), "opportunity")
            if allowed is not None and target not in allowed:  # the record type's sales process doesn't have that column
                errors = {"stage": restricted_message("Stage", target)}
        if errors:  # a validation rule refuses the move: the card goes back and the message shows
            return _refused(request, cfg, opp.id, opp.name, field_name, current, shown, messages(errors), wants_json, next_url,
                            stage=opp.stage)
        for key, val in changes.items():
            setattr(opp, key, val)
        stamp(opp, user, clock)
        session.add(opp)
        session.commit()
        session.refresh(opp)
    if wants_json:
        return JSONResponse({"id": opp.id, "name": opp.name, "field": field_name, "value": getattr(opp, field_name) or NONE_VALUE,
                             "stage": opp.stage, "probability": opp.probability, "forecast_category": opp.forecast_category,
                             "changed": changed})
    toast = f'{label} changed to "{shown}" for "{opp.name}".' if changed else f'"{opp.name}" is already in "{shown}".'
    return redirect(request, _safe_next(cfg, next_url), toast=toast, link=f"/opportunities/{opp.id}", link_text="View")


def _refused(request: Request, cfg: BoardConfig, record_id: int, name: str, field_name: str, current: str, shown: str, message: str,
             wants_json: bool, next_url: str, status: int = 400, **extra: Any):
    if wants_json:
        return JSONResponse({"id": record_id, "field": field_name, "value": current, **extra,
                             "error": "FIELD_CUSTOM_VALIDATION_EXCEPTION" if status == 400 else "INSUFFICIENT_ACCESS",
                             "message": message}, status_code=status)
    return redirect(request, _safe_next(cfg, next_url), toast=f'"{name}" wasn\'t moved to "{shown}". {message}', kind="error")


def _move_record(request: Request, cfg: BoardConfig, record: Any, user: User, clock: Any, session: Any, field_name: str, target: str,
                 wants_json: bool, next_url: str):
    """A lead's or case's move: the record's own save (edit form checks, validation and duplicate rules, history)."""
    from ..forms import display_name
    from ..inline_edit import save_edits

    label = cfg.groups[field_name][0]
    shown = target or "--None--"
    name = display_name(cfg.key, record)
    current = getattr(record, field_name) or NONE_VALUE
    if cfg.key == "lead" and field_name == "status" and target == LEAD_CONVERTED:
        return _refused(request, cfg, record.id, name, field_name, current, shown, CONVERT_REFUSED, wants_json, next_url)
    changed = current != target
    if changed:
        _saved, refused = save_edits(session, cfg.key, {record.id: {field_name: target}}, user=user, clock=clock)
        if refused:
            from ..rules import messages

            return _refused(request, cfg, record.id, name, field_name, current, shown, messages(refused[0].errors), wants_json,
                            next_url, status=403 if refused[0].errors.get("__all__") == INSUFFICIENT_RECORD else 400)
        record = session.get(MODELS[cfg.key], record.id)
        session.refresh(record)
    if wants_json:
        return JSONResponse({"id": record.id, "name": name, "field": field_name, "value": getattr(record, field_name) or NONE_VALUE,
                             "changed": changed})
    toast = f'{label} changed to "{shown}" for "{name}".' if changed else f'"{name}" is already in "{shown}".'
    return redirect(request, _safe_next(cfg, next_url), toast=toast, link=f"{cfg.path}/{record.id}", link_text="View")


def _routes(cfg: BoardConfig) -> None:
    def board(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, view: str = "", scope: str = "",
              closed: str = "1", group: str = "", summarize: str = ""):
        return _board_page(cfg, request, session, user, clock, view_of(cfg, view, scope), closed, group, summarize)

    def move(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep,
             stage: str | None = Form(None), field_name: str = Form(cfg.path_field, alias="field"), value: str | None = Form(None),
             next: str = Form(cfg.url)):
        from ..sharing import can_edit, require_read

        record = get_or_404(session, MODELS[cfg.key], record_id, cfg.key)
        require_read(session, user, cfg.key, record)  # a record one may not see: Insufficient Privileges (403)
        wants_json = "application/json" in request.headers.get("accept", "")
        if not can_edit(session, user, cfg.key, record):  # a card one may only read doesn't move
            if wants_json:
                return JSONResponse({"id": record.id, "error": "INSUFFICIENT_ACCESS", "message": INSUFFICIENT}, status_code=403)
            raise TitledError(403, INSUFFICIENT, INSUFFICIENT_TITLE)
        if field_name not in cfg.groups:
            raise HTTPException(status_code=422, detail=f"Unknown field {field_name!r}.")
        target = stage if field_name == cfg.path_field and stage is not None else value
        if target is None:
            raise HTTPException(status_code=422, detail="Choose a column to move the card to.")
        label, allowed = cfg.groups[field_name]
        if target not in allowed and not (field_name != cfg.path_field and target == NONE_VALUE):
            raise HTTPException(status_code=422, detail=f"Unknown {label.lower()} {target!r}.")
        if cfg.key == "opportunity":
            return _move_opportunity(request, record, user, clock, session, field_name, target, wants_json, next)
        return _move_record(request, cfg, record, user, clock, session, field_name, target, wants_json, next)

    router.add_api_route(cfg.url, board, methods=["GET"], name=f"{cfg.key}_board")
    router.add_api_route(cfg.url + "/{record_id}/move", move, methods=["POST"], name=f"{cfg.key}_board_move")


for _cfg in BOARDS.values():
    _routes(_cfg)
