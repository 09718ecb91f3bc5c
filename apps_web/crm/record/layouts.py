"""Page layouts of the record pages: highlights, detail sections and field kinds per object.

A ``FieldDef`` says how one field shows and edits in place. Compound fields (a name, an address)
show as one row and edit several columns at once, as Salesforce does.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import picklists as pl

FORECAST_CATEGORIES = ("Pipeline", "Best Case", "Commit", "Closed", "Omitted")


@dataclass(frozen=True)
class FieldDef:
    name: str  # key of the row; the column for simple fields
    label: str
    kind: str = "text"  # text textarea select lookup related user money int percent date datetime email phone url address name readonly record_type
    options: tuple[str, ...] = ()
    lookup: str | None = None  # object key of a lookup ("account")
    parts: tuple[str, ...] = ()  # columns of a compound field
    required: bool = False
    editable: bool = True
    wide: bool = False  # spans both columns (long text)

    @property
    def columns(self) -> tuple[str, ...]:
        return self.parts or (self.name,)


def F(name: str, label: str, kind: str = "text", **kw) -> FieldDef:  # noqa: N802 - reads like a table row
    if "options" in kw:
        kw["options"] = tuple(kw["options"])
    return FieldDef(name, label, kind, **kw)


NAME_PARTS = ("salutation", "first_name", "last_name")
PART_LABELS = {
    "salutation": "Salutation", "first_name": "First Name", "last_name": "Last Name",
    "billing_street": "Billing Street", "billing_city": "Billing City", "billing_state": "Billing State/Province",
    "billing_postal_code": "Billing Zip/Postal Code", "billing_country": "Billing Country",
    "shipping_street": "Shipping Street", "shipping_city": "Shipping City", "shipping_state": "Shipping State/Province",
    "shipping_postal_code": "Shipping Zip/Postal Code", "shipping_country": "Shipping Country",
    "mailing_city": "Mailing City", "mailing_state": "Mailing State/Province", "mailing_country": "Mailing Country",
    "city": "City", "state": "State/Province", "country": "Country",
}
PART_OPTIONS = {"salutation": tuple(pl.SALUTATIONS)}
PART_REQUIRED = {"last_name"}


@dataclass(frozen=True)
class Layout:
    highlights: tuple[FieldDef, ...]
    sections: tuple[tuple[str, tuple[FieldDef, ...]], ...]
    path_field: str | None = None  # the field the path shows and sets
    title_field: str = "name"

    def field(self, name: str) -> FieldDef | None:
        for _title, fields in self.sections:
            for f in fields:
                if f.name == name:
                    return f
        return None

    @property
    def editable_columns(self) -> set[str]:
        return {c for _t, fs in self.sections for f in fs if f.editable for c in f.columns}


def _system() -> tuple[str, tuple[FieldDef, ...]]:
    return ("System Information", (
        F("created_by", "Created By", "readonly"),
        F("modified", "Last Modified Date", "readonly"),
    ))


ACCOUNT = Layout(
    highlights=(F("type", "Type"), F("phone", "Phone", "phone"), F("website", "Website", "url"), F("industry", "Industry"), F("owner_id", "Account Owner", "user")),
    sections=(
        ("Account Information", (
            F("name", "Account Name", required=True), F("owner_id", "Account Owner", "user", required=True),
            F("parent_id", "Parent Account", "lookup", lookup="account"), F("type", "Type", "select", options=pl.ACCOUNT_TYPES),
            F("website", "Website", "url"), F("industry", "Industry", "select", options=pl.INDUSTRIES),
            F("phone", "Phone", "phone"), F("rating", "Rating", "select", options=pl.RATINGS),
            F("annual_revenue", "Annual Revenue", "money"), F("employees", "Employees", "int"),
            F("territory_id", "Territory", "lookup", lookup="territory", editable=False),
        )),
        ("Address Information", (
            F("billing_address", "Billing Address", "address", parts=("billing_street", "billing_city", "billing_state", "billing_postal_code", "billing_country")),
            F("shipping_address", "Shipping Address", "address", parts=("shipping_street", "shipping_city", "shipping_state", "shipping_postal_code", "shipping_country")),
        )),
        ("Description Information", (F("description", "Description", "textarea"),)),
        _system(),
    ),
)

CONTACT = Layout(
    highlights=(F("title", "Title"), F("account_id", "Account Name", "lookup", lookup="account"), F("phone", "Phone", "phone"), F("email", "Email", "email"), F("owner_id", "Contact Owner", "user")),
    sections=(
        ("Contact Information", (
            F("name", "Name", "name", parts=NAME_PARTS, required=True), F("owner_id", "Contact Owner", "user", required=True),
            F("account_id", "Account Name", "lookup", lookup="account"), F("title", "Title"),
            F("department", "Department"), F("reports_to_id", "Reports To", "lookup", lookup="contact"),
            F("email", "Email", "email"), F("phone", "Phone", "phone"),
            F("mobile", "Mobile", "phone"), F("lead_source", "Lead Source", "select", options=pl.LEAD_SOURCES),
        )),
        ("Address Information", (
            F("mailing_address", "Mailing Address", "address", parts=("mailing_city", "mailing_state", "mailing_country")),
        )),
        ("Description Information", (F("description", "Description", "textarea"),)),
        _system(),
    ),
)

LEAD = Layout(
    highlights=(F("title", "Title"), F("company", "Company"), F("phone", "Phone", "phone"), F("email", "Email", "email"), F("status", "Lead Status"), F("owner_id", "Lead Owner", "user")),
    sections=(
        ("Lead Information", (
            F("name", "Name", "name", parts=NAME_PARTS, required=True), F("owner_id", "Lead Owner", "user", required=True),
            F("company", "Company", required=True), F("status", "Lead Status", "select", options=pl.LEAD_STATUSES, required=True),
            F("title", "Title"), F("source", "Lead Source", "select", options=pl.LEAD_SOURCES),
            F("email", "Email", "email"), F("industry", "Industry", "select", options=pl.INDUSTRIES),
            F("phone", "Phone", "phone"), F("rating", "Rating", "select", options=pl.RATINGS),
            F("annual_revenue", "Annual Revenue", "money"), F("employees", "No. of Employees", "int"),
        )),
        ("Address Information", (
            F("address", "Address", "address", parts=("city", "state", "country")),
        )),
        ("Description Information", (F("description", "Description", "textarea"),)),
        _system(),
    ),
    path_field="status",
)

OPPORTUNITY = Layout(
    highlights=(F("account_id", "Account Name", "lookup", lookup="account"), F("close_date", "Close Date", "date"), F("amount", "Amount", "money"), F("owner_id", "Opportunity Owner", "user")),
    sections=(
        ("Opportunity Information", (
            F("name", "Opportunity Name", required=True), F("owner_id", "Opportunity Owner", "user", required=True),
            F("account_id", "Account Name", "lookup", lookup="account"), F("close_date", "Close Date", "date", required=True),
            F("type", "Type", "select", options=pl.OPPORTUNITY_TYPES), F("stage", "Stage", "select", options=pl.STAGE_NAMES, required=True),
            F("lead_source", "Lead Source", "select", options=pl.LEAD_SOURCES), F("probability", "Probability (%)", "percent"),
            F("amount", "Amount", "money"), F("forecast_category", "Forecast Category", "select", options=FORECAST_CATEGORIES),
            F("next_step", "Next Step"), F("loss_reason", "Loss Reason", "select", options=pl.LOSS_REASONS),
            F("main_competitors", "Main Competitor(s)"), F("campaign_id", "Primary Campaign Source", "lookup", lookup="campaign"),
            F("record_type_id", "Opportunity Record Type", "record_type", editable=False),
        )),
        ("Description Information", (F("description", "Description", "textarea"),)),
        _system(),
    ),
    path_field="stage",
)

CASE = Layout(
    highlights=(F("subject", "Subject"), F("priority", "Priority"), F("status", "Status"), F("account_id", "Account Name", "lookup", lookup="account"), F("owner_id", "Case Owner", "user")),
    sections=(
        ("Case Information", (
            F("case_number", "Case Number", "readonly"), F("owner_id", "Case Owner", "user", required=True),
            F("contact_id", "Contact Name", "lookup", lookup="contact"), F("status", "Status", "select", options=pl.CASE_STATUSES, required=True),
            F("account_id", "Account Name", "lookup", lookup="account"), F("priority", "Priority", "select", options=pl.CASE_PRIORITIES, required=True),
            F("type", "Type", "select", options=pl.CASE_TYPES), F("origin", "Case Origin", "select", options=pl.CASE_ORIGINS),
            F("reason", "Case Reason", "select", options=pl.CASE_REASONS), F("opened", "Date/Time Opened", "readonly"),
            F("closed_at", "Date/Time Closed", "datetime", editable=False), F("record_type_id", "Case Record Type", "record_type", editable=False),
        )),
        ("Description Information", (
            F("subject", "Subject", required=True, wide=True), F("description", "Description", "textarea"),
        )),
        _system(),
    ),
    path_field="status",
    title_field="subject",
)

LAYOUTS: dict[str, Layout] = {"account": ACCOUNT, "contact": CONTACT, "lead": LEAD, "opportunity": OPPORTUNITY, "case": CASE}


# -- activities: Salesforce's Task (a logged call is a task too) and Event pages -------------------------
def _who_what() -> tuple[FieldDef, ...]:
    # "Name" and "Related To" are Salesforce's labels for the who (a contact) and the what of an activity.
    return (F("contact_id", "Name", "lookup", lookup="contact"), F("related", "Related To", "related", editable=False))


def _activity_system() -> tuple[str, tuple[FieldDef, ...]]:
    return ("System Information", (F("created_by", "Created By", "readonly"), F("modified", "Last Modified Date", "readonly")))


def _assignee() -> FieldDef:
    return F("assignee_id", "Assigned To", "user", required=True)


TASK = Layout(
    highlights=(F("due_date", "Due Date", "date"), F("status", "Status"), F("priority", "Priority"), F("assignee_id", "Assigned To", "user"),
                F("related", "Related To", "related")),
    sections=(
        ("Task Information", (
            F("subject", "Subject", required=True), _assignee(),
            F("due_date", "Due Date", "date"), F("status", "Status", "select", options=pl.TASK_STATUSES, required=True),
            F("priority", "Priority", "select", options=pl.TASK_PRIORITIES, required=True), F("kind", "Type", "readonly"),
            *_who_what(), F("completed_at", "Completed Date/Time", "datetime", editable=False),
        )),
        ("Description Information", (F("description", "Comments", "textarea"),)),
        _activity_system(),
    ),
    title_field="subject",
)

CALL = Layout(
    highlights=(F("due_date", "Date", "date"), F("call_result", "Call Result"), F("status", "Status"), F("assignee_id", "Assigned To", "user"),
                F("related", "Related To", "related")),
    sections=(
        ("Call Information", (
            F("subject", "Subject", required=True), _assignee(),
            F("due_date", "Date", "date"), F("status", "Status", "select", options=pl.TASK_STATUSES, required=True),
            F("call_result", "Call Result", "select", options=pl.CALL_RESULTS), F("call_duration_min", "Call Duration (Minutes)", "int"),
            F("kind", "Type", "readonly"), F("completed_at", "Completed Date/Time", "datetime", editable=False),
            *_who_what(),
        )),
        ("Description Information", (F("description", "Comments", "textarea"),)),
        _activity_system(),
    ),
    title_field="subject",
)

EVENT = Layout(
    highlights=(F("start_at", "Start", "datetime"), F("end_at", "End", "datetime"), F("location", "Location"), F("assignee_id", "Assigned To", "user"),
                F("related", "Related To", "related")),
    sections=(
        ("Event Information", (
            F("subject", "Subject", required=True), _assignee(),
            F("start_at", "Start", "datetime", required=True), F("location", "Location"),
            F("end_at", "End", "datetime", required=True), F("kind", "Type", "readonly"),
            *_who_what(),
        )),
        ("Description Information", (F("description", "Description", "textarea"),)),
        _activity_system(),
    ),
    title_field="subject",
)

ACTIVITY_LAYOUTS: dict[str, Layout] = {"task": TASK, "call": CALL, "meeting": EVENT}


def layout_of(object_key: str, record) -> Layout:  # noqa: ANN001
    """The layout a record shows in: an activity's depends on its kind (task, call or event)."""
    if object_key == "activity":
        return ACTIVITY_LAYOUTS.get(record.kind, TASK)
    return LAYOUTS[object_key]
