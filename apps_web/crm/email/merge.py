"""Merge fields of email templates, as Salesforce's classic syntax: ``{!Contact.FirstName}``.

A field of a person (Contact, Lead, Recipient) reads the WhoId, a field of a record (Account,
Opportunity, Case) the WhatId or the account it rolls up to, ``User`` the sender. An unknown field
merges to nothing, as in Salesforce; a known field without a value too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape
from typing import Any, Callable

from ...identity.models import User
from ...ui import fmt_date, money
from ..models import Account, Case, Contact, Lead, Opportunity

MERGE = re.compile(r"\{!\s*([A-Za-z]+)\.([A-Za-z]+)\s*\}")


@dataclass
class MergeContext:
    user: User
    contact: Contact | None = None
    lead: Lead | None = None
    account: Account | None = None
    opportunity: Opportunity | None = None
    case: Case | None = None


def _person() -> dict[str, Callable[[Any], Any]]:
    return {
        "FirstName": lambda r: r.first_name, "LastName": lambda r: r.last_name, "Name": lambda r: r.name,
        "Email": lambda r: r.email, "Title": lambda r: r.title, "Phone": lambda r: r.phone,
    }


FIELDS: dict[str, dict[str, Callable[[Any], Any]]] = {
    "Contact": _person(),
    "Lead": {**_person(), "Company": lambda r: r.company, "Status": lambda r: r.status},
    "User": {"FirstName": lambda u: u.first_name, "LastName": lambda u: u.last_name, "Name": lambda u: u.name,
             "Email": lambda u: u.email, "Title": lambda u: u.title, "Phone": lambda u: u.phone},
    "Account": {"Name": lambda a: a.name, "Phone": lambda a: a.phone, "Website": lambda a: a.website,
                "BillingCity": lambda a: a.billing_city},
    "Opportunity": {"Name": lambda o: o.name, "Amount": lambda o: money(o.amount, 2) if o.amount is not None else "",
                    "CloseDate": lambda o: fmt_date(o.close_date), "StageName": lambda o: o.stage, "NextStep": lambda o: o.next_step},
    "Case": {"CaseNumber": lambda c: c.case_number, "Subject": lambda c: c.subject, "Status": lambda c: c.status,
             "Priority": lambda c: c.priority},
}
FIELDS["Recipient"] = FIELDS["Contact"]


def _source(ctx: MergeContext, obj: str) -> Any:
    if obj == "Recipient":
        return ctx.contact or ctx.lead
    return {"Contact": ctx.contact, "Lead": ctx.lead, "User": ctx.user, "Account": ctx.account,
            "Opportunity": ctx.opportunity, "Case": ctx.case}.get(obj)


def value_of(ctx: MergeContext, obj: str, name: str) -> str:
    getter = FIELDS.get(obj, {}).get(name)
    record = _source(ctx, obj)
    if getter is None or record is None:
        return ""
    value = getter(record)
    return "" if value is None else str(value)


def merge(text: str, ctx: MergeContext, *, html: bool = False) -> str:
    """``text`` with every merge field replaced (escaped when ``html``)."""
    def sub(m: re.Match) -> str:
        value = value_of(ctx, m.group(1), m.group(2))
        return escape(value) if html else value

    return MERGE.sub(sub, text or "")


def fields_used(text: str) -> list[str]:
    return [f"{a}.{b}" for a, b in MERGE.findall(text or "")]
