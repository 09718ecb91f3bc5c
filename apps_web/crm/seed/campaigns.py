"""Campaigns and their members, appended to a finished world (after every app's data, own sub-seed).

A marketing calendar around the world clock: completed campaigns of last year, campaigns in progress,
planned ones; a parent campaign per year with its programmes; members are leads and contacts, some of
whom responded.
"""

from __future__ import annotations

from datetime import date, timedelta

from sqlmodel import select

from ...identity.models import Role, User
from ...world.seeding import SeedContext
from ..models import Campaign, CampaignMember, Contact, Lead

PROGRAMMES = [
    # (name pattern, type, cost range, members)
    ("{year} Spring Product Webinar Series", "Webinar", (4_000, 12_000), 24),
    ("{event} {year} Booth", "Trade Show", (25_000, 90_000), 30),
    ("Q{q} {year} Customer Newsletter", "Email", (500, 2_000), 40),
    ("{year} Executive Roundtable - {city}", "Conference", (15_000, 40_000), 12),
    ("{year} Partner Referral Program", "Partners", (5_000, 20_000), 15),
    ("{year} Renewal Direct Mail", "Direct Mail", (3_000, 9_000), 20),
    ("Q{q} {year} Paid Search", "Advertisement", (10_000, 35_000), 18),
]
EVENTS = ["Dreamforce", "SaaStr Annual", "Gartner Symposium", "AWS re:Invent", "HIMSS", "NRF Big Show"]
CITIES = ["Chicago", "New York", "San Francisco", "Boston", "Austin", "Toronto", "London"]


def seed_campaigns(ctx: SeedContext) -> None:
    session, now = ctx.session, ctx.clock.now
    leads = list(session.exec(select(Lead).where(Lead.converted_at == None).order_by(Lead.id)).all())  # noqa: E711
    contacts = list(session.exec(select(Contact).order_by(Contact.id)).all())
    users = list(session.exec(select(User).where(User.active == True).order_by(User.id)).all())  # noqa: E712
    if not (leads and contacts and users):
        return
    rng = ctx.random("crm.campaigns")
    owners = [u for u in users if u.role == Role.marketing] or [u for u in users if u.role == Role.sales_manager] or users
    today = now.date()
    campaigns: list[Campaign] = []
    members: list[CampaignMember] = []
    next_id = 1
    for year in (today.year - 1, today.year):
        parent = Campaign(id=next_id, name=f"{year} Demand Generation", type="Other", status="Completed" if year < today.year else "In Progress",
                          start_date=date(year, 1, 1), end_date=date(year, 12, 31), budgeted_cost=float(rng.randrange(250, 600) * 1000),
                          is_active=year == today.year, owner_id=rng.choice(owners).id, expected_revenue=float(rng.randrange(2, 6) * 1_000_000),
                          description=f"Umbrella campaign for every {year} marketing programme.", created_at=now - timedelta(days=500 if year < today.year else 120))
        parent.updated_at = parent.created_at
        campaigns.append(parent)
        next_id += 1
        for pattern, kind, (lo, hi), size in rng.sample(PROGRAMMES, 4):
            q = rng.randint(1, 4) if year < today.year else rng.randint(1, (today.month - 1) // 3 + 2)
            start = date(year, min(12, 3 * (q - 1) + 1), rng.randint(1, 25))
            end = start + timedelta(days=rng.choice([1, 3, 30, 60, 90]))
            status = "Completed" if end < today else ("In Progress" if start <= today else "Planned")
            if rng.random() < 0.08 and status != "Completed":
                status = "Aborted"
            budget = float(rng.randrange(lo, hi, 500))
            actual = round(budget * rng.uniform(0.7, 1.15), -2) if status in ("Completed", "In Progress") else None
            created = now - timedelta(days=max(5, (today - start).days + rng.randint(10, 40)))
            c = Campaign(id=next_id, name=pattern.format(year=year, q=q, event=rng.choice(EVENTS), city=rng.choice(CITIES)), type=kind, status=status,
                         start_date=start, end_date=end, budgeted_cost=budget, actual_cost=actual,
                         expected_revenue=float(round(budget * rng.uniform(4, 12), -3)), expected_response=float(rng.choice([2, 5, 10, 15, 25])),
                         is_active=status != "Aborted" and (status != "Completed" or end > today - timedelta(days=120)),
                         parent_id=parent.id, owner_id=rng.choice(owners).id, created_at=created, updated_at=created, created_by_id=None,
                         description=f"{kind} programme of the {year} plan.")
            campaigns.append(c)
            next_id += 1
            people = rng.sample(leads, min(len(leads), size // 2)) + rng.sample(contacts, min(len(contacts), size - size // 2))
            for p in people:
                responded = status in ("Completed", "In Progress") and rng.random() < 0.3
                added = created + timedelta(days=rng.randint(0, 5))
                members.append(CampaignMember(campaign_id=c.id, lead_id=p.id if isinstance(p, Lead) else None,
                                              contact_id=p.id if isinstance(p, Contact) else None, status="Responded" if responded else "Sent",
                                              has_responded=responded, first_responded_date=(min(end, today) if responded else None),
                                              created_at=added, updated_at=added))
    for i, m in enumerate(members, start=1):
        m.id = i
    session.add_all(campaigns)
    session.flush()
    session.add_all(members)
    session.flush()


def seed_influence(ctx: SeedContext) -> None:
    """Primary Campaign Source of the open and won deals whose contacts (its contact roles, else its
    account's contacts) are members of a programme that started on or before the deal's close date:
    a programme they responded to first, then the earliest (no random draw: every other value of the
    world is kept)."""
    from ..models import Opportunity, OpportunityContactRole

    session = ctx.session
    member_of: dict[int, list[tuple]] = {}
    rows = session.exec(select(CampaignMember.contact_id, CampaignMember.has_responded, Campaign.start_date, CampaignMember.campaign_id)
                        .join(Campaign, Campaign.id == CampaignMember.campaign_id)
                        .where(CampaignMember.contact_id != None, Campaign.parent_id != None)  # noqa: E711
                        .order_by(CampaignMember.id)).all()
    for contact_id, responded, start, campaign_id in rows:
        member_of.setdefault(contact_id, []).append((not responded, start, campaign_id))
    if not member_of:
        return
    roles: dict[int, list[int]] = {}
    for opp_id, contact_id in session.exec(select(OpportunityContactRole.opportunity_id, OpportunityContactRole.contact_id)
                                           .order_by(OpportunityContactRole.id)).all():
        roles.setdefault(opp_id, []).append(contact_id)
    staff: dict[int, list[int]] = {}
    for contact_id, account_id in session.exec(select(Contact.id, Contact.account_id).where(Contact.account_id != None).order_by(Contact.id)).all():  # noqa: E711
        staff.setdefault(account_id, []).append(contact_id)
    opps = session.exec(select(Opportunity).where(Opportunity.stage != "Closed Lost").order_by(Opportunity.id)).all()
    for opp in opps:
        people = roles.get(opp.id) or staff.get(opp.account_id, [])
        hits = sorted(hit for c in people for hit in member_of.get(c, ()) if hit[1] is not None and hit[1] <= opp.close_date)
        if hits:
            opp.campaign_id = hits[0][2]
            session.add(opp)
    session.flush()
