"""Create/edit forms of the CRM objects: field layouts (Salesforce sections), parsing and saving.

The form is one dialog partial, ``crm/_record_form.html``, fed by a ``RecordForm`` from
``build_form``. Posted values are parsed with ``parse_form`` (only the layout's fields: nothing else
of the request reaches the model), checked by ``validation.validate`` and written by ``save_record``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Mapping

from sqlalchemy import func
from sqlmodel import Session, select

from ..identity.models import User
from ..world import WorldClock
from . import picklists as P
from .common import stamp
from .models import Campaign, Case
from .objects import OBJECTS


@dataclass(frozen=True)
class FormField:
    name: str  # model column
    label: str
    kind: str = "text"  # text textarea email phone url picklist lookup date currency number percent
    required: bool = False
    options: tuple[str, ...] = ()
    lookup: str | None = None  # object key of a lookup: account, contact, user
    full: bool = False  # spans both columns
    help: str = ""


def F(name: str, label: str, kind: str = "text", *, options: Any = (), **kw: Any) -> FormField:  # noqa: N802
    return FormField(name, label, kind, options=tuple(options), **kw)


Section = tuple[str, tuple[FormField, ...]]

# Fields run left column, right column, left, right... as in a Salesforce two-column section.
LAYOUTS: dict[str, tuple[Section, ...]] = {
    "account": (
        ("Account Information", (
            F("owner_id", "Account Owner", "lookup", lookup="user", required=True), F("rating", "Rating", "picklist", options=P.RATINGS),
            F("name", "Account Name", required=True), F("phone", "Phone", "phone"),
            F("parent_id", "Parent Account", "lookup", lookup="account"), F("website", "Website", "url"),
            F("type", "Type", "picklist", options=P.ACCOUNT_TYPES), F("industry", "Industry", "picklist", options=P.INDUSTRIES),
            F("employees", "Employees", "number"), F("annual_revenue", "Annual Revenue", "currency"),
        )),
        ("Address Information", (
            F("billing_street", "Billing Street", "textarea", full=True),
            F("billing_city", "Billing City"), F("billing_state", "Billing State/Province"),
            F("billing_postal_code", "Billing Zip/Postal Code"), F("billing_country", "Billing Country"),
        )),
        ("Description Information", (F("description", "Description", "textarea", full=True),)),
    ),
    "contact": (
        ("Contact Information", (
            F("owner_id", "Contact Owner", "lookup", lookup="user", required=True), F("phone", "Phone", "phone"),
            F("salutation", "Salutation", "picklist", options=P.SALUTATIONS), F("mobile", "Mobile", "phone"),
            F("first_name", "First Name"), F("email", "Email", "email"),
            F("last_name", "Last Name", required=True), F("title", "Title"),
            F("account_id", "Account Name", "lookup", lookup="account"), F("department", "Department"),
            F("reports_to_id", "Reports To", "lookup", lookup="contact"), F("lead_source", "Lead Source", "picklist", options=P.LEAD_SOURCES),
        )),
        ("Address Information", (
            F("mailing_city", "Mailing City"), F("mailing_state", "Mailing State/Province"),
            F("mailing_country", "Mailing Country"),
        )),
        ("Description Information", (F("description", "Description", "textarea", full=True),)),
    ),
    "lead": (
        ("Lead Information", (
            F("owner_id", "Lead Owner", "lookup", lookup="user", required=True), F("phone", "Phone", "phone"),
            F("salutation", "Salutation", "picklist", options=P.SALUTATIONS), F("email", "Email", "email"),
            F("first_name", "First Name"), F("status", "Lead Status", "picklist", options=P.LEAD_OPEN_STATUSES + ["Closed - Not Converted"], required=True),
            F("last_name", "Last Name", required=True), F("rating", "Rating", "picklist", options=P.RATINGS),
            F("company", "Company", required=True), F("title", "Title"),
            F("industry", "Industry", "picklist", options=P.INDUSTRIES), F("source", "Lead Source", "picklist", options=P.LEAD_SOURCES),
        )),
        ("Address Information", (
            F("city", "City"), F("state", "State/Province"), F("country", "Country"),
        )),
        ("Additional Information", (
            F("employees", "No. of Employees", "number"), F("annual_revenue", "Annual Revenue", "currency"),
        )),
        ("Description Information", (F("description", "Description", "textarea", full=True),)),
    ),
    "opportunity": (
        ("Opportunity Information", (
            F("owner_id", "Opportunity Owner", "lookup", lookup="user", required=True), F("amount", "Amount", "currency"),
            F("name", "Opportunity Name", required=True), F("close_date", "Close Date", "date", required=True),
            F("account_id", "Account Name", "lookup", lookup="account"), F("stage", "Stage", "picklist", options=P.STAGE_NAMES, required=True),
            F("type", "Type", "picklist", options=P.OPPORTUNITY_TYPES), F("probability", "Probability (%)", "percent", help="Defaults to the stage's probability."),
            F("lead_source", "Lead Source", "picklist", options=P.LEAD_SOURCES), F("next_step", "Next Step"),
            F("loss_reason", "Loss Reason", "picklist", options=P.LOSS_REASONS, help="Required when the stage is Closed Lost."),
            F("main_competitors", "Main Competitor(s)"), F("campaign_id", "Primary Campaign Source", "lookup", lookup="campaign"),
        )),
        ("Description Information", (F("description", "Description", "textarea", full=True),)),
    ),
    "case": (
        ("Case Information", (
            F("owner_id", "Case Owner", "lookup", lookup="user", required=True), F("status", "Status", "picklist", options=P.CASE_STATUSES, required=True),
            F("contact_id", "Contact Name", "lookup", lookup="contact"), F("priority", "Priority", "picklist", options=P.CASE_PRIORITIES, required=True),
            F("account_id", "Account Name", "lookup", lookup="account"), F("origin", "Case Origin", "picklist", options=P.CASE_ORIGINS),
            F("type", "Type", "picklist", options=P.CASE_TYPES), F("reason", "Case Reason", "picklist", options=P.CASE_REASONS),
        )),
        ("Description Information", (
            F("subject", "Subject", required=True, full=True), F("description", "Description", "textarea", full=True),
        )),
    ),
}

# What a new record starts with (before the user's prefill).
DEFAULTS: dict[str, dict[str, Any]] = {
    "lead": {"status": "Open - Not Contacted"},
    "case": {"status": "New", "priority": "Medium"},
}


def form_fields(object_key: str) -> list[FormField]:
    return [f for _title, fields in LAYOUTS[object_key] for f in fields]


def display_name(object_key: str, record: Any) -> str:
    """How a record is named in titles and toasts."""
    if object_key == "case":
        return record.case_number
    return record.name


# -- the form a template renders ---------------------------------------------------------------------
@dataclass
class FieldState:
    field: FormField
    value: str  # as the input shows it
    label: str = ""  # a lookup's selected record name
    error: str | None = None
    readonly: bool = False  # field-level security: the profile reads it but may not edit it (shown as text, not posted)

    @property
    def required(self) -> bool:
        return self.field.required


@dataclass
class RecordForm:
    object_key: str
    mode: str  # create | edit | clone
    title: str
    action: str
    dialog_id: str
    sections: list[tuple[str, list[FieldState]]]
    errors: dict[str, str] = field(default_factory=dict)
    open: bool = False  # opened on page load (after a validation error, or Save & New)
    return_to: str = ""
    origin: str = ""  # where the form was opened: "list" re-renders the list on errors
    list_url: str = ""  # the list view the dialog was opened from (kept on errors and by Save & New)
    save_and_new: bool = True
    duplicates: list[dict] = field(default_factory=list)  # what the duplicate rule matched (the alert's View Duplicates)
    duplicates_blocked: bool = False
    record_type: Any = None  # the RecordType the form saves (opportunities, cases), shown read-only at its top

    @property
    def duplicates_ack(self) -> str:
        return ",".join(str(d["id"]) for d in self.duplicates)

    @property
    def info(self):  # noqa: ANN201
        return OBJECTS[self.object_key]

    @property
    def error_labels(self) -> list[str]:
        return [s.field.label for _t, states in self.sections for s in states if s.error]

    @property
    def autofocus(self) -> str | None:
        """The field focused when the dialog opens: the first required one that is typed in."""
        if self.errors:
            return None  # the first field in error gets the focus instead
        for _t, states in self.sections:
            for s in states:
                if s.field.required and s.field.kind != "lookup":
                    return s.field.name
        return None

    @property
    def stage_probability(self) -> dict[str, int]:
        return P.STAGE_PROBABILITY


def _as_input(value: Any, kind: str) -> str:
    if value is None:
        return ""
    if isinstance(value, (date, datetime)):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def lookup_labels(session: Session, wanted: dict[str, set[int]]) -> dict[tuple[str, int], str]:
    """Names of the records lookups point at, one query per object."""
    out: dict[tuple[str, int], str] = {}
    for key, ids in wanted.items():
        ids = {i for i in ids if i}
        if not ids:
            continue
        model = User if key == "user" else Campaign if key == "campaign" else OBJECTS[key].model
        for rec in session.exec(select(model).where(model.id.in_(ids))).all():
            out[(key, rec.id)] = display_name(key, rec) if key != "user" else rec.name
    return out


def _to_int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def build_form(
    session: Session,
    object_key: str,
    *,
    mode: str = "create",
    record: Any = None,
    values: Mapping[str, Any] | None = None,
    errors: Mapping[str, str] | None = None,
    user: User | None = None,
    action: str | None = None,
    return_to: str = "",
    origin: str = "",
    list_url: str = "",
    open: bool = False,  # noqa: A002
    dialog_id: str | None = None,
    record_type_id: int | None = None,
) -> RecordForm:
    """The create/edit/clone dialog of ``object_key``.

    ``values`` prefill or override fields (posted values after an error, or e.g. ``{"account_id": 5}``
    for a new contact from its account); ``record`` gives the current values for edit and clone.
    """
    info = OBJECTS[object_key]
    current: dict[str, Any] = {}
    if mode == "create":
        current.update(DEFAULTS.get(object_key, {}))
        if user is not None:
            current["owner_id"] = user.id
    if record is not None:
        current.update({f.name: getattr(record, f.name) for f in form_fields(object_key)})
        if mode == "clone" and user is not None:
            current["owner_id"] = user.id
    if values:
        current.update(values)
    errors = dict(errors or {})
    wanted: dict[str, set[int]] = {}
    for f in form_fields(object_key):
        if f.kind == "lookup" and _to_int(current.get(f.name)):
            wanted.setdefault(f.lookup, set()).add(_to_int(current.get(f.name)))
    labels = lookup_labels(session, wanted)
    from . import recordtypes
    from .sharing import read_only_fields, viewer

    who = user if user is not None else viewer(session)
    rt, allowed = None, None
    restricted = recordtypes.RESTRICTED_FIELD.get(object_key, ("", ""))[0]
    if object_key in recordtypes.RECORD_TYPE_OBJECTS:
        # The type chosen in "Select a record type" (or Change Record Type), else the record's, else the profile's default.
        rt = recordtypes.get(session, record_type_id or (values or {}).get("record_type_id"))
        if rt is None and record is not None:
            rt = recordtypes.get(session, record.record_type_id)
        if rt is None:
            rt = recordtypes.default_type(session, object_key, who)
        allowed = recordtypes.values_for(rt, object_key)
        start = recordtypes.default_value(rt) if mode == "create" else None
        if start and restricted not in (values or {}):  # the type's default value (Setup: Available Values / Default)
            current[restricted] = start
    locked = read_only_fields(session, who, object_key) if who is not None else set()
    sections = []
    for title, fields in LAYOUTS[object_key]:
        states = []
        for f in fields:
            if f.name == restricted and allowed is not None:
                keep = str(current.get(f.name) or "")  # a value the type dropped stays selectable on the record that has it
                opts = [o for o in f.options if o in allowed or (mode == "edit" and o == keep and record is not None
                                                                  and rt.id == record.record_type_id)]
                f = FormField(f.name, f.label, f.kind, f.required, tuple(opts), f.lookup, f.full, f.help)
            raw = current.get(f.name)
            label = labels.get((f.lookup, _to_int(raw)), "") if f.kind == "lookup" else ""
            value = _as_input(raw, f.kind)
            if f.kind == "lookup" and not label:
                value = ""  # a deleted or unknown record: show the search box again
            states.append(FieldState(f, value, label, errors.get(f.name), f.name in locked))
        sections.append((title, states))
    if mode == "edit":
        title = f"Edit {display_name(object_key, record)}"
        action = action or f"{info.path}/{record.id}/edit"
    else:
        chosen = record_type_id or (values or {}).get("record_type_id")
        title = f"New {info.label}: {rt.name}" if chosen and rt is not None else f"New {info.label}"
        action = action or info.path
    dups = []
    dup_ids = [int(i) for i in str(errors.get("__duplicates__", "")).split(",") if i.isdigit()]
    if dup_ids:
        model = OBJECTS[object_key].model
        users = {u.id: u.name for u in session.exec(select(User)).all()}
        for rec in session.exec(select(model).where(model.id.in_(dup_ids)).order_by(model.id)).all():
            sub = {"account": lambda r: r.billing_city, "contact": lambda r: r.email, "lead": lambda r: r.company}.get(object_key, lambda r: "")(rec)
            dups.append({"id": rec.id, "name": display_name(object_key, rec), "url": info.url(rec.id), "sub": sub or "",
                         "owner": users.get(getattr(rec, "owner_id", None), "")})
    return RecordForm(
        duplicates=dups,
        duplicates_blocked=bool(errors.get("__blocked__")),
        object_key=object_key,
        mode=mode,
        title=title,
        action=action,
        dialog_id=dialog_id or f"{mode}-{object_key}",
        sections=sections,
        errors=errors,
        open=open or bool(errors),
        return_to=return_to,
        origin=origin,
        list_url=list_url,
        save_and_new=mode != "edit",
        record_type=rt,
    )


# -- parsing and saving --------------------------------------------------------------------------------
def apply_field_security(session: Session, user: User, object_key: str, raw: dict[str, str], form: Mapping[str, Any],
                         record: Any = None) -> dict[str, str]:
    """Field-level security on a posted form: a read-only field the form didn't post keeps its value
    (an edit) or its default (a new record); one posted with another value is refused with Salesforce's message."""
    from .sharing import fls_message, read_only_fields, refused_fields

    locked = read_only_fields(session, user, object_key)
    if not locked:
        return {}
    posted = {k: raw[k] for k in locked if k in raw and k in form}
    labels = {f.name: f.label for f in form_fields(object_key)}
    if record is None:
        bad = sorted(k for k, v in posted.items() if v not in ("", _as_input(DEFAULTS.get(object_key, {}).get(k), labels_kind(object_key, k))))
    else:
        bad = refused_fields(session, user, object_key, record, posted)
    if bad:
        return {"__all__": fls_message([labels.get(k, k) for k in bad]), **{k: "This field is read-only for your profile." for k in bad}}
    for k in locked:
        if k in raw and k not in form:
            raw[k] = _as_input(getattr(record, k), labels_kind(object_key, k)) if record is not None else ""
            if k == "probability" and record is not None and raw.get("stage") in P.STAGE_PROBABILITY and raw["stage"] != record.stage:
                raw[k] = str(P.STAGE_PROBABILITY[raw["stage"]])  # the new stage sets it, as for everyone
    return {}


def labels_kind(object_key: str, name: str) -> str:
    return next((f.kind for f in form_fields(object_key) if f.name == name), "text")


def parse_form(object_key: str, form: Mapping[str, Any]) -> dict[str, str]:
    """The posted values of the layout's fields (trimmed strings); other keys are ignored."""
    out = {}
    for f in form_fields(object_key):
        raw = form.get(f.name)
        out[f.name] = raw.replace("\r\n", "\n").strip() if isinstance(raw, str) else ""  # textareas post CRLF
    if object_key in ("opportunity", "case") and isinstance(form.get("record_type_id"), str) and form.get("record_type_id").strip():
        out["record_type_id"] = form.get("record_type_id").strip()  # the form's hidden record type (recordtypes.py)
    return out


def _next_case_number(session: Session) -> str:
    top = session.exec(select(func.max(Case.case_number))).one()  # zero-padded: text order is number order
    return f"{int(top) + 1 if top and top.isdigit() else 1001:08d}"


def apply_rules(object_key: str, cleaned: dict[str, Any], record: Any, clock: WorldClock) -> None:
    """Add the values a save sets by itself (``validation.derive``: probability and forecast category
    from the stage, a case's closed time) to ``cleaned``, in place."""
    from .validation import derive

    cleaned.update(derive(object_key, cleaned, record, clock.now))


def save_record(
    session: Session,
    object_key: str,
    raw: dict[str, str],
    *,
    user: User,
    clock: WorldClock,
    record: Any = None,
    duplicates: str = "check",
) -> tuple[Any, dict[str, str]]:
    """Validate and write a create (``record`` None) or an edit. Returns (record, {}) or (None, errors).

    Nothing is written when there is any error. ``duplicates``: "check" applies the object's duplicate
    rule (a Block rule refuses with its message; an Allow rule with an alert refuses once with the alert,
    ``errors["__duplicates__"]`` holding the matching ids), "ack:<ids>" saves past an Allow rule's
    alert for those same matches (the user saved again) but still obeys a Block rule.
    """
    from .validation import REQUIRED, validate

    cleaned, errors = validate(object_key, raw, session, record_id=getattr(record, "id", None))
    if "owner_id" in raw and not raw["owner_id"] and "owner_id" not in errors:
        errors["owner_id"] = REQUIRED  # every record has an owner, as in Salesforce
    if errors:
        return None, errors
    from .duplicates import alert_message, check_save

    dup = check_save(session, object_key, cleaned, record)
    if dup is not None and (dup.blocked or duplicates != f"ack:{dup.ids}"):
        errors = {"__duplicates__": dup.ids, "__all__": dup.rule.alert_text if dup.blocked else alert_message(object_key)}
        if dup.blocked:
            errors["__blocked__"] = "1"
        return None, errors
    apply_rules(object_key, cleaned, record, clock)
    created = record is None
    if created:
        model = OBJECTS[object_key].model
        if object_key == "case":
            cleaned["case_number"] = _next_case_number(session)
        record = model(**cleaned)
    else:
        for key, value in cleaned.items():
            setattr(record, key, value)
    stamp(record, user, clock, created=created)
    session.add(record)
    session.commit()
    session.refresh(record)
    return record, {}
