"""Outlook's search syntax: ``from:``, ``to:``, ``subject:``, ``has:attachment``, ``is:unread``,
``is:flagged``, ``before:`` and ``after:`` (dates of the world clock), quoted values and free words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy import and_, exists, false, func, or_, select

from .models import Message, Recipient

TOKEN = re.compile(r'(?:(\w+):)?(?:"([^"]*)"|(\S+))')
OPERATORS = ("from", "to", "subject", "has", "is", "before", "after")
HELP = "Use from:, to:, subject:, has:attachment, is:unread, is:flagged, before: and after: (dates like 2026-03-01), or plain words."


class SearchError(ValueError):
    """A query the search box cannot run; the message says what to change."""


@dataclass
class Query:
    text: list[str] = field(default_factory=list)
    terms: list[tuple[str, str]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.text and not self.terms


def parse_date(value: str, op: str) -> date:
    for fmt in ("%Y-%m-%d", "%m/%d/%Y", "%m/%d/%y", "%b %d %Y", "%B %d %Y"):
        try:
            return datetime.strptime(value.replace(",", ""), fmt).date()
        except ValueError:
            continue
    raise SearchError(f"{op}: needs a date such as 2026-03-01 or 3/1/2026, not \u201c{value}\u201d.")


def parse(q: str) -> Query:
    query = Query()
    for m in TOKEN.finditer(q or ""):
        op, quoted, bare = m.group(1), m.group(2), m.group(3)
        value = quoted if quoted is not None else bare
        if op is None:
            if value:
                query.text.append(value)
            continue
        op = op.lower()
        if op not in OPERATORS:
            # "re:" or a time like "10:30" reads as text; only word:value with a known word is an operator
            query.text.append(m.group(0).strip('"'))
            continue
        if not value:
            raise SearchError(f"{op}: needs a value. {HELP}")
        if op == "has" and value.lower() not in ("attachment", "attachments"):
            raise SearchError(f"has: only knows has:attachment, not \u201c{value}\u201d.")
        if op == "is" and value.lower() not in ("unread", "read", "flagged"):
            raise SearchError(f"is: knows is:unread, is:read and is:flagged, not \u201c{value}\u201d.")
        if op in ("before", "after"):
            parse_date(value, op)
        query.terms.append((op, value))
    return query


def _like(column, value: str):
    return func.lower(column).contains(value.lower(), autoescape=True)


def conditions(query: Query) -> list:
    out = []
    for op, value in query.terms:
        if op == "from":
            out.append(or_(_like(Message.from_address, value), _like(Message.from_name, value)))
        elif op == "to":
            out.append(exists(select(Recipient.id).where(Recipient.message_id == Message.id, or_(_like(Recipient.address, value), _like(Recipient.name, value)))))
        elif op == "subject":
            out.append(_like(Message.subject, value))
        elif op == "has":
            out.append(Message.has_attachments.is_(True))
        elif op == "is":
            v = value.lower()
            out.append(Message.is_read.is_(False) if v == "unread" else Message.is_read.is_(True) if v == "read" else Message.is_flagged.is_(True))
        elif op == "before":
            out.append(Message.sent_at < datetime.combine(parse_date(value, op), datetime.min.time()))
        elif op == "after":
            out.append(Message.sent_at >= datetime.combine(parse_date(value, op) + timedelta(days=1), datetime.min.time()))
    for word in query.text:
        out.append(or_(_like(Message.subject, word), _like(Message.from_name, word), _like(Message.from_address, word), _like(Message.body_html, word)))
    return out or [false()]


__all__ = ["HELP", "Query", "SearchError", "and_", "conditions", "parse"]
