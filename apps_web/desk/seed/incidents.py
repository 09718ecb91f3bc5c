"""Six months of incidents, numbered INC0010001... in the order they were opened, with a state that
fits their age, an assignee from the right group, and work notes and comments."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from sqlalchemy import text

from ...world.seeding import SeedContext
from ..choices import CATEGORIES, CLOSE_CODES, HOLD_REASONS, priority_of, protocol_group
from ..models import Incident, Journal
from . import vocab as V
from .base import fill, insert, work_hours
from .cmdb import CIs
from .people import Staff

CATEGORY_WEIGHTS = {"Inquiry / Help": 20, "Software": 25, "Hardware": 25, "Network": 18, "Database": 12}
CLOSE_WEIGHTS = [3, 3, 4, 10, 5, 4, 3, 40, 20, 8]
DAYS = 182
FIRST_NUMBER = 10001


def number(n: int) -> str:
    return f"INC{FIRST_NUMBER + n - 1:07d}"


def _accounts(ctx: SeedContext) -> list[tuple[int, str]]:
    try:
        return [tuple(r) for r in ctx.session.execute(text("SELECT id, name FROM crm_account ORDER BY id")).all()]
    except Exception:  # the CRM is not installed in this host
        return []


class Writer:
    """Builds one incident's text and journal from parts tied to the record."""

    def __init__(self, rng: random.Random, fake, now: datetime) -> None:
        self.rng, self.fake, self.now = rng, fake, now

    def values(self, inc: dict, ci: dict | None, caller, account: str | None) -> dict:
        r = self.rng
        opened: datetime = inc["opened_at"]
        ci_name = ci["name"] if ci else "my laptop"
        app = ci["name"] if ci and ci["ci_class"] == "Application" else r.choice(V.APP_NAMES + V.INTERNAL_APPS)
        vals = {
            "ci": ci_name, "host": ci_name if ci and ci["ci_class"] == "Server" else f"bos-app-p{r.randint(1, 250):03d}",
            "db": ci_name if ci and ci["ci_class"] == "Database" else "ora-fin-pro01", "app": app,
            "err": lambda rr: rr.choice(["0x80070005", "0x8007000E", "0xC004F074"]), "code": lambda rr: str(rr.randint(1001, 9999)),
            "n": lambda rr: str(rr.choice([3, 4, 5, 12, 15, 20, 25, 30, 45, 60, 87, 99])),
            "mins": lambda rr: str(rr.choice([5, 10, 15, 20, 30, 45])), "pct": lambda rr: str(rr.randint(86, 99)),
            "site": caller_site(r), "floor": lambda rr: rr.choice(V.FLOORS),
            "printer": ci_name if ci and ci["ci_class"] == "Printer" else "PRN-BOS-01",
            "ssid": lambda rr: rr.choice(V.SSIDS), "vpn": lambda rr: f"vpn-{rr.choice(['east', 'west', 'eu'])}.corp",
            "fqdn": lambda rr: f"{rr.choice(['wiki', 'git', 'jira', 'reports', 'hr'])}.corp.internal",
            "bsod": lambda rr: rr.choice(V.BSODS), "mailbox": lambda rr: rr.choice(V.MAILBOXES) + "company",
            "date": (opened - timedelta(days=r.randint(1, 6))).strftime("%b %d").replace(" 0", " "),
            "time": f"{r.randint(8, 16)}:{r.choice(['00', '15', '30', '45'])}",
            "account": account or "", "caller": f"{caller.first_name} {caller.last_name}", "caller_first": caller.first_name,
            "os": ci["os"] if ci and ci.get("os") else "Windows 11",
        }
        # Draw every part once, so the short description and the body tell the same story.
        return {k: (v(r) if callable(v) else v) for k, v in vals.items()}

    def describe(self, category: str, sub: str, vals: dict, account: str | None) -> tuple[str, str]:
        r = self.rng
        short_t, symptom_t = r.choice(V.ISSUES[sub])
        short = fill(r, short_t, vals)
        opening = r.choice(V.OPENINGS)
        parts = [fill(r, symptom_t, vals), fill(r, r.choice(V.WHEN), vals), r.choice(V.TRIED + V.TRIED_BY[category])]
        if account:
            parts.append(fill(r, r.choice(V.CUSTOMER), vals))
        parts.append(fill(r, r.choice(V.IMPACT), vals))
        sign = r.choice(V.SIGNOFFS)
        body = " ".join(p for p in parts if p)
        if opening:
            body = f"{opening}\n\n{body}"
        if sign:
            body += f"\n\n{sign},\n{vals['caller_first']}"
        return short[:160], body


def _open_share(age_days: float) -> float:
    """How likely an incident of that age is still open: a backlog that is mostly recent."""
    for limit, share in ((1, 0.8), (3, 0.6), (14, 0.4), (45, 0.15), (90, 0.05)):
        if age_days < limit:
            return share
    return 0.015


def caller_site(rng: random.Random) -> str:
    return rng.choice(V.SITES[:-1])


def seed_incidents(ctx: SeedContext, staff: Staff, cis: CIs) -> tuple[list[dict], list[dict]]:
    rng = ctx.random("desk.incidents")
    fake = ctx.faker("desk.incidents")
    now = ctx.clock.now
    writer = Writer(rng, fake, now)
    accounts = _accounts(ctx)
    callers = [u for u in staff.users if u.active]
    n = 1000 * ctx.scale
    opened_times = sorted(work_hours(rng, now - timedelta(days=rng.uniform(0, DAYS))) for _ in range(n))
    opened_times = [min(t, now - timedelta(minutes=5 + k % 40)) for k, t in enumerate(opened_times)]
    opened_times.sort()
    incidents, journals = [], []
    cats, weights = list(CATEGORY_WEIGHTS), list(CATEGORY_WEIGHTS.values())
    for k, opened in enumerate(opened_times, start=1):
        category = rng.choices(cats, weights)[0]
        sub = rng.choice(CATEGORIES[category])
        caller = rng.choice(callers)
        ci = _ci_for(rng, cis, category, sub, caller.id)
        impact = rng.choices([1, 2, 3], [8, 30, 62])[0]
        urgency = rng.choices([1, 2, 3], [10, 35, 55])[0]
        account = None
        if accounts and (sub in ("Internal Application", "Business Application") or (ci and ci["description"].startswith("Customer"))) and rng.random() < 0.45:
            account = rng.choice(accounts)
        vals = writer.values({"opened_at": opened}, ci, caller, account[1] if account else None)
        short, description = writer.describe(category, sub, vals, account[1] if account else None)
        group_name = protocol_group(category, sub) if rng.random() < 0.92 else rng.choice(list(staff.groups))
        group_id = staff.groups[group_name]
        age = (now - opened).total_seconds() / 86400
        inc = {
            "id": k, "number": number(k), "caller_id": caller.id, "opened_at": opened, "category": category, "subcategory": sub,
            "ci_id": ci["id"] if ci else None, "channel": rng.choices(["Phone", "Email", "Self-service", "Walk-in", "Chat", "Virtual Agent"], [30, 25, 25, 5, 10, 5])[0],
            "impact": impact, "urgency": urgency, "priority": priority_of(impact, urgency), "assignment_group_id": group_id,
            "assigned_to_id": None, "account_id": account[0] if account else None, "short_description": short, "description": description,
            "state": "New", "on_hold_reason": None, "close_code": None, "close_notes": None, "resolved_at": None, "resolved_by_id": None,
            "closed_at": None, "created_at": opened,
        }
        inc["opened_by_id"] = caller.id if inc["channel"] in ("Self-service", "Virtual Agent") else rng.choice(staff.members[staff.groups["Service Desk"]])
        hours_to_fix = rng.choice([0.5, 1, 2, 4, 8, 20, 30, 50, 75, 120, 200]) * (0.6 if inc["priority"] <= 2 else 1.0)
        resolved_at = opened + timedelta(hours=hours_to_fix, minutes=rng.randint(0, 59))
        agent = rng.choice(staff.members[group_id])
        jr: list[tuple[datetime, str, int, str]] = []  # (when, kind, author, body)
        note_vals = {**vals, "group": group_name, "category": category, "subcategory": sub,
                     "check": lambda rr: rr.choice(V.CHECKS), "diag": lambda rr: rr.choice(V.DIAGS), "dberr": lambda rr: rr.choice(V.DBERRS),
                     "day": lambda rr: rr.choice(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]),
                     "port": lambda rr: f"Gi1/0/{rr.randint(1, 48)}", "vendor": lambda rr: rr.choice(V.VENDORS)}
        t = opened + timedelta(minutes=rng.randint(4, 90))
        if rng.random() < 0.03 and age > 1:
            inc.update(state="Canceled", closed_at=min(t, now))
            jr.append((min(t, now), "comments", caller.id, rng.choice(["Please cancel, it works now.", "Raised by mistake, sorry.", "Duplicate of the ticket my manager raised."])))
        elif rng.random() > _open_share(age):
            resolved_at = min(resolved_at, now - timedelta(minutes=rng.randint(5, 120)))
            inc["assigned_to_id"] = agent
            jr.append((min(t, resolved_at), "work_notes", agent, fill(rng, rng.choice(V.TRIAGE_NOTES), note_vals)))
            if rng.random() < 0.6:
                t2 = min(t + timedelta(minutes=rng.randint(10, 300)), resolved_at)
                jr.append((t2, "work_notes", agent, fill(rng, rng.choice(V.PROGRESS_NOTES[category]), note_vals)))
            if rng.random() < 0.5:
                jr.append((min(t + timedelta(minutes=rng.randint(5, 60)), resolved_at), "comments", agent, fill(rng, rng.choice(V.COMMENTS_TO_CALLER), note_vals)))
            code = rng.choices(CLOSE_CODES, CLOSE_WEIGHTS)[0]
            fix = fill(rng, rng.choice(V.FIXES[category]), note_vals)
            notes = fill(rng, rng.choice(V.RESOLUTIONS[code]), {**note_vals, "fix": fix})
            notes = notes[:1].upper() + notes[1:]
            inc.update(state="Resolved", close_code=code, close_notes=notes, resolved_at=resolved_at, resolved_by_id=agent)
            jr.append((resolved_at, "comments", agent, f"Resolved: {notes}"))
            if resolved_at + timedelta(days=7) < now:
                inc.update(state="Closed", closed_at=resolved_at + timedelta(days=7))
        else:
            state = "New" if (age < 2 and rng.random() < 0.6) or (age < 6 and rng.random() < 0.2) else rng.choices(["In Progress", "On Hold"], [70, 30])[0]
            inc["state"] = state
            if state == "New":
                if rng.random() < 0.5:
                    inc["assignment_group_id"] = None  # waiting in the queue for triage
            else:
                inc["assigned_to_id"] = agent
                jr.append((min(t, now), "work_notes", agent, fill(rng, rng.choice(V.TRIAGE_NOTES), note_vals)))
                if rng.random() < 0.5:
                    jr.append((min(t + timedelta(minutes=rng.randint(10, 600)), now), "work_notes", agent, fill(rng, rng.choice(V.PROGRESS_NOTES[category]), note_vals)))
                if state == "On Hold":
                    reason = rng.choices(HOLD_REASONS, [50, 15, 10, 25])[0]
                    inc["on_hold_reason"] = reason
                    jr.append((min(t + timedelta(minutes=rng.randint(30, 900)), now), "work_notes", agent, fill(rng, V.HOLD_NOTES[reason], note_vals)))
                if rng.random() < 0.35:
                    jr.append((min(t + timedelta(minutes=rng.randint(60, 1500)), now), "comments", caller.id, rng.choice(V.CALLER_REPLIES)))
        last = max([inc["created_at"]] + [j[0] for j in jr] + [inc["closed_at"] or inc["created_at"]])
        inc["updated_at"] = min(last, now)
        for when, kind, author, body in sorted(jr, key=lambda j: j[0]):
            journals.append({"id": len(journals) + 1, "table_name": "incident", "record_id": k, "kind": kind, "author_id": author, "created_at": when, "body": body})
        incidents.append(inc)
    for inc in incidents:
        inc["problem_id"] = None  # problems link their incidents later (seed/problems.py)
    insert(ctx, Incident, incidents)
    insert(ctx, Journal, journals)
    return incidents, journals


def _ci_for(rng: random.Random, cis: CIs, category: str, sub: str, caller_id: int) -> dict | None:
    if sub == "Printer":
        return cis.pick(rng, "Printer")
    if category == "Hardware" or sub in ("Operating System", "Antivirus"):
        return cis.laptop_of.get(caller_id) or cis.pick(rng, "Computer")
    if category == "Database":
        return rng.choice(cis.databases.get(sub) or cis.by_class.get("Database", [None]))
    if category == "Network":
        return cis.pick(rng, "Network Gear") if sub in ("Wireless", "DHCP") else (cis.pick(rng, "Server") if sub in ("IP Address", "DNS") else None)
    if sub == "Email":
        return next((c for c in cis.by_class.get("Application", []) if c["name"] == "Outlook"), None)
    if category in ("Software", "Inquiry / Help") and sub != "Password Reset":
        return cis.pick(rng, "Application") if rng.random() < 0.8 else cis.laptop_of.get(caller_id)
    return None
