"""The application navigator ("All" menu): modules grouped by application, as in ServiceNow, each
shown only to the roles that may use it (a self-service user sees Self-Service, the catalog and
knowledge; User Administration is for admins)."""

from __future__ import annotations

from urllib.parse import quote

ME = "javascript:gs.getUserID()"
MY_INCIDENTS = f"caller_id={ME}"


def _list(table: str, query: str = "") -> str:
    return f"/{table}_list.do" + (f"?sysparm_query={quote(query, safe='=^')}" if query else "")


NAVIGATOR: list[tuple[str, list[tuple[str, str]]]] = [
    ("Self-Service", [
        ("Homepage", "/"),
        ("Dashboard", "/dashboard"),
        ("Service Catalog", "/catalog"),
        ("Knowledge", "/kb"),
        ("Incidents", _list("incident", MY_INCIDENTS)),
        ("My Requests", _list("sc_req_item", f"requested_for={ME}")),
        ("My Approvals", _list("sysapproval_approver", f"approver={ME}^state=requested")),
    ]),
    ("Incident", [
        ("Create New", "/incident.do?sys_id=-1"),
        ("Assigned to me", _list("incident", f"assigned_to={ME}^stateINNew,In Progress,On Hold")),
        ("Open", _list("incident", "state!=Resolved^state!=Closed^state!=Canceled")),
        ("Open - Unassigned", _list("incident", "state!=Resolved^state!=Closed^state!=Canceled^assigned_toISEMPTY")),
        ("Resolved", _list("incident", "state=Resolved")),
        ("All", _list("incident")),
    ]),
    ("Problem", [
        ("Create New", "/problem.do?sys_id=-1"),
        ("Assigned to me", _list("problem", f"assigned_to={ME}^stateINNew,Assess,Root Cause Analysis,Fix in Progress")),
        ("Open", _list("problem", "stateINNew,Assess,Root Cause Analysis,Fix in Progress")),
        ("All", _list("problem")),
    ]),
    ("Change", [
        ("Create New", "/change_request.do?sys_id=-1"),
        ("Assigned to me", _list("change_request", f"assigned_to={ME}^stateINNew,Assess,Authorize,Scheduled,Implement,Review")),
        ("Open", _list("change_request", "stateINNew,Assess,Authorize,Scheduled,Implement,Review")),
        ("Scheduled", _list("change_request", "state=Scheduled^ORDERBYstart_date")),
        ("All", _list("change_request")),
    ]),
    ("Service Level Management", [
        ("Task SLAs", _list("task_sla")),
        ("In progress", _list("task_sla", "stage=In progress")),
        ("Breached", _list("task_sla", "has_breached=true")),
        ("Incidents with breached SLAs", _list("incident", "sla_breached=true^stateINNew,In Progress,On Hold")),
    ]),
    ("Service Catalog", [
        ("Catalog", "/catalog"),
        ("Maintain Items", _list("sc_cat_item")),
        ("Requests", _list("sc_request")),
        ("Requested Items", _list("sc_req_item")),
    ]),
    ("Approvals", [
        ("My Approvals", _list("sysapproval_approver", f"approver={ME}^state=requested")),
        ("All Approvals", _list("sysapproval_approver")),
    ]),
    ("Knowledge", [
        ("Home", "/kb"),
        ("All Articles", _list("kb_knowledge")),
        ("Company Protocols", _list("kb_knowledge", "kb_knowledge_base=Company Protocols")),
    ]),
    ("Configuration", [
        ("Servers", _list("cmdb_ci", "sys_class_name=Server")),
        ("Computers", _list("cmdb_ci", "sys_class_name=Computer")),
        ("Applications", _list("cmdb_ci", "sys_class_name=Application")),
        ("Databases", _list("cmdb_ci", "sys_class_name=Database")),
        ("All CIs", _list("cmdb_ci")),
    ]),
    ("Reports", [
        ("Service Desk Dashboard", "/dashboard"),
        ("Open incidents by group", _list("incident", "stateINNew,In Progress,On Hold^GROUPBYassignment_group")),
        ("Changes by state", _list("change_request", "GROUPBYstate")),
    ]),
    ("User Administration", [
        ("Users", _list("sys_user")),
        ("Groups", _list("sys_user_group")),
    ]),
]

ITIL = ("itil",)
# application -> roles that see it (None: everyone); module (application, label) -> roles, where they differ
APPLICATION_ROLES: dict[str, tuple[str, ...] | None] = {
    "Self-Service": None, "Service Catalog": None, "Approvals": None, "Knowledge": None, "User Administration": ("admin",),
}
MODULE_ROLES: dict[tuple[str, str], tuple[str, ...]] = {
    ("Self-Service", "Dashboard"): ITIL, ("Service Catalog", "Requests"): ITIL, ("Service Catalog", "Requested Items"): ITIL,
    ("Approvals", "All Approvals"): ITIL,
    ("Service Catalog", "Maintain Items"): ("catalog_admin",),
}


def navigator_for(acc) -> list[tuple[str, list[tuple[str, str]]]]:  # noqa: ANN001 - the request's Access
    """The applications and modules the acting user may use (everything when no one is known)."""
    if acc is None:
        return NAVIGATOR
    out = []
    for application, modules in NAVIGATOR:
        roles = APPLICATION_ROLES.get(application, ITIL)
        if roles is not None and not acc.has(*roles):
            continue
        shown = [(label, href) for label, href in modules if acc.has(*MODULE_ROLES.get((application, label), ())) or (application, label) not in MODULE_ROLES]
        if shown:
            out.append((application, shown))
    return out
