"""Long, specific text for the records: call logs, task comments, note bodies and case write-ups built
from many sentence templates filled with the record's own facts (people, products and quantities from
the deal's line items, amounts, dates, competitors), so that a question about them needs reading.

Runs after everything else from its own sub-seed namespace; it rewrites only activity descriptions,
note bodies and (appending) case descriptions, which no field, total or relation depends on.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from ..models import Activity, Case, Note, OpportunityLineItem, Product
from .base import Built

COMPETITORS = ["Northwind Systems", "Initrode", "Globex", "Vandelay Industries", "Umbrella Software", "Hooli"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]

DEAL_POINTS = [
    "{contact} confirmed the scope: {lines}.",
    "We walked through the quote line by line; {contact} questioned the price of {product} and asked whether {qty} is the right number to start with.",
    "Budget for this is {amount}, approved by their CFO, but anything above that needs a second sign-off that would add about three weeks.",
    "{competitor} is still in the running; {contact} said their offer is roughly {pct}% cheaper but lacks the offline mode.",
    "Their target go-live is {golive}; working back from that, legal must have the contract by {legal}.",
    "IT raised a security question about single sign-on; I promised the SOC 2 report and a call with our solutions engineer.",
    "{contact} wants a phased rollout: {first_qty} first, the rest after the pilot review.",
    "Procurement needs the quote to stay valid until {expires}; the current one expires earlier.",
    "They asked for a {pct}% discount on {product} in exchange for a three-year term.",
    "Reference call requested: same industry, similar size; I suggested two customers from the {region} region.",
    "The decision committee meets on {weekday}; {contact} will present our proposal there.",
    "Implementation worries them most: their last vendor took nine months. I explained our 6-week plan.",
]
ACCOUNT_POINTS = [
    "Adoption is uneven: the {team} team uses it daily, the others barely log in.",
    "Renewal is due on {renewal}; {contact} expects a flat renewal unless usage grows.",
    "They are reorganising and {contact} now reports to a new VP of Operations.",
    "Open support cases came up twice; {contact} wants a named support engineer.",
    "Expansion potential: the {team} team (about {seats} people) could join next year.",
    "They pay by purchase order only and their PO process takes two weeks.",
]
CASE_POINTS = [
    "Reproduced the issue with {contact} on a screen share: it happens only for users in the {team} group.",
    "Customer is on version 4.{minor}; the fix is in 4.{fixed}, which they can't install before {window}.",
    "Asked for the gateway logs from {logday}; they will upload them to the case today.",
    "Workaround agreed: restart the sync service nightly until the patch is applied.",
    "Impact: about {users} users can't finish their morning reports; {contact} rates it as business-critical.",
    "Engineering ticket ENG-{ticket} is linked; next update promised by {update}.",
]
LEAD_POINTS = [
    "{contact} runs {team} at a company of about {seats} people; they currently use spreadsheets.",
    "Pain point: month-end reporting takes them {days} days.",
    "Budget cycle starts in {month}; they want pricing before then.",
    "Not the decision maker: the COO signs anything above $50,000.",
]
NEXT_STEPS = [
    "Next step: send the revised quote by {weekday}.",
    "Next step: book the technical deep dive for {nextdate}.",
    "Next step: {contact} to confirm the budget owner by {nextdate}.",
    "Next step: follow up on {nextdate} after their committee meets.",
    "No next step agreed; I'll check in again in two weeks.",
]
TEAMS = ["finance", "field service", "warehouse", "customer success", "engineering", "procurement", "operations"]
MONTHS = ["January", "April", "July", "October", "September", "March"]
REGIONS = ["AMER-East", "AMER-West", "EMEA", "APAC"]


def _d(day: date) -> str:
    return f"{day:%b} {day.day}, {day.year}"


class _Facts:
    def __init__(self, built: Built, lines: list[OpportunityLineItem], products: list[Product]) -> None:
        names = {p.id: p.name for p in products}
        self.lines: dict[int, list[tuple[str, float]]] = {}
        for li in lines:
            self.lines.setdefault(li.opportunity_id, []).append((names[li.product_id], li.quantity))
        self.built = built

    def fill(self, rng: random.Random, template: str, *, contact: str, opp=None) -> str:
        today = self.built.now.date()
        items = self.lines.get(opp.id, []) if opp is not None else []
        product, qty = rng.choice(items) if items else (rng.choice(["Platform Licenses", "Edge Gateways", "Analytics Add-on"]), float(rng.choice([25, 50, 100])))
        described = ", ".join(f"{q:,g} x {n}" for n, q in items) if items else f"{qty:,g} x {product}"
        golive = today + timedelta(days=rng.randint(40, 160))
        return template.format(
            contact=contact, lines=described, product=product, qty=f"{qty:,g}", first_qty=f"{max(1, int(qty) // 4):,}",
            amount=f"${(opp.amount or 0):,.0f}" if opp is not None else "$40,000", competitor=rng.choice(COMPETITORS),
            pct=rng.choice([8, 10, 12, 15, 18, 25]), golive=_d(golive), legal=_d(golive - timedelta(days=30)),
            expires=_d(today + timedelta(days=rng.randint(30, 75))), region=rng.choice(REGIONS), weekday=rng.choice(WEEKDAYS),
            team=rng.choice(TEAMS), renewal=_d(today + timedelta(days=rng.randint(20, 300))), seats=rng.choice([40, 80, 150, 300, 600]),
            minor=rng.randint(0, 3), fixed=rng.randint(4, 6), window=_d(today + timedelta(days=rng.randint(5, 40))),
            logday=_d(today - timedelta(days=rng.randint(1, 10))), users=rng.choice([12, 30, 75, 140, 400]), ticket=rng.randint(1000, 9999),
            update=_d(today + timedelta(days=rng.randint(1, 5))), days=rng.randint(3, 9), month=rng.choice(MONTHS),
            nextdate=_d(today + timedelta(days=rng.randint(2, 21))),
        )


def _points(rng: random.Random, related_type: str) -> list[str]:
    return {"opportunity": DEAL_POINTS, "account": ACCOUNT_POINTS, "case": CASE_POINTS, "lead": LEAD_POINTS}.get(related_type, ACCOUNT_POINTS + DEAL_POINTS[:4])


def enrich_texts(built: Built, activities: list[Activity], notes: list[Note], cases: list[Case],
                 lines: list[OpportunityLineItem], products: list[Product]) -> None:
    rng = built.ctx.random("crm.texts")
    facts = _Facts(built, lines, products)
    contacts = {c.id: c for c in built.contacts}
    opps = {o.id: o for o in built.opportunities}

    def who(contact_id) -> str:
        c = contacts.get(contact_id) if contact_id else None
        return c.name if c else "the customer"

    for act in activities:
        opp = opps.get(act.related_id) if act.related_type == "opportunity" else None
        pool = _points(rng, act.related_type or "account")
        name = who(act.contact_id)
        if act.kind == "call" and act.status == "Completed":
            chosen = rng.sample(pool, min(len(pool), rng.randint(3, 5)))
            body = [f"Spoke with {name} for {act.call_duration_min or rng.randint(10, 45)} minutes."]
            body += [facts.fill(rng, t, contact=name, opp=opp) for t in chosen]
            body.append(facts.fill(rng, rng.choice(NEXT_STEPS), contact=name, opp=opp))
            act.description = "\n\n".join(body)
        elif act.kind == "task" and rng.random() < 0.5:
            act.description = " ".join(facts.fill(rng, t, contact=name, opp=opp) for t in rng.sample(pool, 2))
    for note in notes:
        opp = opps.get(note.related_id) if note.related_type == "opportunity" else None
        pool = _points(rng, note.related_type)
        contact = None
        if opp is not None or note.related_type == "account":
            acct_id = opp.account_id if opp is not None else note.related_id
            people = built.contacts_by_account.get(acct_id, [])
            contact = rng.choice(people).name if people else None
        note.body = "\n".join("- " + facts.fill(rng, t, contact=contact or "the customer", opp=opp)
                              for t in rng.sample(pool, min(len(pool), rng.randint(2, 4))))
    for case in cases:
        pool = CASE_POINTS if case.status != "Closed" else CASE_POINTS[:5]  # a closed case awaits no update
        extra = [facts.fill(rng, t, contact=who(case.contact_id)) for t in rng.sample(pool, rng.randint(1, 3))]
        case.description = "\n\n".join(p for p in [case.description or "", *extra] if p)
