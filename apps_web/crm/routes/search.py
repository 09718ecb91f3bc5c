"""Global search: GET /search?q= finds accounts, contacts, leads, opportunities and cases, grouped by object."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy import and_, func, select

from ...deps import CurrentUser, SessionDep
from ...ui import render
from ..api.query import search_condition
from ..common import users_by_id
from ..models import Account, Case, Contact, Lead, Opportunity
from ..objects import OBJECTS
from ..sharing import visible_here

router = APIRouter()

MIN_CHARS = 2
GROUP_LIMIT = 25  # rows shown per object; the count says how many matched in all


@dataclass(frozen=True)
class Scope:
    key: str
    model: type
    fields: tuple[str, ...]  # what the search looks in (full names are added for people)
    order: tuple[Any, ...]
    columns: tuple[str, ...]  # headers of the result table


SCOPES = [
    Scope("account", Account, ("name", "phone", "website"), (Account.name, Account.id),
          ("Account Name", "Phone", "Billing City", "Type", "Account Owner")),
    Scope("contact", Contact, ("first_name", "last_name", "email", "phone", "mobile"), (Contact.last_name, Contact.first_name, Contact.id),
          ("Name", "Account Name", "Title", "Email", "Phone")),
    Scope("lead", Lead, ("first_name", "last_name", "company", "email", "phone"), (Lead.last_name, Lead.first_name, Lead.id),
          ("Name", "Company", "Status", "Email", "Lead Owner")),
    Scope("opportunity", Opportunity, ("name",), (Opportunity.name, Opportunity.id),
          ("Opportunity Name", "Account Name", "Stage", "Close Date", "Amount")),
    Scope("case", Case, ("case_number", "subject"), (Case.case_number.desc(), Case.id),
          ("Case Number", "Subject", "Account Name", "Status", "Priority")),
]


@dataclass
class Group:
    key: str
    label: str
    plural: str
    icon: str
    color: str
    columns: tuple[str, ...]
    total: int = 0
    rows: list[dict[str, Any]] = field(default_factory=list)  # {"url", "cells": [(text, kind)]}


def _account_names(session, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    return dict(session.execute(select(Account.id, Account.name).where(Account.id.in_(sorted(ids)))).all())


def _cells(key: str, r: Any, owners: dict, accounts: dict[int, str]) -> list[tuple[Any, str]]:
    """(value, kind) per column; kind tells the template how to show it (link, money, date...)."""
    owner = owners.get(getattr(r, "owner_id", None))
    owner_name = owner.name if owner else ""
    account = (accounts.get(r.account_id, ""), f"{OBJECTS['account'].path}/{r.account_id}") if getattr(r, "account_id", None) else ("", "")
    if key == "account":
        return [(r.name, "title"), (r.phone, "text"), (r.billing_city, "text"), (r.type, "text"), (owner_name, "text")]
    if key == "contact":
        return [(r.name, "title"), (account, "link"), (r.title, "text"), (r.email, "email"), (r.phone, "text")]
    if key == "lead":
        return [(r.name, "title"), (r.company, "text"), (r.status, "text"), (r.email, "email"), (owner_name, "text")]
    if key == "opportunity":
        return [(r.name, "title"), (account, "link"), (r.stage, "text"), (r.close_date, "date"), (r.amount, "money")]
    return [(r.case_number, "title"), (r.subject, "text"), (account, "link"), (r.status, "text"), (r.priority, "text")]


def run_search(session, q: str) -> list[Group]:
    groups: list[Group] = []
    found: list[tuple[Scope, Group, list]] = []
    for scope in SCOPES:
        info = OBJECTS[scope.key]
        where = and_(search_condition(scope.model, scope.fields, q), *visible_here(session, scope.key))
        group = Group(scope.key, info.label, info.plural, info.icon, info.color, scope.columns)
        group.total = session.execute(select(func.count()).select_from(scope.model).where(where)).scalar_one()
        records = list(session.execute(select(scope.model).where(where).order_by(*scope.order).limit(GROUP_LIMIT)).scalars()) if group.total else []
        found.append((scope, group, records))
        groups.append(group)
    # Owners and account names in bulk, not one query per row.
    owners = users_by_id(session) if any(records for _, _, records in found) else {}
    accounts = _account_names(session, {r.account_id for _, _, recs in found for r in recs if getattr(r, "account_id", None)})
    for scope, group, records in found:
        info = OBJECTS[scope.key]
        group.rows = [{"url": info.url(r.id), "cells": _cells(scope.key, r, owners, accounts)} for r in records]
    return groups


@router.get("/search")
def search(request: Request, session: SessionDep, user: CurrentUser, q: str = ""):
    q = q.strip()[:255]
    groups: list[Group] = []
    too_short = 0 < len(q) < MIN_CHARS
    if len(q) >= MIN_CHARS:
        groups = run_search(session, q)
    total = sum(g.total for g in groups)
    return render(request, "crm/search.html", search_query=q, q=q, groups=groups, total=total, too_short=too_short,
                  min_chars=MIN_CHARS, group_limit=GROUP_LIMIT)
