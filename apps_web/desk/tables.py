"""The desk's tables as the list, the condition builder and the API see them: ServiceNow table names
(incident, cmdb_ci, kb_knowledge...), fields with labels and types, list columns and the form URL.

Field types decide the operators of the condition builder: string, choice, number (ints shown through
``labels``), reference (to another table, compared by its display value), datetime and boolean.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from datetime import datetime

from sqlalchemy import literal_column, select

from ..world.clock import DEFAULT_CLOCK
from sqlmodel import SQLModel

from ..identity.models import User
from . import choices as C
from .models import Approval, CatalogItem, ChangeRequest, TaskSLA, ConfigItem, Group, Incident, KnowledgeArticle, Problem, Request, RequestedItem


@dataclass(frozen=True)
class Col:
    name: str  # the query name (ServiceNow's): caller_id -> "caller_id", assignment_group...
    label: str
    type: str = "string"  # string | choice | number | reference | datetime | date | boolean
    column: str = ""  # the model attribute (defaults to name)
    ref: str = ""  # referenced table key (reference fields)
    choices: tuple = ()  # choice values, or (value, label) pairs for numbers
    list: bool = True  # offered in the condition builder

    @property
    def attr(self) -> str:
        return self.column or self.name

    def label_of(self, value: Any) -> str:
        if value is None:
            return ""
        for c in self.choices:
            if isinstance(c, tuple) and c[0] == value:
                return c[1]
        if self.type == "boolean":
            return "true" if value else "false"
        return str(value)


@dataclass(frozen=True)
class Ref:
    """How a table is shown when referenced: its display value and the form of one record."""

    model: type[SQLModel]
    display: Any  # SQL expression of the display value
    form: str  # URL of a record's form, with {id}


@dataclass(frozen=True)
class Table:
    key: str
    label: str  # plural, list title
    singular: str
    model: type[SQLModel]
    cols: tuple[Col, ...]
    columns: tuple[str, ...]  # list columns
    default_order: str = "-number"
    number_col: str = "number"
    extra: dict = field(default_factory=dict)

    def col(self, name: str) -> Col | None:
        return next((c for c in self.cols if c.name == name), None)

    @property
    def list_url(self) -> str:
        return f"/{self.key}_list.do"

    def form_url(self, record_id: int | str) -> str:
        return REFS[self.key].form.format(id=record_id)


def _pairs(d: dict) -> tuple:
    return tuple(d.items())


USER_NAME = (User.first_name + literal_column("' '") + User.last_name)

REFS: dict[str, Ref] = {
    "sys_user": Ref(User, USER_NAME, "/sys_user.do?sys_id={id}"),
    "sys_user_group": Ref(Group, Group.name, "/sys_user_group.do?sys_id={id}"),
    "cmdb_ci": Ref(ConfigItem, ConfigItem.name, "/cmdb_ci.do?sys_id={id}"),
    "incident": Ref(Incident, Incident.number, "/incident.do?sys_id={id}"),
    "problem": Ref(Problem, Problem.number, "/problem.do?sys_id={id}"),
    "task_sla": Ref(TaskSLA, TaskSLA.sla, "/task_sla.do?sys_id={id}"),
    "change_request": Ref(ChangeRequest, ChangeRequest.number, "/change_request.do?sys_id={id}"),
    "kb_knowledge": Ref(KnowledgeArticle, KnowledgeArticle.number, "/kb_view.do?sys_id={id}"),
    "sc_cat_item": Ref(CatalogItem, CatalogItem.name, "/sc_cat_item.do?sys_id={id}"),
    "sc_request": Ref(Request, Request.number, "/sc_request.do?sys_id={id}"),
    "sc_req_item": Ref(RequestedItem, RequestedItem.number, "/sc_req_item.do?sys_id={id}"),
    "sysapproval_approver": Ref(Approval, Approval.id, "/sysapproval_approver.do?sys_id={id}"),
}


def _account_ref() -> Ref | None:
    """The CRM's accounts, when the CRM is installed (the customer of an incident)."""
    try:
        from ..crm.models import Account
    except ImportError:  # pragma: no cover - a host without the CRM
        return None
    return Ref(Account, Account.name, "")


_acct = _account_ref()
if _acct is not None:
    REFS["customer_account"] = _acct

INCIDENT_COLS = (
    Col("number", "Number"),
    Col("opened_at", "Opened", "datetime"),
    Col("short_description", "Short description"),
    Col("description", "Description", list=True),
    Col("caller_id", "Caller", "reference", ref="sys_user"),
    Col("category", "Category", "choice", choices=tuple(C.CATEGORIES)),
    Col("subcategory", "Subcategory", "choice", choices=tuple(sorted({s for v in C.CATEGORIES.values() for s in v}))),
    Col("cmdb_ci", "Configuration item", "reference", column="ci_id", ref="cmdb_ci"),
    Col("contact_type", "Channel", "choice", column="channel", choices=tuple(C.CHANNELS)),
    Col("state", "State", "choice", choices=tuple(C.INCIDENT_STATES)),
    Col("hold_reason", "On hold reason", "choice", column="on_hold_reason", choices=tuple(C.HOLD_REASONS)),
    Col("impact", "Impact", "number", choices=_pairs(C.IMPACT)),
    Col("urgency", "Urgency", "number", choices=_pairs(C.URGENCY)),
    Col("priority", "Priority", "number", choices=_pairs(C.PRIORITY)),
    Col("assignment_group", "Assignment group", "reference", column="assignment_group_id", ref="sys_user_group"),
    Col("assigned_to", "Assigned to", "reference", column="assigned_to_id", ref="sys_user"),
    Col("company", "Customer account", "reference", column="account_id", ref="customer_account"),
    Col("close_code", "Resolution code", "choice", choices=tuple(C.CLOSE_CODES)),
    Col("close_notes", "Resolution notes"),
    Col("resolved_at", "Resolved", "datetime"),
    Col("resolved_by", "Resolved by", "reference", column="resolved_by_id", ref="sys_user"),
    Col("closed_at", "Closed", "datetime"),
    Col("opened_by", "Opened by", "reference", column="opened_by_id", ref="sys_user"),
    Col("problem_id", "Problem", "reference", ref="problem"),
    Col("sla_breached", "SLA breached", "boolean", column="__incident_breached__"),
    Col("sys_updated_on", "Updated", "datetime", column="updated_at"),
)

SLA_COLS = (
    Col("task", "Task", "reference", column="task_id", ref="incident"),
    Col("sla", "SLA definition"),
    Col("target", "Target", "choice", choices=("Response", "Resolution")),
    Col("stage", "Stage", "choice", choices=("In progress", "Completed", "Cancelled")),
    Col("has_breached", "Has breached", "boolean", column="__sla_breached__"),
    Col("start_time", "Start time", "datetime"),
    Col("end_time", "Stop time", "datetime", column="stop_time"),
    Col("planned_end_time", "Breach time", "datetime", column="breach_time"),
)

PROBLEM_COLS = (
    Col("number", "Number"),
    Col("opened_at", "Opened", "datetime"),
    Col("short_description", "Problem statement"),
    Col("description", "Description"),
    Col("category", "Category", "choice", choices=tuple(C.CATEGORIES)),
    Col("cmdb_ci", "Configuration item", "reference", column="ci_id", ref="cmdb_ci"),
    Col("state", "State", "choice", choices=tuple(C.PROBLEM_STATES)),
    Col("impact", "Impact", "number", choices=_pairs(C.IMPACT)),
    Col("urgency", "Urgency", "number", choices=_pairs(C.URGENCY)),
    Col("priority", "Priority", "number", choices=_pairs(C.PRIORITY)),
    Col("assignment_group", "Assignment group", "reference", column="assignment_group_id", ref="sys_user_group"),
    Col("assigned_to", "Assigned to", "reference", column="assigned_to_id", ref="sys_user"),
    Col("first_reported_by_task", "First reported by", "reference", column="first_reported_by_id", ref="incident"),
    Col("workaround", "Workaround"),
    Col("cause_notes", "Cause notes"),
    Col("fix_notes", "Fix notes"),
    Col("resolution_code", "Resolution code", "choice", choices=tuple(C.PROBLEM_CODES)),
    Col("duplicate_of", "Duplicate of", "reference", column="duplicate_of_id", ref="problem"),
    Col("resolved_at", "Resolved", "datetime"),
    Col("closed_at", "Closed", "datetime"),
    Col("opened_by", "Opened by", "reference", column="opened_by_id", ref="sys_user"),
    Col("sys_updated_on", "Updated", "datetime", column="updated_at"),
)

CHANGE_COLS = (
    Col("number", "Number"),
    Col("short_description", "Short description"),
    Col("description", "Description"),
    Col("type", "Type", "choice", choices=tuple(C.CHANGE_TYPES)),
    Col("state", "State", "choice", choices=tuple(C.CHANGE_STATES)),
    Col("category", "Category", "choice", choices=tuple(C.CHANGE_CATEGORIES)),
    Col("cmdb_ci", "Configuration item", "reference", column="ci_id", ref="cmdb_ci"),
    Col("risk", "Risk", "choice", choices=tuple(C.CHANGE_RISKS)),
    Col("impact", "Impact", "number", choices=_pairs(C.IMPACT)),
    Col("priority", "Priority", "number", choices=_pairs(C.PRIORITY)),
    Col("requested_by", "Requested by", "reference", column="requested_by_id", ref="sys_user"),
    Col("assignment_group", "Assignment group", "reference", column="assignment_group_id", ref="sys_user_group"),
    Col("assigned_to", "Assigned to", "reference", column="assigned_to_id", ref="sys_user"),
    Col("start_date", "Planned start date", "datetime"),
    Col("end_date", "Planned end date", "datetime"),
    Col("approval", "Approval", "choice", choices=tuple(C.CHANGE_APPROVALS)),
    Col("justification", "Justification"),
    Col("implementation_plan", "Implementation plan"),
    Col("backout_plan", "Backout plan"),
    Col("test_plan", "Test plan"),
    Col("close_code", "Close code", "choice", choices=tuple(C.CHANGE_CLOSE_CODES)),
    Col("close_notes", "Close notes"),
    Col("opened_at", "Opened", "datetime"),
    Col("sys_updated_on", "Updated", "datetime", column="updated_at"),
)

TABLES: dict[str, Table] = {
    t.key: t
    for t in [
        Table("incident", "Incidents", "Incident", Incident, INCIDENT_COLS,
              ("number", "opened_at", "short_description", "caller_id", "priority", "state", "category", "assignment_group", "assigned_to", "sys_updated_on")),
        Table("task_sla", "Task SLAs", "Task SLA", TaskSLA, SLA_COLS,
              ("task", "sla", "target", "stage", "has_breached", "start_time", "end_time", "planned_end_time"), default_order="-start_time", number_col="task"),
        Table("problem", "Problems", "Problem", Problem, PROBLEM_COLS,
              ("number", "opened_at", "short_description", "priority", "state", "category", "assignment_group", "assigned_to", "sys_updated_on")),
        Table("change_request", "Change Requests", "Change Request", ChangeRequest, CHANGE_COLS,
              ("number", "short_description", "type", "state", "cmdb_ci", "risk", "start_date", "end_date", "assignment_group", "approval")),
        Table("cmdb_ci", "Configuration Items", "Configuration Item", ConfigItem, (
            Col("name", "Name"), Col("sys_class_name", "Class", "choice", column="ci_class", choices=tuple(C.CI_CLASSES)),
            Col("operational_status", "Operational status", "choice", choices=tuple(C.CI_STATUSES)),
            Col("environment", "Environment", "choice", choices=tuple(C.ENVIRONMENTS)),
            Col("asset_tag", "Asset tag"), Col("serial_number", "Serial number"), Col("manufacturer", "Manufacturer"),
            Col("model_id", "Model", column="model"), Col("os", "Operating System"), Col("ip_address", "IP Address"),
            Col("location", "Location"), Col("assigned_to", "Assigned to", "reference", column="assigned_to_id", ref="sys_user"),
            Col("support_group", "Support group", "reference", column="support_group_id", ref="sys_user_group"),
            Col("install_date", "Installed", "date"), Col("warranty_expiration", "Warranty expiration", "date"),
            Col("short_description", "Description", column="description"),
        ), ("name", "sys_class_name", "operational_status", "environment", "assigned_to", "location", "support_group"), default_order="name", number_col="name"),
        Table("kb_knowledge", "Knowledge Articles", "Knowledge Article", KnowledgeArticle, (
            Col("number", "Number"), Col("short_description", "Short description", column="title"),
            Col("kb_knowledge_base", "Knowledge base", "choice", column="knowledge_base", choices=tuple(C.KB_BASES)),
            Col("kb_category", "Category", column="category"), Col("workflow_state", "Workflow", "choice", choices=tuple(C.KB_STATES)),
            Col("author", "Author", "reference", column="author_id", ref="sys_user"), Col("published", "Published", "date", column="published_on"),
            Col("sys_view_count", "View count", "number", column="view_count"),
        ), ("number", "short_description", "kb_knowledge_base", "kb_category", "workflow_state", "author", "published", "sys_view_count")),
        # Service Catalog > Maintain Items: catalog administrators' list, whose rows open the item's form (not the order page)
        Table("sc_cat_item", "Catalog Items", "Catalog Item", CatalogItem, (
            Col("name", "Name"), Col("short_description", "Short description"),
            Col("category", "Category", "choice", choices=("Hardware", "Peripherals", "Mobile", "Software", "Network", "Messaging", "Onboarding")),
            Col("price", "Price", "number"), Col("active", "Active", "boolean"),
            Col("fulfillment_group", "Fulfillment group", "reference", column="fulfillment_group_id", ref="sys_user_group"),
            Col("sys_updated_on", "Updated", "datetime", column="updated_at"),
        ), ("name", "category", "price", "active", "short_description", "sys_updated_on"), default_order="name", number_col="name",
              extra={"list_op": "write", "form": "/sc_cat_item_maintain.do?sys_id={id}", "new": "/sc_cat_item_maintain.do?sys_id=-1"}),
        Table("sc_request", "Requests", "Request", Request, (
            Col("number", "Number"), Col("requested_for", "Requested for", "reference", column="requested_for_id", ref="sys_user"),
            Col("opened_at", "Opened", "datetime"), Col("request_state", "Request state", "choice", column="state", choices=tuple(C.REQUEST_STATES)),
            Col("price", "Total", "number", column="total"), Col("opened_by", "Opened by", "reference", column="opened_by_id", ref="sys_user"),
        ), ("number", "requested_for", "opened_at", "request_state", "price")),
        Table("sc_req_item", "Requested Items", "Requested Item", RequestedItem, (
            Col("number", "Number"), Col("request", "Request", "reference", column="request_id", ref="sc_request"),
            Col("cat_item", "Item", "reference", column="item_id", ref="sc_cat_item"),
            Col("requested_for", "Requested for", "reference", column="requested_for_id", ref="sys_user"),
            Col("quantity", "Quantity", "number"), Col("price", "Price", "number"),
            Col("stage", "Stage", "choice", choices=tuple(C.RITM_STAGES)), Col("state", "State", "choice", choices=tuple(C.RITM_STATES)),
            Col("approval", "Approval", "choice", choices=_pairs(C.APPROVAL_STATES)),
            Col("assignment_group", "Assignment group", "reference", column="assignment_group_id", ref="sys_user_group"),
            Col("assigned_to", "Assigned to", "reference", column="assigned_to_id", ref="sys_user"),
            Col("sys_created_on", "Created", "datetime", column="created_at"),
        ), ("number", "cat_item", "requested_for", "stage", "approval", "price", "assignment_group", "sys_created_on")),
        Table("sysapproval_approver", "Approvals", "Approval", Approval, (
            Col("state", "State", "choice", choices=_pairs(C.APPROVAL_STATES)),
            Col("approver", "Approver", "reference", column="approver_id", ref="sys_user"),
            Col("sysapproval", "Approval for", "reference", column="req_item_id", ref="sc_req_item"),
            Col("change_request", "Change request", "reference", column="change_id", ref="change_request"),
            Col("comments", "Comments"), Col("sys_created_on", "Created", "datetime", column="created_at"),
        ), ("sysapproval", "change_request", "state", "approver", "sys_created_on"), default_order="-sys_created_on", number_col="sysapproval"),
        Table("sys_user", "Users", "User", User, (
            Col("name", "Name", column="__name__"), Col("user_name", "User ID", column="username"), Col("email", "Email"),
            Col("title", "Title"), Col("department", "Department"), Col("phone", "Business phone", column="phone"),
            Col("manager", "Manager", "reference", column="manager_id", ref="sys_user"), Col("active", "Active", "boolean"),
        ), ("name", "user_name", "email", "title", "department", "manager"), default_order="name", number_col="name"),
        Table("sys_user_group", "Groups", "Group", Group, (
            Col("name", "Name"), Col("description", "Description"), Col("manager", "Manager", "reference", column="manager_id", ref="sys_user"),
            Col("email", "Group email"),
        ), ("name", "manager", "email", "description"), default_order="name", number_col="name"),
    ]
}


def _computed(now: datetime) -> dict[str, Any]:
    from .slas import breached_sql, incident_breached_sql

    return {"__sla_breached__": breached_sql(now), "__incident_breached__": incident_breached_sql(now)}


def attr(table: Table, col: Col, now: datetime | None = None):
    """The SQL expression of a column (the user's name is computed; SLA breaches depend on the clock)."""
    if col.attr == "__name__":
        return USER_NAME
    if col.attr.startswith("__"):
        return _computed(now or DEFAULT_CLOCK)[col.attr]
    return getattr(table.model, col.attr)


def value(session, table: Table, col: Col, row: Any, now: datetime | None = None) -> Any:
    """A row's value of a column, computed ones included."""
    if col.attr == "__name__":
        return row.name
    if col.attr == "__sla_breached__":
        from .slas import breached

        return breached(row, now or DEFAULT_CLOCK)
    if col.attr == "__incident_breached__":
        return _incident_breached(session, row.id, now or DEFAULT_CLOCK)
    return getattr(row, col.attr)


def _incident_breached(session, incident_id: int, now: datetime) -> bool:
    from .slas import breached_sql

    return session.execute(select(TaskSLA.id).where(TaskSLA.task_id == incident_id, breached_sql(now)).limit(1)).first() is not None
