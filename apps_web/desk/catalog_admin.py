"""Maintaining the service catalog (catalog_admin): an item's fields and its variables, as ServiceNow's
``sc_cat_item`` form with its *Variables* related list. One implementation for the form's reading,
its validation (nothing is saved on an error) and the write.

Variables are stored on the item (``desk_catalog_item.variables``, a JSON list of ``{name, label,
type, mandatory, choices}``); a Select Box's choices are lines ``Value`` or ``Value | +150`` (the
price the option adds to the item's, negative to subtract). Orders already placed keep the
variables they were ordered with (``desk_req_item.variables``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from ..world import WorldClock
from .models import CatalogItem, Group

CATEGORIES = ["Hardware", "Peripherals", "Mobile", "Software", "Network", "Messaging", "Onboarding"]
# (stored type, ServiceNow's variable type)
VAR_TYPES = [("choice", "Select Box"), ("text", "Single Line Text"), ("textarea", "Multi Line Text"),
             ("checkbox", "CheckBox"), ("date", "Date"), ("number", "Number")]
TYPE_LABELS = dict(VAR_TYPES)
MAX_PRICE = 100_000
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_MONEY = re.compile(r"^[+-]?\d+(\.\d{1,2})?$")


def choice_lines(var: dict) -> str:
    """A Select Box's choices as the form shows them, one per line."""
    out = []
    for c in var.get("choices") or []:
        price = float(c.get("price") or 0)
        out.append(c["value"] if not price else f"{c['value']} | {'+' if price > 0 else '-'}{abs(price):g}")
    return "\n".join(out)


def form_rows(item: CatalogItem | None) -> list[dict]:
    """The item's variables as rows of the form (strings, as typed)."""
    rows = []
    for var in json.loads(item.variables or "[]") if item is not None else []:
        rows.append({"question": var["label"], "name": var["name"], "type": var["type"], "mandatory": bool(var.get("mandatory")),
                     "choices": choice_lines(var), "remove": False, "key": var["label"]})
    return rows


def current_values(item: CatalogItem | None) -> dict[str, Any]:
    if item is None:
        return {"name": "", "short_description": "", "description": "", "category": "", "price": "0.00", "active": True,
                "fulfillment_group": "", "variables": []}
    return {"name": item.name, "short_description": item.short_description, "description": item.description, "category": item.category,
            "price": f"{item.price:.2f}", "active": item.active, "fulfillment_group": str(item.fulfillment_group_id or ""),
            "variables": form_rows(item)}


def read_form(form: Any) -> dict[str, Any]:
    """The posted form as values (strings), the variable rows in their order (the last is the new one)."""
    values = {k: str(form.get(k) or "") for k in ("name", "short_description", "description", "category", "price", "fulfillment_group")}
    values["active"] = form.get("active") in ("true", "on", "1")
    rows = []
    i = 0
    while f"var-{i}-question" in form or f"var-{i}-type" in form:
        rows.append({"question": str(form.get(f"var-{i}-question") or "").strip(), "name": str(form.get(f"var-{i}-name") or "").strip(),
                     "type": str(form.get(f"var-{i}-type") or ""), "mandatory": form.get(f"var-{i}-mandatory") in ("true", "on", "1"),
                     "choices": str(form.get(f"var-{i}-choices") or "").replace("\r\n", "\n").strip(),
                     "remove": form.get(f"var-{i}-remove") in ("true", "on", "1"), "key": str(form.get(f"var-{i}-key") or "")})
        i += 1
    values["variables"] = rows
    return values


def _slug(label: str) -> str:
    name = re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")
    if name and not name[0].isalpha():
        name = "v_" + name
    return name[:40]


def _parse_choices(text: str) -> tuple[list[dict], str | None]:
    choices: list[dict] = []
    for line in (ln.strip() for ln in text.split("\n")):
        if not line:
            continue
        value, _, price = (p.strip() for p in line.partition("|"))
        if not value:
            return [], f"'{line}' has no choice before the '|'."
        if price and not _MONEY.match(price.replace(",", "")):
            return [], f"'{price}' is not a price: write the amount the choice adds, e.g. 'MacBook Air | +150' or 'Basic | -50'."
        if any(c["value"].lower() == value.lower() for c in choices):
            return [], f"The choice '{value}' is listed twice."
        amount = float(price.replace(",", "")) if price else 0.0
        choices.append({"value": value, "price": int(amount) if amount.is_integer() else amount})  # as the generator writes them
    return choices, None


def validate(session: Session, values: dict[str, Any], item: CatalogItem | None) -> tuple[dict[str, Any], list[dict], dict[str, str]]:
    """Check the form; returns (item fields, variables, errors keyed by field or ``var-<i>-<field>``)."""
    errors: dict[str, str] = {}
    fields: dict[str, Any] = {}
    missing = [label for key, label in (("name", "Name"), ("short_description", "Short description"), ("category", "Category"))
               if not values[key].strip()]
    for key, label in (("name", "Name"), ("short_description", "Short description"), ("category", "Category")):
        if not values[key].strip():
            errors[key] = f"{label} is mandatory."
    name = " ".join(values["name"].split())
    if name:
        if len(name) > 120:
            errors["name"] = "Name is too long: at most 120 characters."
        clash = session.execute(select(CatalogItem.id).where(func.lower(CatalogItem.name) == name.lower())).scalars().all()
        if any(i != (item.id if item else None) for i in clash):
            errors["name"] = f"A catalog item named '{name}' already exists: choose another name or edit that item."
    fields["name"] = name
    fields["short_description"] = values["short_description"].strip()[:200]
    fields["description"] = values["description"].strip()
    if values["category"] and values["category"] not in CATEGORIES:
        errors["category"] = f"'{values['category']}' is not a catalog category: choose one of {', '.join(CATEGORIES)}."
    fields["category"] = values["category"]
    price = values["price"].strip().replace(",", "").lstrip("$") or "0"
    if not _MONEY.match(price) or float(price) < 0 or float(price) > MAX_PRICE:
        errors["price"] = f"Price must be an amount from 0 to {MAX_PRICE:,} with at most two decimals (e.g. 1250.00)."
    else:
        fields["price"] = round(float(price), 2)
    fields["active"] = bool(values["active"])
    group = values["fulfillment_group"].strip()
    if group:
        g = session.get(Group, int(group)) if group.isdigit() else None
        if g is None:
            errors["fulfillment_group"] = "Choose the fulfillment group from the list."
        fields["fulfillment_group_id"] = g.id if g else None
    else:
        fields["fulfillment_group_id"] = None

    variables: list[dict] = []
    names: dict[str, int] = {}
    rows = values["variables"]
    for i, row in enumerate(rows):
        new = i == len(rows) - 1 and not row["key"]
        blank = not row["question"] and not row["name"] and not row["choices"]
        if row["remove"] or (new and blank):
            continue
        where = f"var-{i}-"
        if not row["question"]:
            errors[where + "question"] = "Question is mandatory: the label the requester sees."
        vname = row["name"] or _slug(row["question"])
        if not _NAME.match(vname):
            errors[where + "name"] = f"'{vname}' is not a variable name: lower-case letters, digits and underscores, starting with a letter."
        elif vname in names:
            errors[where + "name"] = f"Another variable of this item is already named '{vname}'."
        names[vname] = i
        vtype = row["type"]
        if vtype not in TYPE_LABELS:
            errors[where + "type"] = "Choose the variable's type."
        var: dict[str, Any] = {"name": vname, "label": row["question"], "type": vtype, "mandatory": bool(row["mandatory"])}
        if vtype == "choice":
            choices, err = _parse_choices(row["choices"])
            if err:
                errors[where + "choices"] = err
            elif not choices:
                errors[where + "choices"] = "A Select Box needs its choices: one per line."
            var["choices"] = choices
        elif row["choices"]:
            errors[where + "choices"] = f"Only a Select Box has choices; a {TYPE_LABELS.get(vtype, 'variable')} takes none."
        if vtype == "checkbox":
            var["mandatory"] = False
        variables.append(var)
    if missing:
        errors["__all__"] = "The following mandatory fields are not filled in: " + ", ".join(missing)
    return fields, variables, errors


def save(session: Session, item: CatalogItem | None, fields: dict[str, Any], variables: list[dict], clock: WorldClock) -> CatalogItem:
    now = clock.now
    if item is None:
        item = CatalogItem(created_at=now, needs_approval=True, **{k: v for k, v in fields.items() if k != "price"}, price=fields["price"])
    else:
        for k, v in fields.items():
            setattr(item, k, v)
    item.variables = json.dumps(variables)
    item.updated_at = now
    session.add(item)
    session.flush()
    return item


__all__ = ["CATEGORIES", "TYPE_LABELS", "VAR_TYPES", "current_values", "read_form", "save", "validate"]
