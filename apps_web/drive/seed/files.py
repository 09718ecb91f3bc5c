"""Employees' own files and the team sites: documents and workbooks tied to the CRM's records and
the org chart, with text from variants (never one template with names swapped)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from ...world.seeding import SeedContext
from ..documents import block
from .builder import DriveBuilder
from .tables import LATE, open_opportunities, pricing_table, stakeholders

OPEN = ("Prospecting", "Qualification", "Needs Analysis", "Value Proposition", "Id. Decision Makers", "Perception Analysis",
        "Proposal/Price Quote", "Negotiation/Review")
PRICE_LIST = [  # (SKU, product, unit, list price)
    ("PLT-STD", "Platform licence - Standard", "per user / year", 480), ("PLT-PRO", "Platform licence - Professional", "per user / year", 900),
    ("PLT-ENT", "Platform licence - Enterprise", "per user / year", 1500), ("ANL-ADD", "Analytics add-on", "per user / year", 240),
    ("API-10M", "API calls, 10 million block", "per block / year", 6000), ("STO-1TB", "Additional storage, 1 TB", "per TB / year", 1200),
    ("SUP-PRM", "Premium support", "per year", 18000), ("SUP-24X7", "24x7 support with named engineer", "per year", 42000),
    ("IMP-STD", "Implementation package - Standard", "one-off", 25000), ("IMP-ENT", "Implementation package - Enterprise", "one-off", 85000),
    ("TRN-DAY", "On-site training day", "per day", 3200), ("CSM-HR", "Consulting services", "per hour", 240),
]
RUNBOOKS = [
    ("Password reset and account unlock", ["Verify the caller's identity with two of: employee ID, manager's name, last four digits of the phone on file.",
     "Open the directory console and search for the user by username.", "If the account is locked, choose Unlock; if the password expired, choose Reset and set 'User must change password at next sign-in'.",
     "Tell the user the temporary password by phone only, never by email.", "Record the action in the incident's work notes and resolve it with the code 'Solved (Permanently)'."]),
    ("VPN connection failures", ["Ask the user for the exact error text and the VPN client version.", "Check the VPN gateway status page; if the gateway is degraded, link the incident to the open major incident.",
     "Have the user sign out of the VPN client, clear the saved profile and import the current profile from the self-service portal.", "If the error is a certificate error, reissue the device certificate from the MDM console.",
     "Escalate to Network Operations if three or more users report the same failure within one hour."]),
    ("New laptop provisioning", ["Confirm the approved catalog request and the model ordered.", "Enrol the device in MDM with the user's username before first boot.",
     "Apply the standard image for the user's department and install department software from the software centre.", "Encrypt the disk and record the recovery key in the asset record.",
     "Hand over the device with the signed acceptance form and close the request."]),
    ("Customer escalation process", ["Acknowledge the customer within one business hour and name the case owner.", "Create or update the CRM case with priority High and note the business impact in the customer's words.",
     "Page the on-call support manager for any production-down escalation.", "Hold a daily update call until the workaround is in place; send written updates after each call.",
     "After resolution, write a customer-facing summary within two business days."]),
    ("Printer and scanner issues", ["Check whether the device shows an error code on its panel and look it up in the vendor's code list.", "Power-cycle the device and clear the print queue on the print server.",
     "If the device is offline on the network, check the switch port and DHCP reservation.", "Order consumables through the service catalog; never buy them on a personal card."]),
]


def _dt(d: Any) -> datetime | None:
    if d is None:
        return None
    if isinstance(d, datetime):
        return d
    return datetime.fromisoformat(str(d)[:19]) if len(str(d)) > 10 else datetime.fromisoformat(str(d)[:10])


def _money(v: float | None) -> str:
    return f"${(v or 0):,.0f}"


def build_personal(b: DriveBuilder, ctx: SeedContext, people: list[dict], crm: dict) -> None:
    rng = ctx.random("drive.personal")
    tables_rng = ctx.random("drive.tables")  # the tables' own stream: the documents' other text draws what it drew before them
    now = ctx.clock.now
    accounts, opps = crm["accounts"], crm["opportunities"]
    items: dict[int, list[dict]] = {}
    for li in crm.get("line_items", []):
        items.setdefault(li["opportunity_id"], []).append(li)
    contacts: dict[int, list[dict]] = {}
    for c in crm.get("contacts", []):
        contacts.setdefault(c["account_id"], []).append(c)
    roles = crm.get("contact_roles", [])
    by_owner: dict[int, list[dict]] = {}
    for o in opps:
        by_owner.setdefault(o["owner_id"], []).append(o)
    acc_by_owner: dict[int, list[dict]] = {}
    for a in accounts.values():
        acc_by_owner.setdefault(a["owner_id"], []).append(a)
    for p in people:
        name = f"{p['first_name']} {p['last_name']}"
        site, root = b.site(f"{name} - OneDrive", "personal", p["id"], p["id"], at=now - timedelta(days=400))
        at = lambda lo=2, hi=120: now - timedelta(days=rng.randint(lo, hi), hours=rng.randint(0, 8), minutes=rng.randint(0, 59))  # noqa: E731
        if p["role"] in ("sales_rep", "sales_manager"):
            plans = b.folder(site, root, "Account Plans", p["id"], at(60, 200))
            props = b.folder(site, root, "Proposals", p["id"], at(60, 200))
            mine = sorted(acc_by_owner.get(p["id"], []), key=lambda a: -(a["annual_revenue"] or 0))[:4]
            for a in mine:
                a_opps = [o for o in opps if o["account_id"] == a["id"]]
                a_roles = [r for r in roles if r["opportunity_id"] in {o["id"] for o in a_opps}]
                b.document(site, plans, f"Account Plan - {a['name']}", p["id"], at(),
                           account_plan(rng, a, a_opps, name, tables_rng, contacts.get(a["id"], []), a_roles, bool(crm.get("contacts"))),
                           crm_account_id=a["id"])
            open_opps = [o for o in by_owner.get(p["id"], []) if o["stage"] in OPEN and o["amount"]]
            for o in sorted(open_opps, key=lambda o: o["id"])[:4]:
                a = accounts.get(o["account_id"], {"name": "the customer"})
                earlier = round((o["amount"] or 0) * rng.choice([1.08, 1.12, 1.15, 0.9]), -2)
                when = at(20, 60)
                # Quoted deals break the price down by product (the CRM's line items); earlier ones may state the total only.
                lines = items.get(o["id"], [])
                priced = bool(lines) and (o["stage"] in LATE or tables_rng.random() < 0.4)
                pricing = pricing_table(tables_rng, lines, o["amount"])[0] if priced else []
                b.document(site, props, f"Proposal - {o['name']}", p["id"], now - timedelta(days=rng.randint(1, 15)),
                           proposal(rng, o, a, name, o["amount"], pricing=pricing), history=[(proposal(rng, o, a, name, earlier, draft=True), when, p["id"])],
                           crm_account_id=o["account_id"], crm_opportunity_id=o["id"])
            rows = {"A1": "Opportunity", "B1": "Account", "C1": "Stage", "D1": "Amount", "E1": "Close date", "F1": "Probability", "G1": "Weighted"}
            mine_opps = sorted(by_owner.get(p["id"], []), key=lambda o: o["id"])
            for i, o in enumerate(mine_opps, start=2):
                rows.update({f"A{i}": o["name"], f"B{i}": accounts.get(o["account_id"], {}).get("name", ""), f"C{i}": o["stage"],
                             f"D{i}": str(int(o["amount"] or 0)), f"E{i}": str(o["close_date"])[:10], f"F{i}": str((o["probability"] or 0) / 100),
                             f"G{i}": f"=D{i}*F{i}"})
            n = len(mine_opps) + 1
            last = max(n, 2)  # no deal yet (a manager): the totals sum the empty first row, not D2:D1
            rows.update({f"C{n + 2}": "Total", f"D{n + 2}": f"=SUM(D2:D{last})", f"G{n + 2}": f"=SUM(G2:G{last})"})
            b.workbook(site, root, "My Pipeline", p["id"], at(1, 10), [("Pipeline", rows)])
        elif p["role"] in ("support_agent", "support_manager", "it", "admin"):
            folder = b.folder(site, root, "Runbooks", p["id"], at(100, 300))
            for title, steps in rng.sample(RUNBOOKS, 2):
                b.document(site, folder, f"Runbook - {title}", p["id"], at(), runbook(rng, title, steps, name))
        elif p["role"] == "finance":
            b.workbook(site, root, "Expense Review", p["id"], at(3, 30), [("Expenses", expense_sheet(rng, people))])
        elif p["role"] == "marketing":
            b.document(site, root, "Campaign Brief - " + rng.choice(["Spring Launch", "Customer Summit", "Partner Webinar Series", "Q3 Demand Gen"]),
                       p["id"], at(), campaign_brief(rng, name))
        b.document(site, root, "Meeting notes", p["id"], at(1, 30), meeting_notes(rng, name, people))


def account_plan(rng: random.Random, a: dict, opps: list[dict], author: str, tables_rng: random.Random | None = None,
                 contacts: list[dict] = (), roles: list[dict] = (), with_people: bool = False) -> list[dict]:
    open_opps = [o for o in opps if o["stage"] in OPEN]
    won = [o for o in opps if o["stage"] == "Closed Won"]
    blocks = [block("Title", f"Account Plan: {a['name']}"), block("Normal", f"Prepared by {author}.")]
    blocks.append(block("Heading 1", "Account overview"))
    blocks.append(block("Normal", f"{a['name']} is a {(a['industry'] or 'diversified').lower()} company based in {a['city'] or 'the region'}"
                        + (f" with annual revenue of about {_money(a['annual_revenue'])}" if a["annual_revenue"] else "")
                        + (f" and {a['employees']:,} employees" if a.get("employees") else "") + "."))
    blocks.append(block("Heading 1", "Current business"))
    if won:
        blocks.append(block("Normal", f"We have closed {len(won)} deal{'s' if len(won) > 1 else ''} with them, worth {_money(sum(o['amount'] or 0 for o in won))} in total."))
    else:
        blocks.append(block("Normal", rng.choice(["We have no closed business with them yet.", "This is a new logo for us: no deals closed so far."])))
    if with_people and tables_rng is not None:
        blocks.append(block("Heading 1", "Key stakeholders"))
        blocks += stakeholders(tables_rng, a, opps, list(contacts), list(roles))
    blocks.append(block("Heading 1", "Open opportunities"))
    if open_opps and tables_rng is not None and tables_rng.random() < 0.7:
        blocks += open_opportunities(tables_rng, open_opps)
        open_opps = []
    for o in open_opps or []:
        blocks.append(block("List Bullet", {"text": o["name"], "bold": True}, f": {o['stage']}, {_money(o['amount'])}, closing {str(o['close_date'])[:10]}"))
    if not any(o["stage"] in OPEN for o in opps):
        blocks.append(block("Normal", "No open opportunities."))
    blocks.append(block("Heading 1", "Risks"))
    blocks.append(block("Normal", rng.choice(["Budget approval sits with a new CFO; we need an executive sponsor.", "A competitor is running a pilot in another division.",
                                              "Procurement wants a three-year price lock.", "Our champion is moving to another role next quarter."])))
    blocks.append(block("Heading 1", "Next steps"))
    for s in rng.sample(["Schedule an executive briefing", "Run a value workshop with the operations team", "Send the security questionnaire answers",
                         "Agree a mutual close plan", "Introduce our implementation lead"], 3):
        blocks.append(block("List Number", s))
    return blocks


def proposal(rng: random.Random, o: dict, a: dict, author: str, amount: float, draft: bool = False, pricing: list[dict] = ()) -> list[dict]:
    blocks = [block("Title", f"Proposal: {o['name']}"), block("Normal", f"Prepared for {a['name']} by {author}{' (draft)' if draft else ''}.")]
    blocks.append(block("Heading 1", "Executive summary"))
    blocks.append(block("Normal", rng.choice([f"{a['name']} wants to consolidate its reporting on one platform and cut the time its teams spend preparing data.",
                                              f"This proposal sets out how we will help {a['name']} roll out our platform across its operations within one quarter.",
                                              f"{a['name']} asked us for a proposal covering licences, implementation and support for the next twelve months."])))
    blocks.append(block("Heading 1", "Scope"))
    for s in rng.sample(["Platform licences for the named users", "Implementation and data migration", "Administrator training", "Premium support",
                         "Integration with the customer's ERP", "Quarterly business reviews"], 3):
        blocks.append(block("List Bullet", s))
    blocks.append(block("Heading 1", "Pricing"))
    blocks.append(block("Normal", "Total investment: ", {"text": _money(amount), "bold": True}, " for the first year, excluding taxes."))
    blocks += pricing
    blocks.append(block("Heading 1", "Terms"))
    blocks.append(block("Normal", rng.choice(["Prices are valid for 30 days.", "Prices are valid until the end of the quarter.", "Payment terms: net 30 from invoice."])))
    return blocks


def runbook(rng: random.Random, title: str, steps: list[str], author: str) -> list[dict]:
    blocks = [block("Title", f"Runbook: {title}"), block("Normal", f"Owner: {author}. Review every six months.")]
    blocks.append(block("Heading 1", "When to use"))
    blocks.append(block("Normal", f"Use this runbook for incidents and requests about {title.lower()}."))
    blocks.append(block("Heading 1", "Steps"))
    blocks += [block("List Number", s) for s in steps]
    blocks.append(block("Heading 1", "Escalation"))
    blocks.append(block("Normal", rng.choice(["Escalate to the IT Specialist on call if the steps do not resolve the issue within 30 minutes.",
                                              "Escalate to the Systems Administrator for anything that needs directory admin rights."])))
    return blocks


def campaign_brief(rng: random.Random, author: str) -> list[dict]:
    budget = rng.randrange(20_000, 120_000, 5_000)
    return [block("Title", "Campaign brief"), block("Normal", f"Owner: {author}."), block("Heading 1", "Goal"),
            block("Normal", f"Generate {rng.randrange(150, 600, 25)} marketing-qualified leads in {rng.choice(['six', 'eight', 'ten'])} weeks."),
            block("Heading 1", "Budget"), block("Normal", f"Total budget: {_money(budget)}."), block("Heading 1", "Channels"),
            *[block("List Bullet", c) for c in rng.sample(["Paid search", "LinkedIn ads", "Webinars", "Partner newsletters", "Events"], 3)]]


def meeting_notes(rng: random.Random, author: str, people: list[dict]) -> list[dict]:
    others = rng.sample(people, 3)
    return [block("Heading 1", "Team meeting"), block("Normal", "Attendees: " + ", ".join(f"{p['first_name']} {p['last_name']}" for p in others) + f", {author}"),
            block("Heading 2", "Actions"), *[block("List Bullet", f"{p['first_name']}: {t}") for p, t in zip(others, rng.sample(
                ["send the updated forecast", "book the customer visit", "review the renewal terms", "update the runbook", "share the survey results"], 3))]]


def expense_sheet(rng: random.Random, people: list[dict]) -> dict[str, str]:
    cells = {"A1": "Employee", "B1": "Department", "C1": "Category", "D1": "Amount", "E1": "Approved"}
    cats = ["Travel", "Meals", "Software", "Training", "Hardware"]
    for i in range(2, 32):
        p = rng.choice(people)
        cells.update({f"A{i}": f"{p['first_name']} {p['last_name']}", f"B{i}": p["department"], f"C{i}": rng.choice(cats),
                      f"D{i}": str(rng.randrange(40, 2400)), f"E{i}": rng.choice(["Yes", "Yes", "Yes", "No"])})
    cells.update({"G1": "Category", "H1": "Total approved"})
    for k, c in enumerate(cats, start=2):
        cells.update({f"G{k}": c, f"H{k}": f'=SUMIFS(D2:D31,C2:C31,G{k},E2:E31,"Yes")'})
    cells.update({"G8": "Total", "H8": "=SUM(H2:H6)"})
    return cells


def build_team_sites(b: DriveBuilder, ctx: SeedContext, people: list[dict], crm: dict) -> None:
    rng = ctx.random("drive.teams")
    now = ctx.clock.now
    depts: dict[str, list[dict]] = {}
    for p in people:
        depts.setdefault(p["department"], []).append(p)
    for dept, members in sorted(depts.items()):
        if not dept:
            continue
        owner = next((m for m in members if m["manager_id"] is None), members[0])
        site, root = b.site(f"{dept} Team", "team", owner["id"], owner["id"], description=f"Shared files of the {dept} team.", at=now - timedelta(days=500))
        b.share(root, "edit", now - timedelta(days=500), owner["id"], group=dept)
        when = now - timedelta(days=rng.randint(5, 40))
        if dept == "Sales":
            cells = {"A1": "SKU", "B1": "Product", "C1": "Unit", "D1": "List price", "E1": "Partner price"}
            for i, (sku, prod, unit, price) in enumerate(PRICE_LIST, start=2):
                cells.update({f"A{i}": sku, f"B{i}": prod, f"C{i}": unit, f"D{i}": str(price), f"E{i}": f"=ROUND(D{i}*0.8,0)"})
            b.workbook(site, root, "Price List", owner["id"], when, [("Prices", cells)])
            b.folder(site, root, "Templates", owner["id"], when)
            b.places["sales_shared"] = (site, b.folder(site, root, "Shared", owner["id"], when), owner["id"], when)
        elif dept == "Finance":
            b.workbook(site, root, "FY Budget", owner["id"], when, [("Budget", budget_sheet(rng, sorted(depts))), ("Headcount", headcount_sheet(depts, ctx.random("drive.headcount")))])
            b.folder(site, root, "Board Reporting", owner["id"], when)
        elif dept in ("IT", "Customer Support"):
            folder = b.folder(site, root, "Runbooks", owner["id"], when)
            for title, steps in RUNBOOKS:
                b.document(site, folder, f"Runbook - {title}", owner["id"], when - timedelta(days=rng.randint(1, 90)), runbook(rng, title, steps, f"{owner['first_name']} {owner['last_name']}"))
        else:
            b.folder(site, root, "Campaigns", owner["id"], when)


def budget_sheet(rng: random.Random, depts: list[str]) -> dict[str, str]:
    cells = {"A1": "Department", "B1": "Q1", "C1": "Q2", "D1": "Q3", "E1": "Q4", "F1": "Total", "G1": "Prior year", "H1": "Change %"}
    for i, d in enumerate([d for d in depts if d], start=2):
        base = rng.randrange(80_000, 600_000, 5_000)
        for col in "BCDE":
            cells[f"{col}{i}"] = str(int(base * rng.uniform(0.9, 1.15) // 100 * 100))
        cells.update({f"A{i}": d, f"F{i}": f"=SUM(B{i}:E{i})", f"G{i}": str(int(base * 4 * rng.uniform(0.85, 1.05) // 100 * 100)),
                      f"H{i}": f"=ROUND((F{i}-G{i})/G{i}*100,1)"})
    n = len([d for d in depts if d]) + 1
    cells.update({f"A{n + 1}": "Total", **{f"{c}{n + 1}": f"=SUM({c}2:{c}{n})" for c in "BCDEFG"}})
    return cells


def headcount_sheet(depts: dict[str, list[dict]], rng: random.Random) -> dict[str, str]:
    """HR's numbers per department, from the world's people: headcount, managers, the department's head
    (its top person with the most direct reports in it), open roles (the plan, drawn with the seed)
    and the headcount planned with them filled. Constants, no formulas in the department rows: tasks
    sort and move these rows."""
    cells = {"A1": "Department", "B1": "Headcount", "C1": "Managers", "D1": "Head of department", "E1": "Open roles", "F1": "Planned headcount"}
    for i, (d, members) in enumerate(sorted(depts.items()), start=2):
        ids = {m["id"] for m in members}
        reports = {m["id"]: sum(1 for x in members if x["manager_id"] == m["id"]) for m in members}
        tops = [m for m in members if m["manager_id"] not in ids] or members
        head = max(tops, key=lambda m: (reports[m["id"]], -m["id"]))
        opening = rng.choice([0, 0, 1, 1, 2, 3])
        cells.update({f"A{i}": d, f"B{i}": str(len(members)), f"C{i}": str(sum(1 for m in members if "manager" in m["role"] or m["role"] == "admin")),
                      f"D{i}": f"{head['first_name']} {head['last_name']}", f"E{i}": str(opening), f"F{i}": str(len(members) + opening)})
    n = len(depts) + 1
    cells.update({f"A{n + 1}": "Total", f"B{n + 1}": f"=SUM(B2:B{n})", f"C{n + 1}": f"=SUM(C2:C{n})", f"E{n + 1}": f"=SUM(E2:E{n})", f"F{n + 1}": f"=SUM(F2:F{n})"})
    return cells
