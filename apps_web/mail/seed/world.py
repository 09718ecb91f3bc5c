"""What the mail generator reads from the rest of the world: people, and the CRM's book of business."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import text


@dataclass
class Person:
    address: str
    name: str
    first: str
    title: str = ""
    company: str = ""
    phone: str = ""
    user_id: int | None = None  # set for employees (who have a mailbox)
    role: str = ""
    manager_id: int | None = None
    department: str = ""


@dataclass
class CrmData:
    accounts: dict[int, dict[str, Any]] = field(default_factory=dict)
    contacts: dict[int, dict[str, Any]] = field(default_factory=dict)
    opportunities: list[dict[str, Any]] = field(default_factory=list)
    cases: list[dict[str, Any]] = field(default_factory=list)
    primary_contact: dict[int, int] = field(default_factory=dict)  # opportunity id -> contact id


def _rows(session, sql: str) -> list[dict[str, Any]]:
    return [dict(r._mapping) for r in session.execute(text(sql))]


def load_people(session, company: str) -> list[Person]:
    people = []
    for r in _rows(session, "select id, email, first_name, last_name, title, phone, role, manager_id, department from identity_user where active order by id"):
        people.append(Person(address=r["email"].lower(), name=f"{r['first_name']} {r['last_name']}", first=r["first_name"], title=r["title"],
                             company=company, phone=r["phone"], user_id=r["id"], role=r["role"], manager_id=r["manager_id"], department=r["department"]))
    return people


def load_crm(session) -> CrmData:
    """The CRM's records, when the CRM is installed (its tables may be empty or absent)."""
    tables = {r["name"] for r in _rows(session, "select name from sqlite_master where type='table'")}
    data = CrmData()
    if "crm_opportunity" not in tables:
        return data
    data.accounts = {r["id"]: r for r in _rows(session, "select id, name, industry, billing_city as city, owner_id from crm_account order by id")}
    data.contacts = {r["id"]: r for r in _rows(session, """
        select id, first_name, last_name, title, email, phone, account_id from crm_contact
        where email is not null and first_name is not null order by id""")}
    data.opportunities = _rows(session, """
        select id, name, account_id, amount, stage, close_date, next_step, owner_id, description from crm_opportunity order by id""")
    data.cases = _rows(session, """
        select id, case_number, subject, status, priority, account_id, contact_id, owner_id, created_at from crm_case order by id""")
    for r in _rows(session, "select opportunity_id, contact_id from crm_opportunity_contact_role where is_primary order by id"):
        data.primary_contact.setdefault(r["opportunity_id"], r["contact_id"])
    return data
