"""Field rules shared by the problem and change forms (and their JSON API): choices, numbers, references
that must exist, planned dates in ServiceNow's ``YYYY-MM-DD HH:MM:SS`` format, and mandatory fields
that follow the state. The incident keeps its own rules (``validation.py``).

Input uses ServiceNow's field names; references are ids. Nothing is saved when any rule fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

from sqlmodel import Session, SQLModel, select

from .models import GroupMember
from .tables import REFS

DATETIME_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M")


@dataclass(frozen=True)
class F:
    name: str  # the form/API name
    attr: str  # the model attribute
    label: str
    kind: str = "text"  # text | choice | number | reference | datetime
    choices: tuple = ()  # allowed values (numbers: their keys)
    ref: str = ""  # referenced table key
    max_len: int = 0


def parse_datetime(text: str) -> datetime | None:
    for fmt in DATETIME_FORMATS:
        try:
            return datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
    return None


def clean_text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).replace("\r\n", "\n").strip()  # browsers send textarea lines with CRLF
    return text or None


def values_of(fields: dict[str, F], rec: SQLModel | None, defaults: dict[str, Any]) -> dict[str, Any]:
    if rec is None:
        return {name: defaults.get(name) for name in fields}
    return {name: getattr(rec, f.attr) for name, f in fields.items()}


def validate(session: Session, fields: dict[str, F], data: dict[str, Any], values: dict[str, Any],
             mandatory: Callable[[dict], list[str]]) -> tuple[dict[str, Any], dict[str, str]]:
    """Merge ``data`` (only the fields given) over ``values`` and check each field's rule.

    Returns the merged values and the errors (name -> message; "__all__" for the form's top message).
    """
    values = dict(values)
    errors: dict[str, str] = {}
    found: dict[str, Any] = {}
    for name, raw in data.items():
        f = fields.get(name)
        if f is None:
            continue
        value = raw if isinstance(raw, int) and not isinstance(raw, bool) else clean_text(raw)
        if value is None:
            values[name] = None
            continue
        if f.kind == "number":
            try:
                value = int(value)
                if f.choices and value not in f.choices:
                    raise ValueError
            except (TypeError, ValueError):
                errors[name] = f"'{raw}' is not a valid {f.label.lower()}: choose one of {', '.join(map(str, f.choices))}."
        elif f.kind == "choice" and value not in f.choices:
            errors[name] = f"'{value}' is not a valid {f.label.lower()}: choose one of {', '.join(f.choices)}."
        elif f.kind == "datetime":
            when = parse_datetime(str(value))
            if when is None:
                errors[name] = f"'{value}' is not a date and time: use YYYY-MM-DD HH:MM:SS, e.g. 2026-03-17 20:00:00."
            else:
                value = when
        elif f.kind == "reference":
            try:
                rec = session.get(REFS[f.ref].model, int(value))
            except (TypeError, ValueError):
                rec = None
            if rec is None:
                errors[name] = f"Invalid reference: no {f.label.lower()} with id {value!r}. Pick one from the suggestions."
            else:
                value, found[name] = rec.id, rec
        elif f.max_len and len(str(value)) > f.max_len:
            errors[name] = f"Keep the {f.label.lower()} to {f.max_len} characters; put the details in Description."
        values[name] = value
    group, person = values.get("assignment_group"), values.get("assigned_to")
    if group is not None and person is not None and "assigned_to" not in errors and "assignment_group" not in errors:
        member = session.exec(select(GroupMember).where(GroupMember.group_id == group, GroupMember.user_id == person)).first()
        if member is None:
            errors["assigned_to"] = "The assignee is not a member of the assignment group: choose a member of the group."
    missing = [n for n in mandatory(values) if values.get(n) in (None, "")]
    for n in missing:
        errors.setdefault(n, f"{fields[n].label} is mandatory.")
    if missing:
        errors["__all__"] = "The following mandatory fields are not filled in: " + ", ".join(fields[n].label for n in missing)
    return values, errors


def assign(rec: SQLModel, fields: dict[str, F], values: dict[str, Any]) -> None:
    """Set the validated values; an emptied text field stays NULL where it was NULL, else becomes ""."""
    for name, f in fields.items():
        if name in values:
            v = values[name]
            if v is None and f.kind == "text" and getattr(rec, f.attr, None) is not None:
                v = ""  # a column that is never NULL (a new record holds its default "")
            setattr(rec, f.attr, v)


def next_number(session: Session, model: type[SQLModel], prefix: str, first: int) -> str:
    top = session.exec(select(model.number).where(model.number.startswith(prefix)).order_by(model.number.desc()).limit(1)).first()
    n = int(top[len(prefix):]) + 1 if top else first
    return f"{prefix}{n:07d}"
