"""Choice lists of the service desk, with ServiceNow's values and labels.

Stored values are what the UI shows (state "In Progress", category "Network"), except impact, urgency
and priority, which ServiceNow stores as numbers (1 = highest) and shows as "1 - High".
"""

from __future__ import annotations

INCIDENT_STATES = ["New", "In Progress", "On Hold", "Resolved", "Closed", "Canceled"]
OPEN_STATES = ("New", "In Progress", "On Hold")
DONE_STATES = ("Resolved", "Closed")  # resolution code and notes are mandatory
READ_ONLY_STATES = ("Closed", "Canceled")

HOLD_REASONS = ["Awaiting Caller", "Awaiting Change", "Awaiting Problem", "Awaiting Vendor"]

CLOSE_CODES = [
    "Duplicate", "Known error", "No resolution provided", "Resolved by caller", "Resolved by change",
    "Resolved by problem", "Resolved by request", "Solution provided", "Workaround provided", "User error",
]

CHANNELS = ["Phone", "Email", "Self-service", "Walk-in", "Chat", "Virtual Agent"]

IMPACT = {1: "1 - High", 2: "2 - Medium", 3: "3 - Low"}
URGENCY = IMPACT
PRIORITY = {1: "1 - Critical", 2: "2 - High", 3: "3 - Moderate", 4: "4 - Low", 5: "5 - Planning"}


def priority_of(impact: int, urgency: int) -> int:
    """ServiceNow's default priority lookup: 1-1 Critical, 1-2/2-1 High, 1-3/2-2/3-1 Moderate,
    2-3/3-2 Low, 3-3 Planning (that is, impact + urgency - 1)."""
    return int(impact) + int(urgency) - 1


# Category -> subcategories (dependent choice list), extending ServiceNow's out-of-box values.
CATEGORIES: dict[str, list[str]] = {
    "Inquiry / Help": ["Antivirus", "Email", "Internal Application", "Password Reset"],
    "Software": ["Email", "Operating System", "Business Application", "Installation"],
    "Hardware": ["CPU", "Disk", "Keyboard", "Laptop", "Memory", "Monitor", "Mouse", "Printer"],
    "Network": ["DHCP", "DNS", "IP Address", "VPN", "Wireless"],
    "Database": ["DB2", "MS SQL Server", "Oracle", "PostgreSQL"],
}

GROUPS = [
    ("Service Desk", "First line: takes every call, chat and portal ticket, solves what it can and routes the rest."),
    ("Network", "LAN, WAN, wireless, VPN, DNS and DHCP for every office and the data centres."),
    ("Database", "Production and test databases: Oracle, SQL Server, PostgreSQL and DB2."),
    ("Hardware", "Laptops, desktops, monitors, peripherals and operating system builds."),
    ("Application Support", "Business applications, internal tools and software installation."),
    ("Messaging", "Email, calendars, distribution lists and mobile mail."),
    ("Identity & Access", "Accounts, passwords, MFA, single sign-on and access requests."),
]


def protocol_group(category: str, subcategory: str) -> str:
    """The assignment rule of the Company Protocols article "Incident assignment by category"."""
    if subcategory == "Email":
        return "Messaging"
    if subcategory == "Password Reset":
        return "Identity & Access"
    if subcategory in ("Antivirus", "Printer"):
        return "Service Desk"
    if subcategory == "Operating System":
        return "Hardware"
    return {
        "Inquiry / Help": "Application Support",
        "Software": "Application Support",
        "Hardware": "Hardware",
        "Network": "Network",
        "Database": "Database",
    }[category]


CI_CLASSES = ["Server", "Application", "Computer", "Database", "Network Gear", "Printer"]
CI_STATUSES = ["Operational", "Non-Operational", "Repair in Progress", "Retired"]
ENVIRONMENTS = ["Production", "Test", "Development"]

KB_BASES = ["IT", "Company Protocols"]
KB_STATES = ["Published", "Draft", "Retired"]

REQUEST_STATES = ["Pending Approval", "Approved", "Closed Complete", "Closed Rejected"]
RITM_STAGES = ["Waiting for Approval", "Fulfillment", "Delivery", "Completed", "Request Cancelled"]
RITM_STATES = ["Open", "Work in Progress", "Closed Complete", "Closed Incomplete"]
APPROVAL_STATES = {"requested": "Requested", "approved": "Approved", "rejected": "Rejected"}

# Problems (problem management): the states of ServiceNow's problem model and its resolution codes.
PROBLEM_STATES = ["New", "Assess", "Root Cause Analysis", "Fix in Progress", "Resolved", "Closed"]
PROBLEM_OPEN = ("New", "Assess", "Root Cause Analysis", "Fix in Progress")
PROBLEM_CODES = ["Fix Applied", "Risk Accepted", "Canceled", "Duplicate"]

# Change requests: types, the normal change model's states, risk and close codes.
CHANGE_TYPES = ["Normal", "Standard", "Emergency"]
CHANGE_STATES = ["New", "Assess", "Authorize", "Scheduled", "Implement", "Review", "Closed", "Canceled"]
CHANGE_OPEN = ("New", "Assess", "Authorize", "Scheduled", "Implement", "Review")
CHANGE_RISKS = ["High", "Moderate", "Low"]
CHANGE_CATEGORIES = ["Hardware", "Software", "Network", "Database", "Security", "Other"]
CHANGE_CLOSE_CODES = ["Successful", "Successful with issues", "Unsuccessful"]
CHANGE_APPROVALS = ["not requested", "requested", "approved", "rejected"]
