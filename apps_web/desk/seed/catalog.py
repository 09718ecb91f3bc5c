"""The service catalog (items with variables) and past requests: REQ with one RITM each, and the
manager approvals of those above the approval limit."""

from __future__ import annotations

import json
from datetime import timedelta

from ...world.seeding import SeedContext
from ..models import Approval, CatalogItem, Request, RequestedItem
from . import vocab as V
from .base import insert, work_hours
from .knowledge import APPROVAL_LIMIT
from .people import Staff


def _choice(name: str, label: str, choices: list[tuple[str, float]], mandatory: bool = True) -> dict:
    """A select variable; each choice may add to the item's price."""
    return {"name": name, "label": label, "type": "choice", "mandatory": mandatory, "choices": [{"value": v, "price": p} for v, p in choices]}


def _var(name: str, label: str, type_: str, mandatory: bool = False) -> dict:
    return {"name": name, "label": label, "type": type_, "mandatory": mandatory}


DEPARTMENTS = ["Sales", "Customer Support", "Marketing", "Finance", "IT", "Engineering", "Operations"]
# (name, category, price, group, short description, description, variables)
ITEMS = [
    ("Standard Laptop", "Hardware", 1100.0, "Hardware", "A laptop for everyday work, replaced every three years.",
     "Ships with Windows 11 or macOS, Office and the security agents installed. Delivered to your office within 5 working days.",
     [_choice("model", "Model", [("Dell Latitude 7440", 0), ("Lenovo ThinkPad T14 Gen 4", 0), ("MacBook Air 13 M2", 150)]),
      _choice("memory", "Memory", [("16 GB", 0), ("32 GB", 250)]),
      _var("docking_station", "Docking station", "checkbox"),
      _var("justification", "Business justification", "text", True)]),
    ("Developer Laptop", "Hardware", 2400.0, "Hardware", "A high-end laptop for engineers and analysts.",
     "For people who build software or data models. Local admin rights are granted on request.",
     [_choice("model", "Model", [("MacBook Pro 14 M3", 0), ("ThinkPad X1 Carbon Gen 11", -200), ("Dell Precision 5680", 300)]),
      _choice("memory", "Memory", [("32 GB", 0), ("64 GB", 400)]),
      _choice("storage", "Storage", [("512 GB", 0), ("1 TB", 200)]),
      _var("docking_station", "Docking station", "checkbox"),
      _var("justification", "Business justification", "text", True)]),
    ("Monitor", "Hardware", 320.0, "Hardware", "An extra or replacement monitor.", "Includes a cable for your laptop's ports.",
     [_choice("size", "Size", [("24 inch", 0), ("27 inch", 120), ("34 inch ultrawide", 380)])]),
    ("Headset", "Peripherals", 140.0, "Service Desk", "A noise-cancelling headset for calls.", "Certified for Teams and Zoom.",
     [_choice("connection", "Connection", [("USB-A", 0), ("USB-C", 0), ("Bluetooth", 60)])]),
    ("Mobile Phone", "Mobile", 900.0, "Hardware", "A company phone with a data plan.", "For roles that travel. Includes mail and MFA set-up.",
     [_choice("model", "Model", [("iPhone 15", 0), ("Samsung Galaxy S24", -50)]), _choice("plan", "Data plan", [("Domestic", 0), ("International", 25)])]),
    ("Software Access", "Software", 0.0, "Application Support", "Access to a business application.", "Read, Standard or Admin access to an application we license.",
     [_choice("application", "Application", [(a, 0) for a in V.APP_NAMES]), _choice("access_level", "Access level", [("Read", 0), ("Standard", 0), ("Admin", 0)]),
      _var("justification", "Business justification", "text", True)]),
    ("New Hire Bundle", "Onboarding", 1800.0, "Identity & Access", "Everything a new employee needs on day one.",
     "Accounts, a Standard Laptop, a headset and a badge; order it at least five working days before the start date.",
     [_var("new_hire_name", "New hire's name", "text", True), _var("start_date", "Start date", "date", True),
      _choice("department", "Department", [(d, 0) for d in DEPARTMENTS]),
      _choice("model", "Laptop model", [("Dell Latitude 7440", 0), ("MacBook Air 13 M2", 150)]),
      _var("mobile_phone", "Mobile phone", "checkbox")]),
    ("VPN Access", "Network", 0.0, "Network", "Remote access to the corporate network.", "GlobalProtect client and certificate.",
     [_choice("region", "Gateway region", [("US East", 0), ("US West", 0), ("Europe", 0)]), _var("justification", "Business justification", "text", True)]),
    ("Shared Mailbox", "Messaging", 0.0, "Messaging", "A new shared mailbox for a team.", "A shared address with access for the people you name.",
     [_var("mailbox_name", "Mailbox name", "text", True), _var("members", "Members (names, one per line)", "textarea", True)]),
    ("Printer Toner", "Peripherals", 95.0, "Service Desk", "Toner for an office printer.", "Delivered to the printer's floor.",
     [_choice("color", "Colour", [("Black", 0), ("Cyan", 20), ("Magenta", 20), ("Yellow", 20)])]),
]


def item_price(item: dict, values: dict) -> float:
    """Unit price of an item with the options chosen (choice variables may add or subtract)."""
    price = float(item["price"])
    for var in item["variables"]:
        if var["type"] == "choice":
            price += next((c["price"] for c in var["choices"] if c["value"] == values.get(var["name"])), 0)
    return price


def seed_catalog(ctx: SeedContext, staff: Staff) -> None:
    rng = ctx.random("desk.catalog")
    now = ctx.clock.now
    items = []
    for k, (name, category, price, group, short, desc, variables) in enumerate(ITEMS, start=1):
        items.append({"id": k, "name": name, "category": category, "price": price, "needs_approval": True,
                      "fulfillment_group_id": staff.groups[group], "short_description": short, "description": desc,
                      "variables": json.dumps(variables), "active": True, "created_at": now - timedelta(days=800), "updated_at": now - timedelta(days=rng.randint(10, 200))})
    insert(ctx, CatalogItem, items)
    people = [u for u in staff.users if u.active and u.manager_id]
    requests, ritms, approvals = [], [], []
    times = sorted(work_hours(rng, now - timedelta(days=rng.uniform(0.2, 120))) for _ in range(150 * ctx.scale))
    for k, opened in enumerate(times, start=1):
        opened = min(opened, now - timedelta(hours=1))
        item = rng.choice(items)
        spec = {**item, "variables": json.loads(item["variables"])}
        who = rng.choice(people)
        values: dict = {}
        for var in spec["variables"]:
            if var["type"] == "choice":
                values[var["name"]] = rng.choice(var["choices"])["value"]
            elif var["type"] == "checkbox":
                values[var["name"]] = rng.random() < 0.5
            elif var["type"] == "number":
                values[var["name"]] = rng.randint(1, 3)
            elif var["type"] == "date":
                values[var["name"]] = (opened + timedelta(days=rng.randint(7, 30))).date().isoformat()
            elif var["name"] == "new_hire_name":
                values[var["name"]] = ctx.faker("desk.catalog").name()
            elif var["name"] == "mailbox_name":
                values[var["name"]] = rng.choice(V.MAILBOXES).rstrip("@") + "-" + rng.choice(["emea", "us", "team"])
            else:
                values[var["name"]] = rng.choice([
                    "Current laptop is out of warranty.", "Starting on the Atlas project next month.", "Replacement for a broken device.",
                    "Need it for customer demos.", "Joining the team that uses it daily.", "Manager asked me to take over reporting."])
        qty = rng.choice([1, 1, 1, 2]) if item["name"] in ("Monitor", "Printer Toner") else 1
        total = item_price(spec, values) * qty
        age = (now - opened).days
        needs = total > APPROVAL_LIMIT
        approver = who.manager_id
        if needs:
            decision = "requested" if age < 4 or rng.random() < 0.1 else rng.choices(["approved", "rejected"], [88, 12])[0]
        else:
            decision = "approved"
        done = decision == "approved" and age > rng.randint(3, 10)
        stage = {"requested": "Waiting for Approval", "rejected": "Request Cancelled"}.get(decision, "Completed" if done else "Fulfillment")
        state = {"requested": "Open", "rejected": "Closed Incomplete"}.get(decision, "Closed Complete" if done else "Work in Progress")
        req_state = {"requested": "Pending Approval", "rejected": "Closed Rejected"}.get(decision, "Closed Complete" if done else "Approved")
        updated = min(opened + timedelta(days=rng.randint(0, 5)), now)
        requests.append({"id": k, "number": f"REQ{10000 + k:07d}", "requested_for_id": who.id, "opened_by_id": who.id, "opened_at": opened,
                         "state": req_state, "total": total, "created_at": opened, "updated_at": updated})
        group = item["fulfillment_group_id"]
        ritms.append({"id": k, "number": f"RITM{10000 + k:07d}", "request_id": k, "item_id": item["id"], "requested_for_id": who.id,
                      "quantity": qty, "variables": json.dumps(values), "price": total, "stage": stage, "state": state, "approval": decision,
                      "assignment_group_id": group if decision == "approved" else None,
                      "assigned_to_id": rng.choice(staff.members[group]) if decision == "approved" else None, "created_at": opened, "updated_at": updated})
        if needs and approver:
            approvals.append({"id": len(approvals) + 1, "approver_id": approver, "req_item_id": k, "state": decision,
                              "comments": "" if decision != "rejected" else rng.choice(["Over budget this quarter.", "Please reuse the spare from stock.", "Not needed for this role."]),
                              "created_at": opened, "updated_at": updated})
    insert(ctx, Request, requests)
    insert(ctx, RequestedItem, ritms)
    insert(ctx, Approval, approvals)
