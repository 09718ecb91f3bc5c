"""Tables in the world's documents, drawn from the CRM's records as the people who wrote them would
have: a proposal's pricing table (the opportunity's products: quantity, list and sales price,
discount, line total, and the total that is the opportunity's amount), an account plan's key
stakeholders (the account's contacts and their role in the deal) and open opportunities, the sales
team's price lists (the CRM's active price books) and the fee schedules of some data-room contracts.

Each is a ``Table`` block (``documents.table``), stored as an editor-made table is. The choices
(which columns, their wording, the order of the rows) come from the generator's own random streams
("drive.tables", "drive.schedules", "drive.price_lists"), so the rest of the drive draws what it drew
before these tables existed."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from ...world.seeding import SeedContext
from ..documents import block, table
from .builder import DriveBuilder

LATE = ("Perception Analysis", "Proposal/Price Quote", "Negotiation/Review")

# A proposal's pricing table: the wordings of its columns, as different reps' templates have them.
# Every variant starts with the product and ends with the line total; "qty" is always Quantity or Qty.
PRICING_HEADERS = [
    {"product": "Product", "qty": "Quantity", "list": "List price", "sales": "Sales price", "discount": "Discount", "total": "Total price"},
    {"product": "Item", "qty": "Qty", "list": "List price", "sales": "Unit price", "discount": "Discount", "total": "Line total"},
    {"product": "Product", "code": "Code", "qty": "Qty", "sales": "Unit price", "total": "Amount"},
    {"product": "Description", "qty": "Quantity", "list": "List price", "sales": "Net price", "total": "Total"},
]
STAKEHOLDER_HEADERS = [("Name", "Title", "Role", "Email"), ("Stakeholder", "Title", "Role in the deal", "Email"),
                       ("Contact", "Job title", "Buying role", "Email")]
OPP_HEADERS = [("Opportunity", "Stage", "Amount", "Close date"), ("Deal", "Stage", "Value", "Expected close")]


def money(v: float | None, cents: bool = True) -> str:
    return f"${(v or 0):,.2f}" if cents else f"${(v or 0):,.0f}"


def qty(v: float) -> str:
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.2f}"


def pricing_table(rng: random.Random, items: list[dict], amount: float) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The opportunity's products as a table with a bold Total row (the sum of the lines, which the
    CRM keeps equal to the amount); and the header wording chosen."""
    h = rng.choice(PRICING_HEADERS)
    cols = list(h)
    rows: list[list[Any]] = [[{"text": h[c], "bold": True} for c in cols]]
    for it in items:
        cell = {"product": it["product"], "code": it["code"] or "", "qty": qty(it["quantity"]), "list": money(it["list_price"]),
                "sales": money(it["unit_price"]), "discount": f"{it['discount']:g}%" if it["discount"] else "\u2014", "total": money(it["total_price"])}
        rows.append([cell[c] for c in cols])
    rows.append([{"text": "Total", "bold": True}, *[""] * (len(cols) - 2), {"text": money(amount), "bold": True}])
    return [table(*rows)], h


def stakeholders(rng: random.Random, a: dict, opps: list[dict], contacts: list[dict], roles: list[dict]) -> list[dict[str, Any]]:
    """The account's people in the deals: each contact with a role on one of its opportunities (open
    deals first, the primary contact first), else its first contacts with their titles only."""
    if not contacts:
        return [block("Normal", "No contacts recorded in the CRM yet: find the economic buyer.")]
    open_ids = [o["id"] for o in opps if o["stage"] not in ("Closed Won", "Closed Lost")]
    order = {oid: k for k, oid in enumerate(open_ids + [o["id"] for o in opps if o["id"] not in open_ids])}
    role_of: dict[int, tuple] = {}
    for r in roles:
        if r["opportunity_id"] in order and r["role"]:
            key = (order[r["opportunity_id"]], not r["is_primary"])
            if r["contact_id"] not in role_of or key < role_of[r["contact_id"]][0]:
                role_of[r["contact_id"]] = (key, r["role"])
    by_id = {c["id"]: c for c in contacts}
    people = sorted((cid for cid in role_of if cid in by_id), key=lambda cid: role_of[cid][0])[:6]
    head = list(rng.choice(STAKEHOLDER_HEADERS))
    if not people:  # nobody in a deal yet: who we know there, without a role column
        people, head = [c["id"] for c in contacts[:3]], head[:2] + head[3:]
    rows: list[list[Any]] = [[{"text": x, "bold": True} for x in head]]
    for cid in people:
        c = by_id[cid]
        cells = [f"{c['first_name'] or ''} {c['last_name']}".strip(), c["title"] or "", c["email"] or ""]
        if cid in role_of:
            cells.insert(2, role_of[cid][1])
        rows.append(cells)
    return [table(*rows)]


def open_opportunities(rng: random.Random, open_opps: list[dict]) -> list[dict[str, Any]]:
    head = rng.choice(OPP_HEADERS)
    rows: list[list[Any]] = [[{"text": x, "bold": True} for x in head]]
    for o in open_opps:
        rows.append([o["name"], o["stage"], money(o["amount"], cents=False), str(o["close_date"])[:10]])
    return [table(*rows)]


# -- the data room's fee schedules -------------------------------------------------------------------
FEE_LINES = {
    "msa": [("Managed service fee", 0.55), ("Service desk and monitoring", 0.2), ("Quarterly service reviews", 0.05), ("Change requests (pre-paid block)", 0.2)],
    "saas": [("Subscription fee", 0.7), ("Premium support", 0.15), ("Additional environments", 0.05), ("Training credits", 0.1)],
    "supply": None,  # the goods named in the contract, by quantity
}


def fee_schedule(rng: random.Random, kind: str, annual: float, goods: str) -> list[dict[str, Any]]:
    """Schedule 1 of a supply agreement (the products and their prices) or Schedule A of a services
    or subscription agreement (the fees by component): rows that add up to the contract's annual value."""
    if kind == "supply":
        names = [f"{goods[0].upper()}{goods[1:]} - {x}" for x in rng.sample(["standard grade", "premium grade", "small lot", "bulk lot", "custom spec"], 3)]
        shares = [0.5, 0.3, 0.2]
        rows: list[list[Any]] = [[{"text": x, "bold": True} for x in ("Item", "Annual quantity", "Unit price (USD)", "Annual amount (USD)")]]
        left = int(annual)
        for k, (n, share) in enumerate(zip(names, shares)):
            part = left if k == len(names) - 1 else int(round(annual * share, -3))
            left -= part if k < len(names) - 1 else 0
            units = rng.choice([100, 200, 250, 500, 1000])  # the parts are whole thousands (annual values are multiples of 5,000)
            rows.append([n, f"{units:,}", f"{part / units:,.2f}", f"{part:,.0f}"])
        rows.append([{"text": "Total", "bold": True}, "", "", {"text": f"{int(annual):,}", "bold": True}])
        return [block("Heading 1", "SCHEDULE 1. PRODUCTS AND PRICES"),
                block("Normal", "Prices are fixed for the first contract year and may be adjusted once a year thereafter on sixty (60) days\u2019 written notice."),
                table(*rows)]
    lines = FEE_LINES[kind]
    pick = [lines[0]] + rng.sample(lines[1:], 2)
    total = sum(s for _n, s in pick)
    amounts = [int(round(annual * s / total, -2)) for _n, s in pick]
    amounts[0] += int(annual) - sum(amounts)
    billing = rng.choice(["Annually in advance", "Quarterly in advance", "Monthly in arrears"])
    rows = [[{"text": x, "bold": True} for x in ("Fee component", "Billing", "Annual fee (USD)")]]
    rows += [[n, billing if k == 0 else rng.choice([billing, "Annually in advance", "Quarterly in advance"]), f"{amt:,.0f}"] for k, ((n, _s), amt) in enumerate(zip(pick, amounts))]
    rows.append([{"text": "Total annual fees", "bold": True}, "", {"text": f"{int(annual):,}", "bold": True}])
    return [block("Heading 1", "SCHEDULE A. FEES"), table(*rows)]


# -- the sales team's price lists --------------------------------------------------------------------
PRICE_LIST_HEADERS = [("Product code", "Product", "Unit", "List price"), ("Code", "Product", "Unit of sale", "Price (USD)"),
                      ("SKU", "Product name", "Unit", "List price")]


def price_list(rng: random.Random, book: str, entries: list[dict], company: str, effective: datetime, partner: bool) -> list[dict[str, Any]]:
    head = rng.choice(PRICE_LIST_HEADERS)
    by_family = rng.random() < 0.5
    rows_src = sorted(entries, key=lambda e: (e["family"] or "", e["code"] or "")) if by_family else sorted(entries, key=lambda e: e["code"] or "")
    rows: list[list[Any]] = [[{"text": x, "bold": True} for x in head]]
    for e in rows_src:
        rows.append([e["code"] or "", e["product"], e["unit"] or "", money(e["unit_price"])])
    who = "channel partners and resellers" if partner else "direct sales"
    return [block("Title", f"{company} Price List \u2014 {book}"),
            block("Normal", f"Effective {effective:%B} {effective.day}, {effective.year}. Prices in US dollars per {rng.choice(['unit of sale', 'unit shown'])}, "
                  f"excluding taxes, for {who}. They match the {book} in the CRM; quotes use these prices unless a discount is approved."),
            block("Heading 1", "Prices"), table(*rows),
            block("Heading 1", "Notes"),
            block("List Bullet", rng.choice(["Discounts above 20% need the sales manager\u2019s approval.", "Discounts above 15% go to the regional manager for approval."])),
            block("List Bullet", rng.choice(["Services are quoted per day or per project as shown.", "Hardware prices include a three-year warranty."])),
            block("List Bullet", "Discontinued products are not listed; renewals of them are priced by Sales Operations.")]


def build_price_lists(b: DriveBuilder, ctx: SeedContext, crm: dict) -> None:
    """The Standard and Partner price lists, as documents in the Sales team's Shared folder."""
    place = b.places.get("sales_shared")
    entries = crm.get("price_books") or []
    if not place or not entries:
        return
    rng = ctx.random("drive.price_lists")
    site, folder, owner, when = place
    books: dict[str, list[dict]] = {}
    for e in entries:
        books.setdefault(e["book_name"], []).append(e)
    for name, rows in books.items():
        partner = "Partner" in name
        effective = (when - timedelta(days=rng.randint(20, 80))).replace(day=1)
        title = f"{name.removesuffix(' Price Book')} Price List"
        b.document(site, folder, title, owner, when - timedelta(days=rng.randint(1, 15)),
                   price_list(rng, name, rows, ctx.company, effective, partner))
