"""The knowledge base: IT troubleshooting articles (one per known issue, with steps tied to it) and the
"Company Protocols" base whose procedures tasks refer to (assignment rules, priorities, approvals...)."""

from __future__ import annotations

from datetime import timedelta
from html import escape

from ...world.seeding import SeedContext
from ..choices import CATEGORIES, CLOSE_CODES, GROUPS, PRIORITY, protocol_group
from ..models import KnowledgeArticle
from . import vocab as V
from .base import insert
from .people import Staff

APPROVAL_LIMIT = 1500  # requests above this need the requester's manager's approval (see the catalog)
LAPTOP_REFRESH_YEARS = 3


def _p(*texts: str) -> str:
    return "".join(f"<p>{escape(t)}</p>" for t in texts)


def _ol(items: list[str]) -> str:
    return "<ol>" + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ol>"


def _table(head: list[str], rows: list[list[str]]) -> str:
    h = "".join(f"<th>{escape(c)}</th>" for c in head)
    b = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{b}</tbody></table>"


STEPS = {
    "Inquiry / Help": ["Confirm the user's account is active and not locked in the directory.", "Ask the user to sign out of every session and sign in again.", "Clear cached credentials in Credential Manager.", "If the problem continues, check the user's group memberships against their role."],
    "Software": ["Note the exact error text and the application version (Help > About).", "Repair the installation from Software Center.", "Remove the local profile cache and start the application again.", "Collect the logs and attach them to the incident before escalating."],
    "Hardware": ["Record the asset tag and serial number of the device.", "Run the vendor's built-in diagnostics (F12 on Dell and Lenovo, D at boot on Mac).", "Check the warranty expiration in the CMDB before ordering parts.", "If the device must be swapped, back up the user's data first."],
    "Network": ["Find the user's site and switch port (check the wall port label).", "Run ipconfig /all and traceroute to the gateway; attach the output.", "Check the monitoring dashboard for the site before changing anything.", "Changes to switches or DHCP scopes need an approved change request."],
    "Database": ["Identify the database CI and its environment.", "Check the alert log for the error reported and the first time it occurred.", "Do not restart production databases outside a maintenance window.", "Escalate to the on-call DBA for priority 1 and 2 incidents."],
}


CHANGE_PROTOCOLS = [
    ("Change windows",
     _p("Normal changes to production configuration items are implemented only in the maintenance windows: every Tuesday "
        "and Thursday from 20:00 to 23:59. The planned start date must be at or after 20:00 and the planned end date no later "
        "than 23:59 on the same day.",
        "Never schedule a change that overlaps another open change on the same configuration item. The change form warns of "
        "such a conflict under Schedule and lists the other change in its Conflicts list: move your change to the next "
        "window that has no conflict.",
        "Standard changes (pre-approved) may run on any weekday evening from 18:00. Emergency changes may run at any time "
        "once the group manager has approved them.")),
    ("CAB approval of normal changes",
     _p("The Change Advisory Board (CAB) approves normal and emergency changes. For each change, the approval goes to the "
        "manager of the change's assignment group, who finds it in My Approvals.")
     + "<h3>Approve a change only if all of these hold</h3>"
     + _ol(["It has an implementation plan, a backout plan and a test plan.",
            "Its planned window is inside a maintenance window (see Change windows).",
            "It has no conflict with another open change on the same configuration item.",
            "A High risk change also states its justification."])
     + _p("Otherwise reject it, with a comment that names the rule it breaks (for example \"No backout plan\"). A rejected "
          "change goes back to New; the requester fixes it and requests approval again.")),
]


def seed_knowledge(ctx: SeedContext, staff: Staff) -> None:
    rng = ctx.random("desk.knowledge")
    now = ctx.clock.now
    authors = staff.members[staff.groups["Service Desk"]] + staff.members[staff.groups["Application Support"]]
    rows: list[dict] = []

    def add(base: str, category: str, title: str, body: str, state: str = "Published", author: int | None = None) -> None:
        published = now - timedelta(days=rng.randint(20, 700))
        rows.append({"id": len(rows) + 1, "number": f"KB{10001 + len(rows):07d}", "knowledge_base": base, "category": category,
                     "title": title, "body": body, "author_id": author or rng.choice(authors), "workflow_state": state,
                     "published_on": published.date() if state != "Draft" else None, "view_count": rng.randint(3, 4200),
                     "created_at": published - timedelta(days=rng.randint(1, 30)), "updated_at": published + timedelta(days=rng.randint(0, 19))})

    # Company Protocols first: their numbers are stable whatever the IT articles become.
    lead = staff.members[staff.groups["Service Desk"]][0]
    rule_rows = [[cat, sub, protocol_group(cat, sub)] for cat, subs in CATEGORIES.items() for sub in subs]
    add("Company Protocols", "Incident Management", "Incident assignment by category",
        _p("Every new incident is assigned to a group by its category and subcategory, using the table below. The Service Desk "
           "assigns the group when it triages the ticket; leave Assigned to empty so the group's lead can dispatch it, unless you "
           "are a member of that group and take it yourself.")
        + _table(["Category", "Subcategory", "Assignment group"], rule_rows)
        + _p("Exceptions: an incident whose configuration item is a database always goes to Database, whatever its category. "
             "If the category is wrong, correct it first, then assign by the corrected category."), author=lead)
    add("Company Protocols", "Incident Management", "Incident priority matrix",
        _p("Priority is never typed in: it follows from impact and urgency.")
        + _table(["Impact", "Urgency", "Priority"], [[i, u, PRIORITY[i + u - 1]] for i in (1, 2, 3) for u in (1, 2, 3)])
        + _p("Impact 1 - High means a whole site, a department or a customer-facing service is affected. Urgency 1 - High means "
             "work has stopped and there is no workaround. Priority 1 incidents follow the Major incident procedure."), author=lead)
    add("Company Protocols", "Incident Management", "Resolving and closing incidents",
        _p("Resolve an incident only when the caller's issue is fixed or a workaround is in place. Set the state to Resolved, "
           "choose the Resolution code that fits and write Resolution notes that say what was done, in words the caller "
           "understands. Resolved incidents close automatically after 7 days.")
        + _table(["Resolution code", "Use when"], [[c, u] for c, u in zip(CLOSE_CODES, [
            "the same issue is already tracked in another incident", "a known error with a published workaround applies",
            "the caller never answered after three attempts", "the caller fixed it without our help", "a change fixed it",
            "a problem fix solved it", "a catalog request fulfilled the need", "we fixed the issue", "we gave a workaround",
            "nothing was broken; the user was shown the right steps"])]), author=lead)
    add("Company Protocols", "Incident Management", "Putting incidents on hold",
        _p("Use On Hold only while waiting for someone outside the assignment group, and always choose the On hold reason: "
           "Awaiting Caller (no answer from the caller), Awaiting Change, Awaiting Problem or Awaiting Vendor. Add a work note "
           "saying what you wait for. After three days Awaiting Caller without an answer, resolve with 'No resolution provided'."), author=lead)
    add("Company Protocols", "Incident Management", "Major incident procedure",
        _p("A priority 1 incident is a major incident. The Service Desk Manager is informed by phone within 15 minutes, the "
           "assignment group posts a work note every 30 minutes, and the caller gets an additional comment every hour.")
        + _ol(["Confirm impact and urgency with the caller.", "Assign to the group in the assignment table.", "Call the group's lead.", "Open a bridge call and note its number in the work notes."]), author=lead)
    add("Company Protocols", "Service Catalog", "Approval of catalog requests",
        _p(f"Requests whose total is above ${APPROVAL_LIMIT:,} need the approval of the requester's manager; cheaper items are "
           "fulfilled without approval. Approvers approve or reject from My Approvals; a rejection needs a comment saying why."), author=lead)
    add("Company Protocols", "Service Catalog", "Laptop refresh policy",
        _p(f"Laptops are replaced after {LAPTOP_REFRESH_YEARS} years (the warranty period). Employees order a Standard Laptop from "
           "the Service Catalog; engineers and analysts who build software or models may order a Developer Laptop. Docking "
           "stations are ordered with the laptop, not separately."), author=lead)
    add("Company Protocols", "Onboarding", "Onboarding a new hire",
        _p("The hiring manager orders the New Hire Bundle at least five working days before the start date. Fill in the new "
           "hire's name, start date, department and laptop model; tick Mobile phone only for roles that travel (Sales, "
           "Customer Support managers). Accounts are created by Identity & Access when the request is approved."), author=lead)
    add("Company Protocols", "Offboarding", "Offboarding a leaver",
        _p("When an employee leaves, their manager raises an incident in category Inquiry / Help, subcategory Password Reset, "
           "with the leaver as caller and the last working day in the description. Identity & Access disables the account on "
           "that day; Hardware collects the laptop and sets its CI to Retired after wiping it."), author=lead)
    add("Company Protocols", "Service Desk", "Assignment groups and what they own",
        _table(["Group", "Owns"], [[n, d] for n, d in GROUPS]), author=lead)
    add("Company Protocols", "Service Desk", "Customer-affecting incidents",
        _p("When an incident affects a customer, fill in the Customer account field with the CRM account. The account owner in "
           "Sales Cloud is told by a work note naming them, so they can warn the customer. Customer-affecting incidents are never "
           "below priority 3 - Moderate."), author=lead)
    # IT articles: one per known issue, with the category's checklist and the issue's own wording.
    for category, subs in CATEGORIES.items():
        for sub in subs:
            for short, symptom in V.ISSUES[sub]:
                title = short.replace("{ci}", "a laptop").replace("{app}", "an application").replace("{host}", "a server").replace("{db}", "a database")
                title = title.replace("{printer}", "a printer").replace("{n}", "N").replace("{mins}", "a few").replace("{code}", "NNNN").replace("{floor}", "one floor")
                title = title.replace("{pct}", "90").replace("{site}", "an office").replace("{ssid}", "the corporate").replace("{fqdn}", "an internal name")
                sym = symptom.replace("{", "").replace("}", "")
                steps = list(STEPS[category])
                rng.shuffle(steps)
                fix = rng.choice(V.FIXES[category]).replace("{app}", "the application")
                group = protocol_group(category, sub)
                state = rng.choices(["Published", "Draft", "Retired"], [88, 6, 6])[0]
                add("IT", f"{category} > {sub}", f"How to resolve: {title}",
                    _p(f"Symptoms: users report, for example: \"{sym}\"", f"Applies to: {category} / {sub} incidents, handled by {group}.")
                    + "<h3>Resolution steps</h3>" + _ol(steps[:3] + [f"Most often the fix is: {fix}."])
                    + _p(f"If these steps do not help, add your findings as a work note and assign the incident to {group}."), state=state)
    for app in V.APP_NAMES:
        level = "Standard" if app not in ("GitHub", "NetSuite", "Okta") else "Read"
        add("IT", "Access > Applications", f"How to request access to {app}",
            _p(f"Order the Software Access item in the Service Catalog, choose {app} as the application and the access level you "
               f"need (most people need {level}). Write a business justification: requests without one are rejected.",
               f"Admin access to {app} needs the approval of your manager and of Application Support."))
    # Change management protocols, appended last (and without the shared RNG) so every earlier article
    # keeps its number and fields.
    for title, body in CHANGE_PROTOCOLS:
        published = now - timedelta(days=120)
        rows.append({"id": len(rows) + 1, "number": f"KB{10001 + len(rows):07d}", "knowledge_base": "Company Protocols", "category": "Change Management",
                     "title": title, "body": body, "author_id": lead, "workflow_state": "Published", "published_on": published.date(),
                     "view_count": 640 + 37 * len(title), "created_at": published - timedelta(days=6), "updated_at": published})
    insert(ctx, KnowledgeArticle, rows)
