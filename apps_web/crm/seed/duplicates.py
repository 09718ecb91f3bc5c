"""Near-duplicate records and the standard duplicate rules, appended to a finished world.

This runs after every app's generator (``AppSpec.seed_last``) from its own seeded namespace, and only
adds rows after the existing ones: no existing row or id changes, and no other app's data does. A real
org has a few of each: an account entered twice by different reps ("Acme Corp." and "ACME
Corporation" in the same city), a contact created again with another address at the same company,
a lead imported twice from two campaigns.
"""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from ...identity.models import Role, User
from ...world.seeding import SeedContext
from ..duplicates import company_key, default_rules
from ..models import Account, Activity, Contact, Lead, Note

ACCOUNT_DUPES, CONTACT_DUPES, LEAD_DUPES = 4, 4, 3
SUFFIX_FORMS = ["Inc.", ", Inc.", "Corp.", "Corporation", "LLC", "Co.", ""]
ACCOUNT_NOTES = [
    "Created from the {event} badge scan list; the rep did not find the existing account.",
    "Entered by {rep} from a partner referral before the account was found in the system.",
    "Imported with the {event} attendee file. Phone and revenue are from the import, not verified.",
]
EVENTS = ["Dreamforce", "SaaStr Annual", "Gartner Symposium", "AWS re:Invent", "regional customer summit", "HIMSS"]
CONTACT_NOTES = [
    "Added from an email signature; may already exist under a different address.",
    "Created by {rep} after a call; {first} gave a direct line instead of the main number.",
]
LEAD_SOURCES_DUP = ["Trade Show", "Web", "Partner Referral", "Purchased List"]


def _variant(rng, name: str, taken: set[str]) -> str:  # noqa: ANN001
    """Another way to write the same company name: a different legal suffix, case or punctuation."""
    key_words = name.split()
    core = " ".join(w for w in key_words if company_key(w) != "" and w.rstrip(".,").lower() not in
                    {"inc", "corp", "corporation", "llc", "ltd", "co", "limited", "company"})
    forms = [f"{core}{s}" if s.startswith(",") else (f"{core} {s}" if s else core) for s in SUFFIX_FORMS]
    forms += [core.upper(), f"{core}, Inc"]
    rng.shuffle(forms)
    for form in forms:
        if form != name and form not in taken and company_key(form) == company_key(name):
            return form
    return f"{core} Inc."


def seed_duplicates(ctx: SeedContext) -> None:
    session, now = ctx.session, ctx.clock.now
    session.add_all(default_rules(now - timedelta(days=400)))
    accounts = list(session.exec(select(Account).order_by(Account.id)).all())
    if not accounts:
        return
    rng = ctx.random("crm.duplicates")
    fake = ctx.faker("crm.duplicates")
    users = list(session.exec(select(User).where(User.active == True).order_by(User.id)).all())  # noqa: E712
    reps = [u for u in users if u.role in (Role.sales_rep, Role.sales_manager)] or users
    contacts = list(session.exec(select(Contact).order_by(Contact.id)).all())
    leads = list(session.exec(select(Lead).order_by(Lead.id)).all())
    per_account: dict[int, list[Contact]] = {}
    for c in contacts:
        per_account.setdefault(c.account_id, []).append(c)
    names = {a.name for a in accounts}
    keys: dict[str, int] = {}
    for a in accounts:
        keys[company_key(a.name)] = keys.get(company_key(a.name), 0) + 1
    emails = {(c.email or "").lower() for c in contacts}
    next_account, next_contact = accounts[-1].id + 1, contacts[-1].id + 1
    next_lead = leads[-1].id + 1 if leads else 1
    next_activity = (session.exec(select(Activity.id).order_by(Activity.id.desc())).first() or 0) + 1
    next_note = (session.exec(select(Note.id).order_by(Note.id.desc())).first() or 0) + 1
    new: list = []

    def when(lo: int, hi: int):  # noqa: ANN202
        return now - timedelta(seconds=rng.randint(lo * 86400, hi * 86400))

    # -- accounts entered twice (same city; another spelling; a few fields differ) -------------------------
    pool = [a for a in accounts if a.parent_id is None and keys[company_key(a.name)] == 1 and a.website and a.billing_city]
    for original in rng.sample(pool, min(ACCOUNT_DUPES, len(pool))):
        name = _variant(rng, original.name, names)
        names.add(name)
        created = when(5, 90)
        rep = rng.choice(reps)
        dup = Account(
            id=next_account, name=name, type=rng.choice(["Prospect", original.type]), industry=original.industry if rng.random() < 0.6 else None,
            rating=rng.choice(["Warm", "Cold", None]), annual_revenue=round((original.annual_revenue or 1e6) * rng.uniform(0.6, 1.4), -3),
            employees=original.employees if rng.random() < 0.5 else max(10, round((original.employees or 50) * rng.uniform(0.8, 1.2), -1)), phone=fake.numerify("(%##) 555-####"), website=original.website,
            billing_street=fake.street_address() if rng.random() < 0.5 else original.billing_street, billing_city=original.billing_city,
            billing_state=original.billing_state, billing_postal_code=original.billing_postal_code, billing_country=original.billing_country,
            description=rng.choice(ACCOUNT_NOTES).format(event=rng.choice(EVENTS), rep=rep.name), owner_id=rep.id,
            territory_id=original.territory_id, created_at=created, updated_at=created, created_by_id=rep.id)
        next_account += 1
        new.append(dup)
        domain = original.website.removeprefix("www.")
        for _ in range(3):  # every account has its people (3 to 5)
            first, last = fake.first_name(), fake.last_name()
            email = f"{first[0]}{last}@{domain}".lower()
            if email in emails:
                email = f"{first}.{last}{rng.randint(2, 99)}@{domain}".lower()
            emails.add(email)
            new.append(Contact(id=next_contact, first_name=first, last_name=last, title=rng.choice(["Procurement Manager", "IT Director", "Office Manager", "Operations Lead"]),
                               email=email, phone=dup.phone, account_id=dup.id, lead_source="Trade Show", mailing_city=dup.billing_city,
                               mailing_state=dup.billing_state, mailing_country=dup.billing_country, owner_id=rep.id,
                               created_at=created, updated_at=created, created_by_id=rep.id))
            next_contact += 1
        done = created + timedelta(days=rng.randint(1, 4))
        new.append(Activity(id=next_activity, kind="call", subject=f"Intro call with {name}", status="Completed", priority="Normal",
                            due_date=done.date(), call_duration_min=rng.choice([10, 15, 20]), call_result="Left voicemail",
                            description=f"Called the main line of {name}; left a message about the {rng.choice(EVENTS)} follow-up.",
                            related_type="account", related_id=dup.id, assignee_id=rep.id, completed_at=done, created_at=done, updated_at=done,
                            created_by_id=rep.id))
        next_activity += 1
        new.append(Note(id=next_note, title=f"Follow-up for {name}", body=f"Booth conversation at {rng.choice(EVENTS)}: asked for pricing on a pilot.",
                        related_type="account", related_id=dup.id, owner_id=rep.id, created_at=created, updated_at=created, created_by_id=rep.id))
        next_note += 1

    # -- contacts created twice at the same account (another address, another phone) ---------------------
    taken = {a.id for a in new if isinstance(a, Account)}
    cpool = [c for c in contacts if c.first_name and c.email and len(per_account.get(c.account_id, [])) < 5 and c.account_id not in taken]
    chosen_accounts: set[int] = set()
    for original in rng.sample(cpool, min(len(cpool), CONTACT_DUPES * 3)):
        if len(chosen_accounts) >= CONTACT_DUPES or original.account_id in chosen_accounts:
            continue
        chosen_accounts.add(original.account_id)
        domain = original.email.split("@", 1)[1]
        for email in (f"{original.first_name[0]}{original.last_name}@{domain}", f"{original.first_name}@{domain}",
                      f"{original.first_name}.{original.last_name}.{rng.randint(2, 9)}@{domain}"):
            email = email.lower()
            if email not in emails:
                break
        emails.add(email)
        created = when(3, 60)
        rep = rng.choice(reps)
        new.append(Contact(id=next_contact, salutation=original.salutation, first_name=original.first_name, last_name=original.last_name,
                           title=original.title if rng.random() < 0.5 else None, department=original.department, email=email,
                           phone=fake.numerify("(%##) 555-####"), mobile=fake.numerify("(%##) 555-####") if rng.random() < 0.5 else None,
                           account_id=original.account_id, lead_source=rng.choice(LEAD_SOURCES_DUP), mailing_city=original.mailing_city,
                           mailing_state=original.mailing_state, mailing_country=original.mailing_country, owner_id=rep.id,
                           description=rng.choice(CONTACT_NOTES).format(rep=rep.name, first=original.first_name),
                           created_at=created, updated_at=created, created_by_id=rep.id))
        due = (now + timedelta(days=rng.randint(2, 12))).date()
        new.append(Activity(id=next_activity, kind="task", subject=f"Send the product overview to {original.first_name}", status="Not Started",
                            priority="Normal", due_date=due, related_type="contact", related_id=next_contact, contact_id=next_contact,
                            assignee_id=rep.id, created_at=created, updated_at=created, created_by_id=rep.id))
        next_activity += 1
        next_contact += 1

    # -- leads imported twice (same email; the company written another way) ------------------------------
    lpool = [lead for lead in leads if lead.email and lead.first_name and lead.converted_at is None and lead.status != "Closed - Converted"]
    for original in rng.sample(lpool, min(LEAD_DUPES, len(lpool))):
        created = when(2, 45)
        rep = rng.choice(reps)
        company = _variant(rng, original.company, names | {original.company})
        new.append(Lead(id=next_lead, salutation=original.salutation, first_name=original.first_name, last_name=original.last_name, company=company,
                        title=original.title, status="Open - Not Contacted", source=rng.choice(LEAD_SOURCES_DUP), industry=original.industry,
                        email=original.email, phone=fake.numerify("(%##) 555-####"), city=original.city, state=original.state,
                        country=original.country, owner_id=rep.id, description="Imported twice: the second list came from the partner's event registrations.",
                        created_at=created, updated_at=created, created_by_id=rep.id))
        next_lead += 1
    for batch in ([r for r in new if isinstance(r, Account)], [r for r in new if isinstance(r, Contact)], [r for r in new if isinstance(r, Lead)],
                  [r for r in new if isinstance(r, (Activity, Note))]):
        session.add_all(batch)
        session.flush()
