"""Duplicate rules and matching rules for accounts, contacts and leads (Salesforce's Duplicate Management).

A matching rule says when two records are the same company or person:

- Standard Account Matching Rule: the account names match once case, punctuation and legal suffixes
  ("Inc.", "Corp", "LLC"...) are set aside, and the billing cities match (a blank city matches nothing).
- Standard Contact Matching Rule: the same email (any case), or the same first and last name at the
  same account.
- Standard Lead Matching Rule: the same email, or the same first and last name at the same company
  (its name compared like an account's).

A duplicate rule (``crm_duplicate_rule``) applies a matching rule when a record is created or edited:
``Allow`` saves after the alert (the user saves again), ``Block`` refuses with the rule's message.
``check_save`` is the one entry point the dialogs and the JSON API use; ``find_duplicates`` feeds the
record page's "We found N potential duplicates" card.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, or_
from sqlmodel import Session, select

from .models import Account, Contact, DuplicateRule, Lead

DUP_OBJECTS = ("account", "contact", "lead")
MODELS = {"account": Account, "contact": Contact, "lead": Lead}
MATCHING_RULES = {
    "account": "Standard Account Matching Rule",
    "contact": "Standard Contact Matching Rule",
    "lead": "Standard Lead Matching Rule",
}
SUFFIXES = {"inc", "incorporated", "corp", "corporation", "co", "company", "llc", "ltd", "limited", "plc", "gmbh", "ag", "sa",
            "srl", "bv", "nv", "pty", "lp", "llp", "the"}
_PUNCT = re.compile(r"[^\w\s]")


def company_key(name: str | None) -> str:
    """'ACME Corp.' and 'Acme Corporation' and 'Acme, Inc.' all give 'acme'."""
    words = _PUNCT.sub(" ", (name or "").lower().replace("&", " and ")).split()
    kept = [w for w in words if w not in SUFFIXES]
    return " ".join(kept or words)


def _text(value: Any) -> str:
    return " ".join(str(value or "").lower().split())


def _same_city(a: Any, b: Any) -> bool:
    """Blank fields don't match (Salesforce's default for matching rules)."""
    return bool(_text(a)) and _text(a) == _text(b)


def _get(values: Any, name: str) -> Any:
    return values.get(name) if isinstance(values, dict) else getattr(values, name, None)


def _candidates(session: Session, object_key: str, values: Any, exclude: set[int]) -> list:
    model = MODELS[object_key]
    if object_key == "account":
        key = company_key(_get(values, "name"))
        if not key:
            return []
        first = key.split()[0]
        rows = session.exec(select(Account).where(func.lower(Account.name).contains(first)).order_by(Account.id)).all()
        return [a for a in rows if a.id not in exclude and company_key(a.name) == key and _same_city(a.billing_city, _get(values, "billing_city"))]
    email = _text(_get(values, "email"))
    first, last = _text(_get(values, "first_name")), _text(_get(values, "last_name"))
    conds = []
    if email:
        conds.append(func.lower(model.email) == email)
    if last:
        conds.append(func.lower(model.last_name) == last)
    if not conds:
        return []
    rows = session.exec(select(model).where(or_(*conds)).order_by(model.id)).all()
    out = []
    for r in rows:
        if r.id in exclude:
            continue
        if email and _text(r.email) == email:
            out.append(r)
            continue
        if not first or _text(r.first_name) != first or _text(r.last_name) != last:
            continue
        if object_key == "contact":
            account = _get(values, "account_id")
            if account not in (None, "") and str(r.account_id) == str(account):
                out.append(r)
        elif company_key(r.company) and company_key(r.company) == company_key(_get(values, "company")):
            out.append(r)
    return out


def active_rule(session: Session, object_key: str) -> DuplicateRule | None:
    if object_key not in DUP_OBJECTS:
        return None
    return session.exec(select(DuplicateRule).where(DuplicateRule.object_type == object_key, DuplicateRule.active == True)  # noqa: E712
                        .order_by(DuplicateRule.sort_order, DuplicateRule.id)).first()


def find_duplicates(session: Session, object_key: str, values: Any, record_id: int | None = None) -> list:
    """Records that the object's matching rule says are the same as ``values`` (a record or a dict)."""
    if object_key not in DUP_OBJECTS:
        return []
    return _candidates(session, object_key, values, {record_id} if record_id else set())


@dataclass
class DuplicateCheck:
    rule: DuplicateRule
    matches: list
    blocked: bool

    @property
    def ids(self) -> str:
        return ",".join(str(r.id) for r in self.matches)


def check_save(session: Session, object_key: str, values: dict[str, Any], record: Any = None) -> DuplicateCheck | None:
    """What the object's active duplicate rule says about saving ``values`` (merged over ``record``
    for an edit); None when no rule applies or nothing matches."""
    rule = active_rule(session, object_key)
    if rule is None:
        return None
    merged = {k: getattr(record, k, None) for k in ("name", "billing_city", "email", "first_name", "last_name", "account_id", "company")} if record else {}
    merged.update(values)
    matches = find_duplicates(session, object_key, merged, getattr(record, "id", None))
    if not matches:
        return None
    action = rule.action_on_edit if record is not None else rule.action_on_create
    if action != "Block" and not rule.alert:
        return None
    return DuplicateCheck(rule, matches, blocked=action == "Block")


def alert_message(object_key: str) -> str:
    from .objects import OBJECTS

    return f"It looks like you're creating a duplicate {OBJECTS[object_key].label}. We recommend you use an existing record instead."


def card_message(object_key: str, n: int) -> str:
    from .objects import OBJECTS

    label = OBJECTS[object_key].label
    return f"We found {'no' if n == 0 else n} potential duplicate{'' if n == 1 else 's'} of this {label}."


DEFAULT_RULES = [
    # (name, object, alert text)
    ("Standard Account Duplicate Rule", "account", "Use one of these records?"),
    ("Standard Contact Duplicate Rule", "contact", "Use one of these records?"),
    ("Standard Lead Duplicate Rule", "lead", "Use one of these records?"),
]


def default_rules(now) -> list[DuplicateRule]:  # noqa: ANN001
    return [DuplicateRule(id=i, name=name, object_type=obj, matching_rule=MATCHING_RULES[obj], alert_text=text, created_at=now, updated_at=now)
            for i, (name, obj, text) in enumerate(DEFAULT_RULES, start=1)]


__all__ = ["DUP_OBJECTS", "DuplicateCheck", "active_rule", "alert_message", "card_message", "check_save", "company_key", "find_duplicates"]
