"""Accounts (with parent/child families and a few same-name twins in other cities) and their contacts."""

from __future__ import annotations

import random
import re
from datetime import timedelta

from ..models import Account, Contact
from ..picklists import INDUSTRIES, LEAD_SOURCES, RATINGS
from . import vocab
from .base import Built, ago, between, updated_after, weighted

ACCOUNTS_PER_SCALE = 150
ACCOUNT_TYPES = {
    "Customer - Direct": 40, "Prospect": 30, "Customer - Channel": 12, "Channel Partner / Reseller": 6,
    "Technology Partner": 4, "Installation Partner": 3, "Other": 5,
}
EMPLOYEE_BANDS = [((10, 50), 15), ((50, 200), 25), ((200, 1000), 30), ((1000, 5000), 20), ((5000, 40000), 10)]
COUNTRY_WEIGHTS = {
    "United States": 78, "Canada": 5, "United Kingdom": 5, "Germany": 3, "France": 2, "Australia": 2,
    "Netherlands": 2, "Japan": 1, "Brazil": 1, "India": 1,
}
REGION_COUNTRIES = {
    "Europe": ["Germany", "France", "Netherlands"], "Asia Pacific": ["Australia", "Japan"], "Canada": ["Canada"],
    "UK": ["United Kingdom"], "Latin America": ["Brazil"], "West": ["United States"], "East": ["United States"],
    "Services": ["United States"],
}
WEB_TLD = {"United Kingdom": "co.uk", "Germany": "de", "France": "fr", "Australia": "com.au", "Netherlands": "nl", "Japan": "co.jp", "Brazil": "com.br", "India": "in", "Canada": "ca"}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


class _Names:
    """Unique company names: brand + industry word (+ legal suffix)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.taken: set[str] = set()  # membership only (never iterated: set order is not deterministic)

    def new(self, industry: str) -> tuple[str, str]:
        for _ in range(200):
            brand = self.rng.choice(vocab.BRANDS)
            word = self.rng.choice(vocab.INDUSTRY_WORDS.get(industry, vocab.INDUSTRY_WORDS["Other"]))
            suffix = self.rng.choice(vocab.LEGAL_SUFFIXES)
            plain = word.endswith((".", "Group", "Partners", "Trust", "Holdings", "Enterprises", "Foundation", "Alliance"))
            name = f"{brand} {word}" + (f" {suffix}" if suffix and not plain else "")
            if name not in self.taken and f"{brand} {word}" not in self.taken:
                self.taken.update((name, f"{brand} {word}"))
                return name, f"{brand} {word}"
        raise RuntimeError("ran out of company names")  # pragma: no cover


def _place(rng: random.Random, country: str) -> tuple[str, str, str, str]:
    if country == "United States":
        return rng.choice(vocab.US_CITIES)
    return rng.choice(vocab.INTL_CITIES[country])


def _phone(rng: random.Random, country: str, area: str) -> str:
    if country == "United States":
        return f"({area}) 555-{rng.randint(100, 9999):04d}"
    return f"{area} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"


def _employees(rng: random.Random, large: bool = False) -> int:
    bands = EMPLOYEE_BANDS[3:] if large else EMPLOYEE_BANDS
    lo, hi = rng.choices([b for b, _ in bands], weights=[w for _, w in bands])[0]
    n = rng.randint(lo, hi)
    return n if n < 1000 else round(n, -1)


def _revenue(rng: random.Random, industry: str, employees: int) -> float:
    lo, hi = vocab.REVENUE_PER_EMPLOYEE.get(industry, vocab.DEFAULT_REVENUE_PER_EMPLOYEE)
    value = employees * rng.randint(lo, hi)
    return float(round(value, -5 if value >= 10_000_000 else -4))


def seed_accounts(built: Built) -> list[Account]:
    ctx, rng, now = built.ctx, built.ctx.random("crm.accounts"), built.now
    names = _Names(rng)
    reps = built.sales_reps
    # A few reps carry much bigger books than others, as in real sales teams.
    rep_weights = [rng.choice([1, 1, 2, 3]) for _ in reps]
    total = ACCOUNTS_PER_SCALE * ctx.scale
    accounts: list[Account] = []
    domains: set[str] = set()

    def make(name: str, base: str, industry: str, *, parent: Account | None = None, country: str | None = None,
             large: bool = False, acct_type: str | None = None) -> Account:
        country = country or weighted(rng, COUNTRY_WEIGHTS)
        city, state, postal, area = _place(rng, country)
        employees = _employees(rng, large)
        if parent is not None:  # a subsidiary is a fraction of its group
            employees = max(20, round(parent.employees * rng.uniform(0.05, 0.4), -1))
        domain = f"{slug(base)}.{WEB_TLD.get(country, 'com')}"
        n = 2
        while domain in domains:  # a same-name twin elsewhere has its own web domain
            domain = f"{slug(base)}{slug(city)[:6] if n == 2 else n}.{WEB_TLD.get(country, 'com')}"
            n += 1
        domains.add(domain)
        created = between(rng, parent.created_at + timedelta(days=1), now - timedelta(days=400)) if parent else ago(rng, now, 540, 1800)
        owner = parent.owner_id if parent is not None and rng.random() < 0.8 else rng.choices(reps, weights=rep_weights)[0].id
        acct = Account(
            id=len(accounts) + 1,
            name=name,
            type=acct_type or weighted(rng, ACCOUNT_TYPES),
            industry=industry,
            rating=rng.choice(RATINGS + [None]),
            employees=employees,
            annual_revenue=_revenue(rng, industry, employees),
            phone=_phone(rng, country, area),
            website=f"www.{domain}",
            billing_street=f"{rng.randint(1, 9800)} {rng.choice(vocab.STREET_NAMES)} {rng.choice(vocab.STREET_TYPES)}"
            + (f", Suite {rng.randint(1, 40) * 10}" if rng.random() < 0.35 else ""),
            billing_city=city,
            billing_state=state or None,
            billing_postal_code=postal,
            billing_country=country,
            description=f"{industry} company headquartered in {city}." if rng.random() < 0.4 else None,
            owner_id=owner,
            parent_id=parent.id if parent else None,
            created_at=created,
            updated_at=updated_after(rng, created, now),
            created_by_id=owner,
        )
        accounts.append(acct)
        return acct

    # Parent/child families: "Summit Holdings" with "Summit Europe", "Summit Canada"...
    for _ in range(max(2, round(5 * ctx.scale))):
        industry = rng.choice(INDUSTRIES)
        name, base = names.new(industry)
        parent = make(name, base, industry, large=True, country="United States", acct_type="Customer - Direct")
        for region in rng.sample(vocab.SUBSIDIARY_REGIONS, rng.randint(2, 3)):
            child = f"{base} {region}"
            names.taken.add(child)
            make(child, child, industry, parent=parent, country=rng.choice(REGION_COUNTRIES[region]), acct_type=rng.choice(["Customer - Direct", "Customer - Channel", "Prospect"]))
    # Same-name twins in other cities, so tasks can demand care ("the Acme in Denver").
    twins = []
    for _ in range(3 * ctx.scale):
        industry = rng.choice(INDUSTRIES)
        name, base = names.new(industry)
        twins.append(make(name, base, industry))
    for first in twins:
        make(first.name, first.name, first.industry, country="United States")
    while len(accounts) < total:
        industry = rng.choice(INDUSTRIES)
        name, base = names.new(industry)
        make(name, base, industry)
    built.accounts = accounts
    return accounts


def _email_local(first: str, last: str) -> str:
    return f"{slug(first)}.{slug(last)}"


def seed_contacts(built: Built) -> list[Contact]:
    ctx, now = built.ctx, built.now
    rng, fake = ctx.random("crm.contacts"), ctx.faker("crm.contacts")
    reps = built.sales_reps
    emails: set[str] = set()
    contacts: list[Contact] = []
    for acct in built.accounts:
        domain = acct.website.removeprefix("www.")
        titles = [rng.choice([t for t in vocab.CONTACT_TITLES if t[2] <= 1])]
        titles += rng.sample(vocab.CONTACT_TITLES, rng.randint(2, 4))
        titles.sort(key=lambda t: t[2])  # bosses first, so reports-to points at an earlier id
        mine: list[tuple[Contact, int]] = []
        for title, dept, level in titles:
            female = rng.random() < 0.5
            first = fake.first_name_female() if female else fake.first_name_male()
            last = fake.last_name()
            salutation = "Dr." if rng.random() < 0.06 else ("Ms." if female else "Mr.")
            local, n = _email_local(first, last), 2
            while f"{local}@{domain}" in emails:
                local, n = f"{_email_local(first, last)}{n}", n + 1
            emails.add(f"{local}@{domain}")
            bosses = [c for c, lvl in mine if lvl < level]
            created = between(rng, acct.created_at, now - timedelta(days=20))
            contact = Contact(
                id=len(contacts) + 1,
                salutation=salutation,
                first_name=first,
                last_name=last,
                title=title,
                department=dept,
                email=f"{local}@{domain}",
                phone=_contact_phone(rng, acct.phone),
                mobile=fake.numerify("(%##) 555-####") if rng.random() < 0.6 else None,
                account_id=acct.id,
                reports_to_id=rng.choice(bosses).id if bosses else None,
                lead_source=rng.choice(LEAD_SOURCES) if rng.random() < 0.5 else None,
                mailing_city=acct.billing_city,
                mailing_state=acct.billing_state,
                mailing_country=acct.billing_country,
                owner_id=acct.owner_id if rng.random() < 0.85 else rng.choice(reps).id,
                created_at=created,
                updated_at=updated_after(rng, created, now),
            )
            contact.created_by_id = contact.owner_id
            mine.append((contact, level))
            contacts.append(contact)
        built.contacts_by_account[acct.id] = [c for c, _ in mine]
    built.contacts = contacts
    return contacts


def _contact_phone(rng: random.Random, account_phone: str | None) -> str | None:
    """A direct line in the account's switchboard range."""
    if not account_phone or rng.random() < 0.1:
        return None
    return f"{account_phone[:-4]}{rng.randint(100, 9999):04d}"
