"""What the chat generator reads from the rest of the world: people, the CRM's deals and cases, and
the desk's incidents and configuration items (each only when its app is installed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import text


@dataclass
class Person:
    id: int
    name: str
    first: str
    last: str
    title: str
    role: str
    department: str
    manager_id: int | None


@dataclass
class Facts:
    accounts: dict[int, dict[str, Any]] = field(default_factory=dict)
    contacts: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # account id -> contacts
    opportunities: list[dict[str, Any]] = field(default_factory=list)
    cases: list[dict[str, Any]] = field(default_factory=list)
    incidents: list[dict[str, Any]] = field(default_factory=list)
    cis: dict[int, dict[str, Any]] = field(default_factory=dict)
    groups: dict[int, str] = field(default_factory=dict)


def _rows(session, sql: str) -> list[dict[str, Any]]:
    return [dict(r._mapping) for r in session.execute(text(sql))]


def load_people(session) -> list[Person]:
    return [Person(r["id"], f"{r['first_name']} {r['last_name']}", r["first_name"], r["last_name"], r["title"], r["role"], r["department"], r["manager_id"])
            for r in _rows(session, "select id, first_name, last_name, title, role, department, manager_id from identity_user where active order by id")]


def load_facts(session) -> Facts:
    tables = {r["name"] for r in _rows(session, "select name from sqlite_master where type='table'")}
    f = Facts()
    if "crm_opportunity" in tables:
        f.accounts = {r["id"]: r for r in _rows(session, "select id, name, industry, billing_city as city, owner_id from crm_account order by id")}
        for r in _rows(session, "select id, first_name, last_name, title, account_id from crm_contact where first_name is not null order by id"):
            f.contacts.setdefault(r["account_id"], []).append(r)
        f.opportunities = _rows(session, "select id, name, account_id, amount, stage, close_date, next_step, owner_id, probability from crm_opportunity order by id")
        f.cases = _rows(session, "select id, case_number, subject, status, priority, account_id, owner_id from crm_case order by id")
    if "desk_incident" in tables:
        f.groups = {r["id"]: r["name"] for r in _rows(session, "select id, name from desk_group order by id")}
        f.cis = {r["id"]: r for r in _rows(session, "select id, name, ci_class, os, location from desk_ci order by id")}
        f.incidents = _rows(session, """
            select id, number, short_description, state, priority, ci_id, assignment_group_id, assigned_to_id, caller_id, account_id,
                   opened_at, close_notes, category from desk_incident order by id""")
    return f
