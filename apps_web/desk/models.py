"""Service desk tables (prefixed ``desk_``). People are the identity's users; the customer account
of an incident is a CRM account id (a plain cross-app reference).

Datetimes are naive wall-clock times of the world clock, like the CRM's.
"""

from __future__ import annotations

from datetime import date

from pydantic import NaiveDatetime
from sqlalchemy import event
from sqlmodel import Field, Session, SQLModel

USER_FK = "identity_user.id"


class Stamps(SQLModel):
    created_at: NaiveDatetime | None = None
    updated_at: NaiveDatetime | None = None  # bookkeeping: verifiers ignore it


class Updated(SQLModel):
    # ServiceNow's sys_updated_by: the user name of whoever wrote the record last (the impersonated user
    # while an admin impersonates); empty for generated records. Bookkeeping too (see desk_impersonation)
    sys_updated_by: str | None = Field(default=None, max_length=64)


class Group(Stamps, table=True):
    """An assignment group (sys_user_group)."""

    __tablename__ = "desk_group"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True, max_length=80)
    description: str = ""
    manager_id: int | None = Field(default=None, foreign_key=USER_FK)
    email: str = Field(default="", max_length=254)


class GroupMember(SQLModel, table=True):
    __tablename__ = "desk_group_member"
    id: int | None = Field(default=None, primary_key=True)
    group_id: int = Field(foreign_key="desk_group.id", index=True)
    user_id: int = Field(foreign_key=USER_FK, index=True)


class ConfigItem(Stamps, table=True):
    """A configuration item (cmdb_ci): servers, applications, computers, databases, network gear."""

    __tablename__ = "desk_ci"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, max_length=120)
    ci_class: str = Field(max_length=40, index=True)
    operational_status: str = Field(default="Operational", max_length=40)
    environment: str | None = Field(default=None, max_length=20)
    asset_tag: str | None = Field(default=None, max_length=40)
    serial_number: str | None = Field(default=None, max_length=60)
    manufacturer: str | None = Field(default=None, max_length=80)
    model: str | None = Field(default=None, max_length=120)
    os: str | None = Field(default=None, max_length=80)
    ip_address: str | None = Field(default=None, max_length=45)
    location: str | None = Field(default=None, max_length=80)
    assigned_to_id: int | None = Field(default=None, foreign_key=USER_FK)
    support_group_id: int | None = Field(default=None, foreign_key="desk_group.id")
    install_date: date | None = None
    warranty_expiration: date | None = None
    description: str = ""


class Incident(Stamps, Updated, table=True):
    __tablename__ = "desk_incident"
    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(index=True, unique=True, max_length=20)
    caller_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)
    opened_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    opened_at: NaiveDatetime | None = None
    category: str | None = Field(default=None, max_length=40)
    subcategory: str | None = Field(default=None, max_length=40)
    ci_id: int | None = Field(default=None, foreign_key="desk_ci.id")
    channel: str | None = Field(default=None, max_length=20)
    state: str = Field(default="New", max_length=20, index=True)
    on_hold_reason: str | None = Field(default=None, max_length=40)
    impact: int = 3
    urgency: int = 3
    priority: int = 5
    assignment_group_id: int | None = Field(default=None, foreign_key="desk_group.id", index=True)
    assigned_to_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)
    # the customer affected: a plain id into the CRM (apps refer to each other by id, never by foreign
    # key, so deleting a CRM account never depends on another app)
    account_id: int | None = Field(default=None, index=True)
    short_description: str = Field(default="", max_length=160)
    description: str = ""
    close_code: str | None = Field(default=None, max_length=40)
    close_notes: str | None = None
    resolved_at: NaiveDatetime | None = None
    resolved_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    closed_at: NaiveDatetime | None = None
    problem_id: int | None = Field(default=None, foreign_key="desk_problem.id", index=True)


class Problem(Stamps, Updated, table=True):
    """A problem (PRB): the cause behind one or more incidents, with a workaround and a root cause."""

    __tablename__ = "desk_problem"
    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(index=True, unique=True, max_length=20)
    state: str = Field(default="New", max_length=30, index=True)
    category: str | None = Field(default=None, max_length=40)
    ci_id: int | None = Field(default=None, foreign_key="desk_ci.id")
    impact: int = 3
    urgency: int = 3
    priority: int = 5
    assignment_group_id: int | None = Field(default=None, foreign_key="desk_group.id")
    assigned_to_id: int | None = Field(default=None, foreign_key=USER_FK)
    opened_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    opened_at: NaiveDatetime | None = None
    first_reported_by_id: int | None = None  # an incident id (no foreign key: incidents refer to problems)
    short_description: str = Field(default="", max_length=160)
    description: str = ""
    workaround: str = ""
    cause_notes: str = ""
    fix_notes: str = ""
    resolution_code: str | None = Field(default=None, max_length=40)
    duplicate_of_id: int | None = Field(default=None, foreign_key="desk_problem.id")
    resolved_at: NaiveDatetime | None = None
    closed_at: NaiveDatetime | None = None


class ChangeRequest(Stamps, Updated, table=True):
    """A change request (CHG): normal, standard or emergency, planned on a configuration item."""

    __tablename__ = "desk_change"
    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(index=True, unique=True, max_length=20)
    type: str = Field(default="Normal", max_length=20)
    state: str = Field(default="New", max_length=20, index=True)
    category: str | None = Field(default=None, max_length=40)
    ci_id: int | None = Field(default=None, foreign_key="desk_ci.id", index=True)
    risk: str = Field(default="Moderate", max_length=20)
    impact: int = 3
    priority: int = 4
    requested_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    assignment_group_id: int | None = Field(default=None, foreign_key="desk_group.id")
    assigned_to_id: int | None = Field(default=None, foreign_key=USER_FK)
    opened_at: NaiveDatetime | None = None
    start_date: NaiveDatetime | None = None
    end_date: NaiveDatetime | None = None
    short_description: str = Field(default="", max_length=160)
    description: str = ""
    justification: str = ""
    implementation_plan: str = ""
    backout_plan: str = ""
    test_plan: str = ""
    approval: str = Field(default="not requested", max_length=20)
    close_code: str | None = Field(default=None, max_length=40)
    close_notes: str | None = None
    closed_at: NaiveDatetime | None = None


class Journal(SQLModel, table=True):
    """Work notes (internal) and additional comments (seen by the caller) of a record."""

    __tablename__ = "desk_journal"
    id: int | None = Field(default=None, primary_key=True)
    table_name: str = Field(max_length=40)  # incident | problem | change_request | sc_req_item
    record_id: int = Field(index=True)
    kind: str = Field(max_length=20)  # work_notes | comments
    author_id: int | None = Field(default=None, foreign_key=USER_FK)
    created_at: NaiveDatetime | None = None
    body: str = ""


class KnowledgeArticle(Stamps, Updated, table=True):
    __tablename__ = "desk_kb_article"
    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(index=True, unique=True, max_length=20)
    knowledge_base: str = Field(max_length=40)
    category: str = Field(max_length=60)
    title: str = Field(max_length=200)
    body: str = ""  # HTML made by the generator from escaped parts (the text is never edited)
    author_id: int | None = Field(default=None, foreign_key=USER_FK)
    workflow_state: str = Field(default="Published", max_length=20)
    published_on: date | None = None
    view_count: int = 0


class CatalogItem(Stamps, table=True):
    __tablename__ = "desk_catalog_item"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=120)
    category: str = Field(max_length=60)
    short_description: str = Field(default="", max_length=200)
    description: str = ""
    price: float = 0
    needs_approval: bool = True
    fulfillment_group_id: int | None = Field(default=None, foreign_key="desk_group.id")
    variables: str = "[]"  # JSON list of {name, label, type, choices, mandatory, default}
    active: bool = True


class Request(Stamps, table=True):
    __tablename__ = "desk_request"
    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(index=True, unique=True, max_length=20)
    requested_for_id: int | None = Field(default=None, foreign_key=USER_FK, index=True)
    opened_by_id: int | None = Field(default=None, foreign_key=USER_FK)
    opened_at: NaiveDatetime | None = None
    state: str = Field(default="Pending Approval", max_length=30)
    total: float = 0


class RequestedItem(Stamps, table=True):
    __tablename__ = "desk_req_item"
    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(index=True, unique=True, max_length=20)
    request_id: int = Field(foreign_key="desk_request.id", index=True)
    item_id: int = Field(foreign_key="desk_catalog_item.id")
    requested_for_id: int | None = Field(default=None, foreign_key=USER_FK)
    quantity: int = 1
    variables: str = "{}"  # JSON object: variable name -> value
    price: float = 0
    stage: str = Field(default="Waiting for Approval", max_length=30)
    state: str = Field(default="Open", max_length=30)
    approval: str = Field(default="requested", max_length=20)
    assignment_group_id: int | None = Field(default=None, foreign_key="desk_group.id")
    assigned_to_id: int | None = Field(default=None, foreign_key=USER_FK)


class Approval(Stamps, table=True):
    """An approval (sysapproval_approver) of a requested item or of a change request (CAB)."""

    __tablename__ = "desk_approval"
    id: int | None = Field(default=None, primary_key=True)
    approver_id: int = Field(foreign_key=USER_FK, index=True)
    req_item_id: int | None = Field(default=None, foreign_key="desk_req_item.id", index=True)
    change_id: int | None = Field(default=None, foreign_key="desk_change.id", index=True)
    state: str = Field(default="requested", max_length=20)
    comments: str = ""


class TaskSLA(SQLModel, table=True):
    """A task SLA (task_sla): one SLA timer of an incident, measured against the world clock.

    Whether it has breached is not stored: it depends on the clock while the timer runs (see slas.py).
    """

    __tablename__ = "desk_task_sla"
    id: int | None = Field(default=None, primary_key=True)
    task_id: int = Field(foreign_key="desk_incident.id", index=True)
    sla: str = Field(max_length=80)  # the definition's name, e.g. "Priority 2 resolution (8 hour)"
    target: str = Field(max_length=20)  # Response | Resolution
    stage: str = Field(default="In progress", max_length=20)  # In progress | Completed | Cancelled
    start_time: NaiveDatetime | None = None
    stop_time: NaiveDatetime | None = None
    breach_time: NaiveDatetime | None = None


class CIRelationship(SQLModel, table=True):
    """A CMDB relationship (cmdb_rel_ci): parent -> child, read both ways ("Depends on::Used by",
    "Runs on::Runs")."""

    __tablename__ = "desk_ci_rel"
    id: int | None = Field(default=None, primary_key=True)
    parent_id: int = Field(foreign_key="desk_ci.id", index=True)
    child_id: int = Field(foreign_key="desk_ci.id", index=True)
    type: str = Field(max_length=40)  # "Depends on::Used by" | "Runs on::Runs"


class UserRole(SQLModel, table=True):
    """A role granted to a user (sys_user_has_role): itil, itil_admin, admin, approver_user,
    catalog_admin, knowledge_admin. A user without a row is a self-service (ESS) user."""

    __tablename__ = "desk_user_role"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key=USER_FK, index=True)
    role: str = Field(max_length=40)
    granted_by_id: int | None = Field(default=None, foreign_key=USER_FK)  # empty for the generated grants
    created_at: NaiveDatetime | None = None


class Impersonation(SQLModel, table=True):
    """One impersonation (ServiceNow logs each start and end): who impersonated whom, from when to when.

    The session stays the admin's (an episode's persona is the signed-in user); an open row
    (``ended_at`` empty) is the impersonation in force, and verifiers read it here."""

    __tablename__ = "desk_impersonation"
    id: int | None = Field(default=None, primary_key=True)
    impersonator_id: int = Field(foreign_key=USER_FK, index=True)
    user_id: int = Field(foreign_key=USER_FK)
    started_at: NaiveDatetime | None = None
    ended_at: NaiveDatetime | None = None


@event.listens_for(Session, "before_flush")
def _stamp_updated_by(session: Session, _context, _instances) -> None:
    """sys_updated_by: the user the request acts as (``session.info["username"]``, set by the desk's
    user dependency), on every new or changed desk record that has the column."""
    who = session.info.get("username")
    if not who:
        return
    for obj in list(session.new) + [o for o in session.dirty if session.is_modified(o)]:
        if isinstance(obj, Updated):
            obj.sys_updated_by = who
