"""Inline edit in a list view (Lightning's pencil on a cell, the yellow edited cells, the footer's
"N items edited · Cancel · Save").

The editable cells of a list are the displayed columns that are also fields of the object's edit
form (formula, computed and system columns such as Created Date, a person's full name or the
owner's name have no pencil). Save runs each edited record through the record form's own save
(``forms.save_record``: field rules, the org's validation rules, duplicate rules, derived values,
field history), record by record: the records that pass are saved, the others keep their edits and
show their errors on the row, as Lightning does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from sqlmodel import Session

from ..identity.models import User
from ..world import WorldClock
from .forms import _as_input, display_name, form_fields, save_record
from .listing import ListSpec
from .objects import OBJECTS
from .sharing import INSUFFICIENT_RECORD, can_edit, fls_message, read_only_fields

# Form kinds an inline editor handles, and the editor it gets.
EDITORS = {"text": "text", "phone": "text", "email": "text", "url": "text", "picklist": "picklist", "date": "date",
           "currency": "number", "number": "number", "percent": "number"}


@dataclass
class RowResult:
    object_key: str
    record_id: int
    name: str
    edits: dict[str, str]  # field -> the value typed
    errors: dict[str, str] = field(default_factory=dict)  # field (or "__all__") -> message

    @property
    def messages(self) -> list[str]:
        return row_messages(self.object_key, self.errors)


def editable_fields(object_key: str, user: User | None = None, session: Session | None = None) -> dict[str, Any]:
    """The form fields of ``object_key`` a list cell may edit in place, by list field key (without the
    fields the user's profile may only read, when a user and a session are given)."""
    locked: set[str] = set()
    if user is not None and session is not None:
        from .sharing import read_only_fields

        locked = read_only_fields(session, user, object_key)
    return {f.name: f for f in form_fields(object_key) if f.kind in EDITORS and f.name not in locked}


def editor_meta(spec: ListSpec, columns: list[str], user: User | None = None, session: Session | None = None) -> dict[str, dict[str, Any]]:
    """What the page's script needs to open an editor on a displayed, editable column."""
    fields = editable_fields(spec.object_key, user, session)
    out = {}
    for key in columns:
        f = fields.get(key)
        lf = spec.fields.get(key)
        if f is None or lf is None or lf.extra:
            continue
        out[key] = {"label": lf.label, "editor": EDITORS[f.kind], "options": list(f.options), "required": f.required}
    return out


def cell_input(value: Any) -> str:
    """A cell's value as its editor shows it (2026-03-16, 125000, Prospecting)."""
    return _as_input(value, "")


def parse_edits(form: Mapping[str, Any], object_key: str) -> dict[int, dict[str, str]]:
    """``e.<record id>.<field>`` inputs -> {record id: {field: value}} (editable fields only)."""
    allowed = editable_fields(object_key)
    out: dict[int, dict[str, str]] = {}
    for key in form.keys():
        parts = str(key).split(".")
        if len(parts) != 3 or parts[0] != "e" or not parts[1].isdigit() or parts[2] not in allowed:
            continue
        value = form.get(key)
        out.setdefault(int(parts[1]), {})[parts[2]] = value.strip() if isinstance(value, str) else ""
    return out


def row_messages(object_key: str, errors: Mapping[str, str]) -> list[str]:
    labels = {f.name: f.label for f in form_fields(object_key)}
    out = []
    for key, message in errors.items():
        if key.startswith("__") and key != "__all__":
            continue
        out.append(message if key == "__all__" or key not in labels else f"{labels[key]}: {message}")
    return out


def save_edits(session: Session, object_key: str, edits: dict[int, dict[str, str]], *, user: User, clock: WorldClock) -> tuple[int, list[RowResult]]:
    """Save each record's edits as its edit form would. Returns (records saved, the rows refused)."""
    info = OBJECTS[object_key]
    saved = 0
    refused: list[RowResult] = []
    for record_id in sorted(edits):
        changes = edits[record_id]
        record = session.get(info.model, record_id)
        if record is None:
            refused.append(RowResult(object_key, record_id, f"#{record_id}", changes, {"__all__": "This record was deleted by someone else."}))
            continue
        current = {f.name: _as_input(getattr(record, f.name), f.kind) for f in form_fields(object_key)}
        changed = {k: v for k, v in changes.items() if current.get(k) != v}
        if not changed:
            continue
        name = display_name(object_key, record)
        if not can_edit(session, user, object_key, record):  # sharing: read access only
            refused.append(RowResult(object_key, record_id, name, changes, {"__all__": INSUFFICIENT_RECORD}))
            continue
        if locked := sorted(set(changed) & read_only_fields(session, user, object_key)):  # field-level security
            labels = {f.name: f.label for f in form_fields(object_key)}
            refused.append(RowResult(object_key, record_id, name, changes, {"__all__": fls_message([labels.get(k, k) for k in locked])}))
            continue
        raw = {**current, **changed}
        if object_key == "opportunity" and "stage" in changed and "probability" not in changed:
            raw.pop("probability", None)  # a new stage brings its default probability, as on the form
        result, errors = save_record(session, object_key, raw, user=user, clock=clock, record=record)
        if errors and "__duplicates__" in errors and not errors.get("__blocked__"):
            # A duplicate rule's alert can't be shown in a list cell: the save goes through, as in Lightning;
            # a Block rule still refuses.
            session.rollback()
            record = session.get(info.model, record_id)
            result, errors = save_record(session, object_key, raw, user=user, clock=clock, record=record,
                                         duplicates=f"ack:{errors['__duplicates__']}")
        if errors:
            session.rollback()
            refused.append(RowResult(object_key, record_id, name, changes, errors))
        else:
            saved += 1
    return saved, refused


__all__ = ["EDITORS", "RowResult", "cell_input", "editable_fields", "editor_meta", "parse_edits", "row_messages", "save_edits"]
