"""Products, price books, opportunity products, quotes with their approvals, territories, shipping
addresses and loss reasons: the sales process around the deals.

Everything here draws from its own sub-seed namespaces and only adds rows or fills new columns, so the
accounts, deals and amounts of an existing seed stay exactly as they were: the line items generated for a
deal sum to the deal's existing amount (whole dollars, so the sum is exact).
"""

from __future__ import annotations

import re
from datetime import timedelta

from ..models import ApprovalRequest, OpportunityLineItem, Pricebook, PricebookEntry, Product, Quote, QuoteLineItem, Territory, UserTerritory
from ..picklists import TERRITORIES
from ..quotes import totals as quote_totals
from . import vocab
from .base import Built, between

# name, code, family, unit, list price, description. The first ten are the products the deals are named after.
PRODUCTS = [
    ("Platform Licenses", "PLT-LIC-001", "Software", "seats", 480, "Annual per-seat subscription to the core platform."),
    ("Analytics Add-on", "ANL-ADD-010", "Software", "seats", 150, "Dashboards, forecasting and data export, per seat per year."),
    ("Premium Support", "SUP-PRM-100", "Support", "years", 60_000, "24x7 support with a named technical account manager."),
    ("Implementation Services", "SVC-IMP-200", "Services", "days", 2_200, "Consultant days for configuration and rollout."),
    ("Training Package", "SVC-TRN-210", "Services", "sessions", 4_000, "Instructor-led training session for up to 15 people."),
    ("Data Migration", "SVC-MIG-220", "Services", "projects", 80_000, "Fixed-scope migration of legacy records and files."),
    ("Field Units", "HW-FLD-300", "Hardware", "units", 1_200, "Rugged handheld unit with a three-year warranty."),
    ("Sensor Kits", "HW-SNS-310", "Hardware", "units", 400, "Temperature, vibration and humidity sensors, kit of six."),
    ("Edge Gateways", "HW-EDG-320", "Hardware", "units", 2_500, "Industrial gateway that relays sensor data to the cloud."),
    ("Cloud Storage", "PLT-STO-030", "Software", "TB", 900, "Additional hosted storage, per terabyte per year."),
    ("Onboarding (Fixed Fee)", "SVC-ONB-230", "Services", "projects", 5_000, "Kickoff, admin setup and go-live checklist at a fixed fee."),
    ("Standard Support", "SUP-STD-110", "Support", "years", 18_000, "Business-hours support by email and phone."),
    ("Mobile App Licenses", "PLT-MOB-040", "Software", "seats", 90, "Mobile access for field teams, per seat per year."),
    ("API Access Tier", "PLT-API-050", "Software", "tiers", 12_000, "Raised API limits and a sandbox environment."),
    ("Single Sign-On Connector", "PLT-SSO-060", "Software", "connectors", 6_000, "SAML and OIDC connector for the customer's identity provider."),
    ("Sensor Mounting Hardware", "HW-MNT-330", "Hardware", "units", 60, "Brackets and fasteners for one sensor kit."),
    ("Spare Battery Pack", "HW-BAT-340", "Hardware", "units", 85, "Replacement battery for a field unit."),
    ("Admin Certification", "SVC-CRT-240", "Services", "seats", 1_200, "Certification exam and prep course for one administrator."),
    ("Health Check Review", "SVC-HCK-250", "Services", "reviews", 7_500, "Architecture and usage review with recommendations."),
    ("Legacy Gateway (Discontinued)", "HW-EDG-299", "Hardware", "units", 1_900, "Replaced by Edge Gateways; kept for renewals."),
]
# The Partner price book lists most products about 15% below the standard list price.
PARTNER_DISCOUNT = 0.85
FIXED_FEE = "Onboarding (Fixed Fee)"
QUOTE_STATUS_WEIGHTS = {"Draft": 30, "Presented": 25, "Accepted": 12, "Denied": 6, "Approved": 8, "In Review": 14, "Rejected": 5}


def seed_catalog(built: Built) -> tuple[list, list, list]:
    """Products, the Standard and Partner price books, and their entries."""
    products = [Product(id=i, name=n, product_code=c, family=f, quantity_unit=u, description=d, is_active="Discontinued" not in n)
                for i, (n, c, f, u, _p, d) in enumerate(PRODUCTS, 1)]
    books = [
        Pricebook(id=1, name="Standard Price Book", is_standard=True, description="List prices for direct sales."),
        Pricebook(id=2, name="Partner Price Book", description="Prices for channel partners and resellers."),
        Pricebook(id=3, name="Public Sector Price Book", is_active=False, description="Retired: government contracts now use the standard list."),
    ]
    entries: list[PricebookEntry] = []
    for p, (_n, _c, family, _u, price, _d) in zip(products, PRODUCTS):
        entries.append(PricebookEntry(id=len(entries) + 1, pricebook_id=1, product_id=p.id, unit_price=float(price), is_active=p.is_active))
        if family != "Services" or p.name == "Implementation Services":
            entries.append(PricebookEntry(id=len(entries) + 1, pricebook_id=2, product_id=p.id, unit_price=float(round(price * PARTNER_DISCOUNT)),
                                          is_active=p.is_active))
    return products, books, entries


def _qty_from_name(name: str, product: str) -> int | None:
    m = re.search(r" - ([\d,]+) " + re.escape(product), name)
    return int(m.group(1).replace(",", "")) if m else None


def seed_line_items(built: Built, entries: list[PricebookEntry]) -> list[OpportunityLineItem]:
    """Products on the deals that are far enough along to have them, summing to each deal's amount.

    Some deals keep a free amount (no products): a rep still edits those by hand."""
    rng = built.ctx.random("crm.line_items")
    by_name = {name: i for i, (name, *_rest) in enumerate(PRODUCTS, 1)}
    std = {e.product_id: e for e in entries if e.pricebook_id == 1}
    lines: list[OpportunityLineItem] = []
    for opp in built.opportunities:
        amount = int(opp.amount or 0)
        open_deal = opp.stage not in ("Closed Won", "Closed Lost")
        if amount < 1000 or rng.random() < (0.15 if opp.stage == "Closed Won" else 0.4 if open_deal else 0.35):
            continue
        product = next((n for n, *_ in vocab.PRODUCTS if n in opp.name), vocab.PRODUCTS[0][0])
        pid = by_name[product]
        qty = _qty_from_name(opp.name, product) or rng.choice([1, 2, 3, 5, 10, 20, 25, 50])
        extra = 0
        if rng.random() < 0.45 and amount >= 5000:
            extra = int(round(amount * rng.uniform(0.05, 0.15), -2))
        unit = (amount - extra) // qty
        if unit <= 0:
            qty, unit = 1, amount - extra
        rest = amount - qty * unit
        made: list[tuple[int, float, int]] = [(pid, float(qty), unit)]
        if rest:
            made.append((by_name[FIXED_FEE], 1.0, rest))
        opp.pricebook_id = 1
        for n, (product_id, q, price) in enumerate(made):
            entry = std[product_id]
            lines.append(OpportunityLineItem(
                id=len(lines) + 1, opportunity_id=opp.id, product_id=product_id, pricebook_entry_id=entry.id, quantity=q,
                list_price=entry.unit_price, unit_price=float(price), discount=None, total_price=float(q * price), sort_order=n,
                created_at=opp.created_at, updated_at=opp.created_at, created_by_id=opp.owner_id,
            ))
    return lines


def seed_quotes(built: Built, lines: list[OpportunityLineItem]) -> tuple[list[Quote], list[QuoteLineItem], list[ApprovalRequest]]:
    """Quotes on deals in Proposal and Negotiation (and some won ones): copies of the deal's products with
    the discounts the rep offered; those over the approval threshold went to the rep's manager."""
    rng = built.ctx.random("crm.quotes")
    now = built.now
    managers = {u.id: u.manager_id for u in built.users}
    by_opp: dict[int, list[OpportunityLineItem]] = {}
    for li in lines:
        by_opp.setdefault(li.opportunity_id, []).append(li)
    quotes: list[Quote] = []
    qlines: list[QuoteLineItem] = []
    approvals: list[ApprovalRequest] = []
    for opp in built.opportunities:
        items = by_opp.get(opp.id)
        if not items or opp.stage not in ("Proposal/Price Quote", "Negotiation/Review", "Closed Won") or rng.random() < (0.5 if opp.stage == "Closed Won" else 0.1):
            continue
        won = opp.stage == "Closed Won"
        status = "Accepted" if won else rng.choices(list(QUOTE_STATUS_WEIGHTS), weights=list(QUOTE_STATUS_WEIGHTS.values()))[0]
        manager = managers.get(opp.owner_id)
        if status in ("In Review", "Approved", "Rejected") and not manager:
            status = "Draft"
        created = between(rng, max(opp.created_at, now - timedelta(days=60)), now - timedelta(days=1))
        qid = len(quotes) + 1
        quote_lines = []
        for li in items:
            # Needs approval: a deeper discount than the threshold on the main line.
            if status in ("In Review", "Approved", "Rejected") and li.sort_order == 0:
                discount = float(rng.choice([22, 25, 30, 35]))
            elif li.sort_order == 0 and rng.random() < 0.6:
                discount = float(rng.choice([5, 10, 12, 15, 20]))
            else:
                discount = None
            total = round(li.quantity * li.unit_price * (1 - (discount or 0) / 100), 2)
            quote_lines.append(QuoteLineItem(id=len(qlines) + len(quote_lines) + 1, quote_id=qid, product_id=li.product_id, quantity=li.quantity,
                                             list_price=li.list_price, unit_price=li.unit_price, discount=discount, total_price=total,
                                             sort_order=li.sort_order))
        qlines += quote_lines
        subtotal, total = quote_totals(quote_lines)
        acct = built.account(opp.account_id) if opp.account_id else None
        quotes.append(Quote(
            id=qid, quote_number=f"{qid:08d}", name=f"{acct.name if acct else opp.name} Quote {created:%b %Y}", opportunity_id=opp.id,
            account_id=opp.account_id, pricebook_id=1, status=status,
            expiration_date=(created + timedelta(days=rng.choice([30, 45, 60]))).date(), subtotal=subtotal, total_price=total,
            owner_id=opp.owner_id, created_at=created, updated_at=created, created_by_id=opp.owner_id,
        ))
        if status in ("In Review", "Approved", "Rejected"):
            decided = status != "In Review"
            top = max((ql.discount or 0) for ql in quote_lines)
            approvals.append(ApprovalRequest(
                id=len(approvals) + 1, quote_id=qid, status={"In Review": "Pending", "Approved": "Approved", "Rejected": "Rejected"}[status],
                submitter_id=opp.owner_id, approver_id=manager, submitted_at=created + timedelta(hours=2),
                submit_comments=rng.choice(SUBMIT_COMMENTS).format(discount=f"{top:g}%", account=acct.name if acct else "the customer"),
                decided_at=created + timedelta(hours=rng.randint(5, 40)) if decided else None,
                comments=(rng.choice(APPROVE_COMMENTS if status == "Approved" else REJECT_COMMENTS) if decided else None),
            ))
    return quotes, qlines, approvals


SUBMIT_COMMENTS = [
    "{account} asked for {discount} off to match their budget cycle; multi-year commitment offsets it.",
    "Competitive pressure: the other bid is lower. Requesting {discount} to close this quarter.",
    "{discount} discount requested in exchange for a case study and reference calls.",
    "Procurement at {account} will not sign above this number. {discount} is the floor they accept.",
]
APPROVE_COMMENTS = ["Approved: strategic logo, keep the term at three years.", "OK this time; no further concessions.", "Approved given the multi-year term."]
REJECT_COMMENTS = ["Too deep for a single-year term. Come back at 20% or below.", "Rejected: trade for a longer term instead of price.",
                   "No: this sets a precedent for the whole vertical."]


# -- territories and addresses --------------------------------------------------------------------------------------
EAST_STATES = {"NY", "MA", "PA", "NJ", "GA", "FL", "NC", "VA", "DC", "OH", "MI", "IL", "IN", "TN", "MN", "MD", "CT", "WI", "MO", "KY", "SC"}
COUNTRY_TERRITORY = {"Canada": "AMER-East", "Brazil": "LATAM", "United Kingdom": "EMEA", "Germany": "EMEA", "France": "EMEA",
                     "Netherlands": "EMEA", "Australia": "APAC", "Japan": "APAC", "India": "APAC"}


def account_territory(country: str | None, state: str | None) -> str:
    if country == "United States" or not country:
        return "AMER-East" if state in EAST_STATES else "AMER-West"
    return COUNTRY_TERRITORY.get(country, "EMEA")


def seed_territories(built: Built) -> tuple[list[Territory], list[UserTerritory]]:
    """Territories by region; each account falls in the one of its billing address; each rep covers the
    territory most of their accounts are in, and a manager covers their team's."""
    territories = [Territory(id=i, name=n, description=d) for i, (n, d) in enumerate(zip(TERRITORIES, (
        "US states east of the Mississippi and Canada", "US states west of the Mississippi", "Latin America",
        "Europe, the Middle East and Africa", "Asia Pacific")), 1)]
    ids = {t.name: t.id for t in territories}
    counts: dict[int, dict[int, int]] = {}
    for acct in built.accounts:
        acct.territory_id = ids[account_territory(acct.billing_country, acct.billing_state)]
        if acct.owner_id:
            per = counts.setdefault(acct.owner_id, {})
            per[acct.territory_id] = per.get(acct.territory_id, 0) + 1
    members: list[UserTerritory] = []
    for user in built.users:
        per = counts.get(user.id)
        if not per:
            continue
        top = sorted(per.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        members.append(UserTerritory(id=len(members) + 1, user_id=user.id, territory_id=top))
    return territories, members


def seed_shipping(built: Built) -> None:
    """Shipping addresses: most accounts ship to their billing address, some to a warehouse, some are blank."""
    rng = built.ctx.random("crm.shipping")
    for acct in built.accounts:
        r = rng.random()
        if r < 0.25 or not acct.billing_city:
            continue
        if r < 0.85:
            acct.shipping_street, acct.shipping_city, acct.shipping_state = acct.billing_street, acct.billing_city, acct.billing_state
            acct.shipping_postal_code, acct.shipping_country = acct.billing_postal_code, acct.billing_country
        else:
            city, state, postal, _area = rng.choice(vocab.US_CITIES)
            acct.shipping_street = f"{rng.randint(100, 9800)} {rng.choice(WAREHOUSE_STREETS)}"
            acct.shipping_city, acct.shipping_state, acct.shipping_postal_code, acct.shipping_country = city, state, postal, "United States"


WAREHOUSE_STREETS = ["Distribution Way", "Logistics Pkwy", "Commerce Dr, Dock 4", "Industrial Blvd", "Freight Ln, Bldg C", "Harbor Rd"]

# The loss reason each seeded lost deal's description implies.
LOSS_FROM_DESCRIPTION = {
    "Lost to competitor on price.": ("Lost to Competitor", True),
    "Budget frozen for the fiscal year.": ("No Budget / Lost Funding", False),
    "No decision: project postponed.": ("No Decision / Non-Responsive", False),
    "Chose an in-house solution.": ("Other", False),
}
COMPETITORS = ["Northwind Systems", "Initrode", "Globex", "Vandelay Industries", "Umbrella Software", "Hooli"]


def seed_loss_reasons(built: Built) -> None:
    rng = built.ctx.random("crm.loss_reasons")
    for opp in built.opportunities:
        if opp.stage != "Closed Lost":
            continue
        reason, competitor = LOSS_FROM_DESCRIPTION.get(opp.description or "", ("Other", False))
        opp.loss_reason = reason
        if competitor or rng.random() < 0.3:
            opp.main_competitors = rng.choice(COMPETITORS)


__all__ = ["seed_catalog", "seed_line_items", "seed_quotes", "seed_territories", "seed_shipping", "seed_loss_reasons"]
