"""Opportunities (with contact roles) and leads (a share converted into the accounts, contacts and deals)."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from ..models import Lead, Opportunity, OpportunityContactRole
from ..picklists import CONTACT_ROLES, INDUSTRIES, LEAD_SOURCES, OPEN_STAGES, RATINGS, STAGE_FORECAST, STAGE_PROBABILITY
from . import vocab
from .accounts import _Names, slug
from .base import Built, ago, between, updated_after, weighted

OPPORTUNITIES_PER_SCALE = 250
LEADS_PER_SCALE = 200
ACCOUNT_TYPE_WEIGHT = {"Customer - Direct": 3.0, "Customer - Channel": 2.5, "Prospect": 1.5}
# Earlier stages hold more deals, as in a real funnel.
OPEN_STAGE_WEIGHTS = dict(zip(OPEN_STAGES, [16, 14, 13, 11, 9, 8, 10, 8]))
OUTCOME = {"open": 50, "Closed Won": 30, "Closed Lost": 20}


def _quantity(rng, unit: str) -> int:
    if unit in ("seats", "units"):
        return rng.choice([10, 25, 50, 75, 100, 150, 200, 250, 500, 750, 1000, 1200, 2000])
    if unit == "days":
        return rng.choice([5, 10, 15, 20, 30, 40, 60])
    if unit == "TB":
        return rng.choice([5, 10, 20, 50, 100, 250])
    return rng.randint(1, 4)


def _opportunity_type(rng, account_type: str | None, pattern: str) -> str:
    if "Renewal" in pattern:
        return rng.choice(["Existing Business - Replacement", "Existing Business - Upgrade", "Existing Business - Downgrade"])
    if "Expansion" in pattern:
        return "Existing Business - Upgrade"
    if account_type == "Prospect" or rng.random() < 0.4:
        return "New Business"
    return rng.choice(["Existing Business - Upgrade", "Existing Business - Replacement"])


def seed_opportunities(built: Built) -> tuple[list[Opportunity], list[OpportunityContactRole]]:
    ctx, now, today = built.ctx, built.now, built.now.date()
    rng = ctx.random("crm.opportunities")
    accounts = built.accounts
    weights = [ACCOUNT_TYPE_WEIGHT.get(a.type, 0.8) for a in accounts]
    reps = built.sales_reps
    opps: list[Opportunity] = []
    roles: list[OpportunityContactRole] = []
    names: set[str] = set()
    for i in range(OPPORTUNITIES_PER_SCALE * ctx.scale):
        acct = rng.choices(accounts, weights=weights)[0]
        product, unit, lo, hi = rng.choice(vocab.PRODUCTS)
        qty = _quantity(rng, unit)
        pattern = rng.choice(vocab.OPPORTUNITY_PATTERNS)
        name = pattern.format(account=acct.name, qty=f"{qty:,}", product=product)
        if name in names:  # the same deal twice reads like a data error: make it a distinct phase
            name = f"{name} - Phase {sum(1 for o in opps if o.name.startswith(name)) + 2}"
        names.add(name)
        amount = float(round(qty * rng.randint(lo, hi), -2))
        outcome = weighted(rng, OUTCOME)
        if outcome == "open":
            stage = weighted(rng, OPEN_STAGE_WEIGHTS)
            if rng.random() < 0.12:  # overdue: the rep has not updated the close date
                late = rng.randint(1, 45)
                close, created = today - timedelta(days=late), ago(rng, now, late + 14, late + 200)
            else:
                close, created = today + timedelta(days=rng.randint(1, 180)), ago(rng, now, 1, 200)
        else:
            stage = outcome
            age = (today - acct.created_at.date()).days
            close = today - timedelta(days=rng.randint(2, max(3, min(420, age - 30))))
            created = max(acct.created_at, datetime.combine(close, time(9)) - timedelta(days=rng.randint(20, 150)))
        if outcome == "Closed Lost":
            description = rng.choice(vocab.LOSS_REASONS)
        else:
            units = unit[:-1] if qty == 1 and unit.endswith("s") else unit
            description = f"{product}: {qty:,} {units}." if rng.random() < 0.5 else None
        owner = acct.owner_id if rng.random() < 0.85 else rng.choice(reps).id
        closed_day = datetime.combine(close, time(17))
        opp = Opportunity(
            id=i + 1,
            name=name,
            account_id=acct.id,
            amount=amount,
            stage=stage,
            probability=STAGE_PROBABILITY[stage],
            close_date=close,
            type=_opportunity_type(rng, acct.type, pattern),
            lead_source=rng.choice(LEAD_SOURCES) if rng.random() < 0.7 else None,
            next_step=rng.choice(vocab.NEXT_STEPS) if outcome == "open" and rng.random() < 0.8 else None,
            forecast_category=STAGE_FORECAST[stage],
            description=description,
            owner_id=owner,
            created_at=created,
            updated_at=between(rng, closed_day, now) if outcome != "open" and closed_day < now else updated_after(rng, created, now),
            created_by_id=owner,
        )
        opps.append(opp)
        contacts = built.contacts_by_account.get(acct.id, [])
        if contacts and rng.random() < 0.9:
            for n, contact in enumerate(rng.sample(contacts, min(len(contacts), rng.randint(1, 3)))):
                roles.append(OpportunityContactRole(
                    id=len(roles) + 1, opportunity_id=opp.id, contact_id=contact.id,
                    role=rng.choice(CONTACT_ROLES[:3]) if n == 0 else rng.choice(CONTACT_ROLES), is_primary=n == 0,
                ))
    built.opportunities = opps
    return opps, roles


def seed_leads(built: Built, roles: list[OpportunityContactRole]) -> list[Lead]:
    """Open and closed leads at new companies, plus converted leads that became contacts and deals."""
    ctx, now = built.ctx, built.now
    rng, fake = ctx.random("crm.leads"), ctx.faker("crm.leads")
    total = LEADS_PER_SCALE * ctx.scale
    leads: list[Lead] = []
    primary = {r.opportunity_id: r.contact_id for r in roles if r.is_primary}
    contacts_by_id = {c.id: c for c in built.contacts}
    used: set[int] = set()

    # Converted leads: the lead's person is the deal's primary contact (or a contact without a deal).
    n_converted = round(total * 0.22)
    candidates = [o for o in built.opportunities if o.id in primary and o.created_at < now - timedelta(days=2)]
    rng.shuffle(candidates)
    for opp in candidates[: round(n_converted * 0.7)]:
        contact = contacts_by_id[primary[opp.id]]
        if contact.id in used:
            continue
        used.add(contact.id)
        # The contact was created by the conversion that also created the deal.
        contact.created_at = opp.created_at
        contact.updated_at = max(contact.updated_at, contact.created_at)
        opp.lead_source = contact.lead_source = contact.lead_source or rng.choice(LEAD_SOURCES)
        leads.append(_converted(built, rng, contact, opp))
    pool = [c for c in built.contacts if c.id not in used]
    rng.shuffle(pool)
    for contact in pool[: n_converted - len(leads)]:
        used.add(contact.id)
        contact.lead_source = contact.lead_source or rng.choice(LEAD_SOURCES)
        leads.append(_converted(built, rng, contact, None))

    # Leads at companies that are not accounts yet.
    names = _Names(rng)
    names.taken.update(a.name for a in built.accounts)
    statuses = {"Open - Not Contacted": 35, "Working - Contacted": 38, "Closed - Not Converted": 27}
    while len(leads) < total:
        industry = rng.choice(INDUSTRIES)
        company, base = names.new(industry)
        female = rng.random() < 0.5
        first = fake.first_name_female() if female else fake.first_name_male()
        last = fake.last_name()
        status = weighted(rng, statuses)
        created = ago(rng, now, 1, 120) if status != "Closed - Not Converted" else ago(rng, now, 30, 500)
        title, _, _ = rng.choice(vocab.CONTACT_TITLES)
        country = "United States" if rng.random() < 0.85 else rng.choice(list(vocab.INTL_CITIES))
        city, state, _, area = rng.choice(vocab.US_CITIES) if country == "United States" else rng.choice(vocab.INTL_CITIES[country])
        employees = rng.choice([15, 40, 80, 120, 250, 400, 800, 1500, 3000, 6000])
        owner = rng.choice(built.sales_reps).id
        lead = Lead(
            salutation="Ms." if female else "Mr.",
            first_name=first,
            last_name=last,
            company=company,
            title=title,
            status=status,
            source=rng.choice(LEAD_SOURCES),
            rating=rng.choice(RATINGS) if rng.random() < 0.7 else None,
            industry=industry,
            email=f"{slug(first)}.{slug(last)}@{slug(base)}.com" if rng.random() < 0.92 else None,
            phone=f"({area}) 555-{rng.randint(100, 9999):04d}" if country == "United States" else f"{area} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}",
            annual_revenue=float(employees * rng.randint(100, 300) * 1000) if rng.random() < 0.6 else None,
            employees=employees if rng.random() < 0.8 else None,
            city=city,
            state=state or None,
            country=country,
            description=rng.choice(vocab.LEAD_NOTES) if rng.random() < 0.4 else None,
            owner_id=owner,
            created_at=created,
            updated_at=updated_after(rng, created, now),
            created_by_id=owner,
        )
        leads.append(lead)
    for i, lead in enumerate(leads, 1):
        lead.id = i
    built.leads = leads
    return leads


def _converted(built: Built, rng, contact, opp) -> Lead:
    acct = built.account(contact.account_id)
    converted_at = contact.created_at
    created = converted_at - timedelta(days=rng.randint(3, 60), hours=rng.randint(0, 8))
    return Lead(
        salutation=contact.salutation,
        first_name=contact.first_name,
        last_name=contact.last_name,
        company=acct.name,
        title=contact.title,
        status="Closed - Converted",
        source=contact.lead_source,
        rating=rng.choice(RATINGS),
        industry=acct.industry,
        email=contact.email,
        phone=contact.phone,
        annual_revenue=acct.annual_revenue,
        employees=acct.employees,
        city=acct.billing_city,
        state=acct.billing_state,
        country=acct.billing_country,
        owner_id=contact.owner_id,
        created_at=created,
        updated_at=converted_at,
        created_by_id=contact.owner_id,
        converted_account_id=acct.id,
        converted_contact_id=contact.id,
        converted_opportunity_id=opp.id if opp else None,
        converted_at=converted_at,
    )
