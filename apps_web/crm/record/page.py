"""Everything a record page shows, gathered in a few bulk queries: title, highlights, path,
detail rows (display value + the raw values the inline editor starts from), related lists, timeline."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlmodel import Session

from ...identity.models import User
from ...ui import fmt_date, fmt_datetime, iso_date, money, number
from ...world import WorldClock
from .. import picklists as pl
from ..objects import OBJECTS
from .layouts import LAYOUTS, PART_LABELS, PART_OPTIONS, PART_REQUIRED, FieldDef, Layout
from .related import KIND_LABEL, load_activities, related_lists
from .timeline import TimelineFilter, build_timeline

TABS = ("details", "related", "activity")


def record_title(object_key: str, record: Any) -> str:
    if object_key == "case":
        return record.case_number
    if object_key == "activity":
        return record.subject
    return record.name


def record_label(object_key: str, record: Any) -> str:
    """How toasts name a record: Account "Acme Corp", Task "Send the quote"."""
    label = KIND_LABEL.get(record.kind, "Task") if object_key == "activity" else OBJECTS[object_key].label
    return f'{label} "{record_title(object_key, record)}"'


@dataclass
class DetailRow:
    field: FieldDef
    text: str = ""
    href: str | None = None
    lines: list[str] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)  # column -> raw value for the editor
    lookup_label: str = ""

    @property
    def name(self) -> str:
        return self.field.name


def raw(value: Any) -> str:
    """A column value as an editor input shows it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else ""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%dT%H:%M")
    if isinstance(value, date):
        return iso_date(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def person_name(record: Any) -> str:
    return " ".join(p for p in (record.salutation, record.first_name, record.last_name) if p)


def load_refs(session: Session, layout: Layout, record: Any) -> dict[str, tuple[str, str]]:
    """Labels and links of the records that lookup fields point at (one get each). An activity's
    "Related To" points at a record of any object (``related_type`` + ``related_id``)."""
    refs: dict[str, tuple[str, str]] = {}
    for _title, fields in layout.sections + (("", layout.highlights),):
        for f in fields:
            if f.kind == "record_type" and f.name not in refs:  # its name; Change Record Type is next to it
                from ..models import RecordType

                rt = session.get(RecordType, record.record_type_id) if record.record_type_id else None
                refs[f.name] = (rt.name if rt else "", "")
                continue
            if f.kind not in ("lookup", "related") or f.name in refs:
                continue
            if f.lookup == "campaign":  # not in OBJECTS: a name and its page
                from ..models import Campaign

                c = session.get(Campaign, record.campaign_id) if record.campaign_id else None
                if c is not None:
                    refs[f.name] = (c.name, f"/campaigns/{c.id}")
                continue
            if f.lookup == "territory":  # not an object of its own: a name and its page
                from ..models import Territory

                t = session.get(Territory, record.territory_id) if record.territory_id else None
                if t is not None:
                    refs[f.name] = (t.name, f"/territories/{t.id}")
                continue
            key = record.related_type if f.kind == "related" else f.lookup
            target_id = record.related_id if f.kind == "related" else getattr(record, f.name, None)
            target = session.get(OBJECTS[key].model, target_id) if target_id and key in OBJECTS else None
            if target is not None:
                refs[f.name] = (record_title(key, target), OBJECTS[key].url(target.id))
    return refs


def display_row(f: FieldDef, record: Any, refs: dict, users: dict[int, User]) -> DetailRow:
    row = DetailRow(f, values={c: raw(getattr(record, c, None)) for c in f.columns if hasattr(record, c)})
    value = getattr(record, f.name, None) if not f.parts else None
    kind = f.kind
    if f.name == "created_by":
        who = users.get(record.created_by_id)
        row.text = ", ".join(p for p in ((who.name if who else ""), fmt_datetime(record.created_at)) if p)
    elif f.name == "modified":
        row.text = fmt_datetime(record.updated_at)
    elif f.name == "opened":
        row.text = fmt_datetime(record.created_at)
    elif f.name == "kind":
        row.text = KIND_LABEL.get(value, "Task")
    elif kind == "name":
        row.text = person_name(record)
    elif kind == "address":
        parts = [getattr(record, c) or "" for c in f.parts]
        if f.parts[0].endswith("street"):
            street, rest = parts[0], parts[1:]
        else:
            street, rest = "", parts
        city_line = ", ".join(p for p in rest[:2] if p)
        tail = " ".join(p for p in rest[2:-1] if p)
        row.lines = [ln for ln in (street, " ".join(p for p in (city_line, tail) if p), rest[-1]) if ln]
        row.text = "\n".join(row.lines)
    elif kind == "record_type":
        row.text = refs.get(f.name, ("", ""))[0]
    elif kind in ("lookup", "related"):
        if f.name in refs:
            row.text, row.href = refs[f.name]
            row.lookup_label = row.text
    elif kind == "user":
        u = users.get(value) if value else None
        row.text = u.name if u else ""
    elif kind == "money":
        row.text = money(value, 2) if value is not None else ""
    elif kind == "int":
        row.text = number(value)
    elif kind == "percent":
        row.text = f"{value}%" if value is not None else ""
    elif kind == "date":
        row.text = fmt_date(value)
    elif kind == "datetime":
        row.text = fmt_datetime(value)
    else:
        row.text = "" if value is None else str(value)
    return row


# -- path -------------------------------------------------------------------------------------------
def build_path(object_key: str, record: Any, allowed: tuple[str, ...] | None = None, *, locked: bool = False) -> dict | None:
    """Steps of the path and, for each, what the path's button does when that step is selected
    (``allowed``: the stages the opportunity's record type offers; a stage it dropped stays while current;
    ``locked``: the user may only read the record)."""
    if object_key == "opportunity":
        steps, value, noun = [s for s in pl.OPEN_STAGES if allowed is None or s in allowed or s == record.stage], record.stage, "Stage"
        closed = value in pl.CLOSED_STAGES
        final = {"value": "Closed", "label": value if closed else "Closed", "dialog": "close-opportunity-dialog",
                 "action": "Select Closed Stage", "again": "Change Closed Stage"}
        won = value == "Closed Won"
    elif object_key == "lead":
        steps, value, noun = pl.LEAD_OPEN_STATUSES + ["Closed - Not Converted"], record.status, "Status"
        closed = value == pl.LEAD_CONVERTED
        final = {"value": pl.LEAD_CONVERTED, "label": "Converted", "dialog": "convert-dialog", "action": "Select Converted Status", "again": None}
        won = True
    elif object_key == "case":
        steps, value, noun = [s for s in pl.CASE_STATUSES if s != "Closed"], record.status, "Status"
        closed = value == "Closed"
        final = {"value": "Closed", "label": "Closed", "dialog": "close-case-dialog", "action": "Select Closed Status", "again": None}
        won = True
    else:
        return None
    n = len(steps)
    current = n if closed else (steps.index(value) if value in steps else 0)
    out = []
    for i in range(n + 1):
        is_final = i == n
        label = final["label"] if is_final else steps[i]
        if i < current:
            state = "complete" if (not closed or won) else ""
            if object_key == "lead" and steps[i] == "Closed - Not Converted":
                state = ""  # the other way a lead closes, not a step on the way to conversion
        elif i == current:
            state = ("won" if won else "lost") if closed else "current"
        else:
            state = ""
        if i == current and closed:
            action = {"label": final["again"], "value": "", "dialog": final["dialog"] if final["again"] else ""}
        elif i == current:  # complete this step: go to the next one
            nxt = i + 1
            action = ({"label": f"Mark {noun} as Complete", "value": "", "dialog": final["dialog"]} if nxt == n
                      else {"label": f"Mark {noun} as Complete", "value": steps[nxt], "dialog": ""})
        elif is_final:
            action = {"label": final["action"], "value": "", "dialog": final["dialog"]}
        else:
            action = {"label": f"Mark as Current {noun}", "value": steps[i], "dialog": ""}
        out.append({"value": final["value"] if is_final else steps[i], "label": label, "state": state, "final": is_final, "action": action})
    locked = locked or (object_key == "lead" and closed)  # read access only, or a converted lead
    return {"field": LAYOUTS[object_key].path_field, "noun": noun, "steps": out, "current": current, "final": final,
            "closed": closed, "locked": locked, "value": value, "initial": out[current]["action"]}


# -- header actions -----------------------------------------------------------------------------------
def header_actions(object_key: str, record: Any) -> list[dict]:
    label = OBJECTS[object_key].label
    actions: list[dict] = []
    converted = object_key == "lead" and record.status == pl.LEAD_CONVERTED
    if object_key == "lead" and not converted:
        actions.append({"label": "Convert", "dialog": "convert-dialog"})
    if object_key == "case" and record.status != "Closed":
        actions.append({"label": "Close Case", "dialog": "close-case-dialog"})
    if object_key == "account":
        actions.append({"label": "New Contact", "dialog": "new-contact-dialog"})
    if object_key == "contact" or object_key == "account":
        actions.append({"label": "New Case", "dialog": "new-case-dialog"})
    if not converted:  # a converted lead is read-only
        actions.append({"label": "Edit", "dialog": "edit-dialog", "aria": f"Edit {label}"})
    actions += [
        {"label": "Clone", "dialog": "clone-dialog", "aria": f"Clone {label}"},
        {"label": "Delete", "dialog": "delete-dialog", "aria": f"Delete {label}"},
    ]
    return actions


def delete_note(object_key: str, lists: list) -> str:
    """What else a delete removes, from the related-list counts already loaded (accounts cascade)."""
    if object_key != "account":
        return ""
    totals = {rl.key: rl.total for rl in lists}
    nouns = (("contacts", "contact", "contacts"), ("opportunities", "opportunity", "opportunities"), ("cases", "case", "cases"))
    parts = [f"{n} {one if n == 1 else many}" for key, one, many in nouns if (n := totals.get(key, 0))]
    if not parts:
        return ""
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"Its {listed} will be deleted too."


def edit_context(users: dict[int, User], clock: WorldClock) -> dict[str, Any]:
    """What the inline-edit fields of any record page need: user choices, address parts, the clock."""
    return {
        "users": users,
        "user_options": [(u.id, u.name) for u in users.values() if u.active],
        "part_labels": PART_LABELS,
        "part_options": PART_OPTIONS,
        "part_required": PART_REQUIRED,
        "today": clock.today,
        "now": clock.now,
        "pl": pl,
    }


def products_layout(session: Session, layout: Layout, record: Any) -> Layout:
    """An opportunity with products shows its amount read-only (it is their sum), as Salesforce does."""
    from dataclasses import replace

    from ..products import line_count

    if not line_count(session, record.id):
        return layout
    return lock_fields(layout, {"amount"})


def lock_fields(layout: Layout, lock: set[str]) -> Layout:
    """The layout with these fields shown without their pencil (read-only)."""
    from dataclasses import replace

    def fix(fields):
        return tuple(replace(f, editable=False) if f.name in lock else f for f in fields)
    return replace(layout, highlights=fix(layout.highlights), sections=tuple((t, fix(fs)) for t, fs in layout.sections))


def _record_type_values(session: Session, object_key: str, record: Any) -> tuple[str, ...] | None:
    from .. import recordtypes

    if object_key not in recordtypes.RECORD_TYPE_OBJECTS:
        return None
    return recordtypes.values_for(recordtypes.get(session, record.record_type_id), object_key)


def build_page(session: Session, object_key: str, record: Any, clock: WorldClock, *, tab: str = "details",
               users: dict[int, User] | None = None, filters: TimelineFilter | None = None) -> dict:
    from ..common import users_by_id

    layout = LAYOUTS[object_key]
    if object_key == "opportunity" and record.pricebook_id:
        layout = products_layout(session, layout, record)
    allowed = _record_type_values(session, object_key, record)
    if allowed is not None:  # inline edit offers the record type's values (and the record's own, if its type dropped it)
        from dataclasses import replace

        from ..recordtypes import RESTRICTED_FIELD

        name = RESTRICTED_FIELD[object_key][0]
        keep = getattr(record, name, None)
        def limit(fields):
            return tuple(replace(f, options=tuple(o for o in f.options if o in allowed or o == keep)) if f.name == name else f for f in fields)
        layout = replace(layout, highlights=limit(layout.highlights), sections=tuple((t, limit(fs)) for t, fs in layout.sections))
    from ..sharing import can_delete, can_edit, read_only_fields, viewer

    user = viewer(session)
    may_edit = user is None or can_edit(session, user, object_key, record)
    may_delete = user is None or can_delete(session, user, object_key, record)
    if user is not None and (locked := read_only_fields(session, user, object_key)):  # field-level security: no pencil
        layout = lock_fields(layout, locked)
    users = users if users is not None else users_by_id(session)
    refs = load_refs(session, layout, record)
    highlights = [display_row(f, record, refs, users) for f in layout.highlights]
    sections = [(title, [display_row(f, record, refs, users) for f in fields]) for title, fields in layout.sections]
    activities = load_activities(session, object_key, record.id)
    lists = related_lists(session, users, object_key, record, activities)
    return {
        "obj": OBJECTS[object_key],
        "object_key": object_key,
        "record": record,
        "title": record_title(object_key, record),
        "highlights": highlights,
        "sections": sections,
        "path": build_path(object_key, record, allowed, locked=not may_edit),
        "rt_values": allowed,
        "actions": [a for a in header_actions(object_key, record)
                    if (may_edit or a["label"] not in ("Edit", "Close Case", "Convert")) and (may_delete or a["label"] != "Delete")],
        "may_edit": may_edit,
        "related": lists,
        "delete_note": delete_note(object_key, lists),
        "timeline": build_timeline(session, users, object_key, record.id, clock, activities, record=record, filters=filters),
        "tab": tab if tab in TABS else "details",
        "read_only": (object_key == "lead" and record.status == pl.LEAD_CONVERTED) or not may_edit,
        **edit_context(users, clock),
    }
