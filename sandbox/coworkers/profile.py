"""Who a co-worker is: role, manager, working hours, reply delay, tone, what they know, what they may
approve, whom they pass topics to. Plain data (a task file's ``actors:``), validated by pydantic."""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)\s*$", re.I)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_HOURS = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")


def parse_duration(text: Any, what: str = "a duration") -> timedelta:
    """``"20m"``, ``"1.5h"``, ``"90s"``, ``"2d"`` (or a number of seconds) as a timedelta."""
    if isinstance(text, timedelta):
        return text
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return timedelta(seconds=float(text))
    m = _DURATION.match(str(text))
    if not m:
        raise ValueError(f"{what} is a number and a unit (s, m, h or d), such as '20m' or '1.5h'; got {text!r}")
    return timedelta(seconds=float(m.group(1)) * _UNITS[m.group(2).lower()])


def parse_days(text: str) -> tuple[int, ...]:
    """``"Mon-Fri"`` or ``"Mon,Wed,Fri"`` as weekday numbers (Monday = 0)."""
    out: list[int] = []
    for part in str(text).lower().replace(" ", "").split(","):
        ends = part.split("-")
        try:
            idx = [DAYS.index(e[:3]) for e in ends]
        except ValueError:
            raise ValueError(f"days are names such as 'Mon-Fri' or 'Mon,Wed,Fri'; got {text!r}") from None
        if len(idx) == 1:
            out.append(idx[0])
        elif len(idx) == 2:
            a, b = idx
            out.extend(range(a, b + 1) if a <= b else [*range(a, 7), *range(0, b + 1)])
        else:
            raise ValueError(f"days are names such as 'Mon-Fri' or 'Mon,Wed,Fri'; got {text!r}")
    return tuple(sorted(set(out)))


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _keywords(v: Any) -> list[str]:
    if isinstance(v, str):
        v = [v]
    words = [str(w).strip() for w in (v or []) if str(w).strip()]
    if not words:
        raise ValueError("give at least one keyword")
    return words


class Fact(_Model):
    """Something the actor knows. A question is about it when it names one of ``topic``'s keywords
    (and ``about``, the subject, when given: several facts may share a topic for different subjects).
    ``answer`` appears verbatim in the reply. A ``confidential`` fact is told only to ``share_with``."""

    topic: list[str]
    about: str | None = None
    answer: str = Field(min_length=1)
    confidential: bool = False
    share_with: list[str] = Field(default_factory=list)

    _topic = field_validator("topic", mode="before")(lambda cls, v: _keywords(v))


class ApprovalRule(_Model):
    """What the actor may approve: requests naming ``what`` up to ``limit`` ``unit`` ("%" or a currency
    sign such as "$"), under ``policy`` (the document cited when the request is over the limit)."""

    what: list[str]
    limit: float
    unit: str = "$"
    policy: str = Field(min_length=1)

    _what = field_validator("what", mode="before")(lambda cls, v: _keywords(v))

    def limit_text(self) -> str:
        return self.amount_text(self.limit)

    def amount_text(self, amount: float) -> str:
        """``12%``, ``$2,400``, ``2,400.50 EUR``: an amount in the rule's unit."""
        n = f"{amount:,.0f}" if float(amount).is_integer() else f"{amount:,.2f}"
        return f"{n}%" if self.unit == "%" else f"{self.unit}{n}" if len(self.unit) == 1 else f"{n} {self.unit}"


class Delegation(_Model):
    """Questions on ``topic`` go to ``to`` (a username): the actor says so instead of answering."""

    topic: list[str]
    to: str

    _topic = field_validator("topic", mode="before")(lambda cls, v: _keywords(v))


class Actor(_Model):
    """A co-worker who answers: ``user`` is their username in the world."""

    user: str = Field(min_length=1)
    name: str | None = None  # shown in replies; the engine fills it from the world when omitted
    role: str | None = None
    manager: str | None = None  # username
    hours: str = "09:00-17:30"
    days: str = "Mon-Fri"
    delay: timedelta = timedelta(minutes=20)
    tone: Literal["friendly", "formal", "terse"] = "friendly"
    out_of_office: bool | datetime = False  # True, or back at this world time
    knows: list[Fact] = Field(default_factory=list)
    approves: list[ApprovalRule] = Field(default_factory=list)
    delegates: list[Delegation] = Field(default_factory=list)
    never_share: str = "that information is confidential"  # the reason given when refusing a confidential fact

    @field_validator("delay", mode="before")
    @classmethod
    def _delay(cls, v: Any) -> timedelta:
        return parse_duration(v, "delay")

    @field_validator("hours")
    @classmethod
    def _hours(cls, v: str) -> str:
        m = _HOURS.match(v)
        if not m or not (0 <= int(m.group(1)) < 24 and 0 <= int(m.group(3)) <= 24 and int(m.group(2)) < 60 and int(m.group(4)) < 60):
            raise ValueError(f"hours are 'HH:MM-HH:MM' such as '09:00-17:30'; got {v!r}")
        if (int(m.group(1)), int(m.group(2))) >= (int(m.group(3)), int(m.group(4))):
            raise ValueError(f"hours must end after they start; got {v!r}")
        return v

    @field_validator("days")
    @classmethod
    def _days(cls, v: str) -> str:
        if not parse_days(v):
            raise ValueError(f"days name at least one weekday; got {v!r}")
        return v

    @model_validator(mode="after")
    def _no_self_delegation(self) -> Actor:
        for d in self.delegates:
            if d.to == self.user:
                raise ValueError(f"{self.user} delegates {d.topic} to themselves")
        return self

    # -- working hours on the world clock
    @property
    def span(self) -> tuple[time, time]:
        m = _HOURS.match(self.hours)
        assert m is not None
        end = time(23, 59, 59) if int(m.group(3)) == 24 else time(int(m.group(3)), int(m.group(4)))
        return time(int(m.group(1)), int(m.group(2))), end

    @property
    def workdays(self) -> tuple[int, ...]:
        return parse_days(self.days)

    def at_work(self, when: datetime) -> bool:
        start, end = self.span
        return when.weekday() in self.workdays and start <= when.time() < end

    def next_start(self, when: datetime) -> datetime:
        """The first start of working hours after ``when`` (``when`` itself if it is one)."""
        start, _ = self.span
        day = when.replace(hour=start.hour, minute=start.minute, second=0, microsecond=0)
        if day < when:
            day += timedelta(days=1)
        while day.weekday() not in self.workdays:
            day += timedelta(days=1)
        return day

    def away(self, when: datetime) -> bool:
        """Out of office at ``when``."""
        ooo = self.out_of_office
        if isinstance(ooo, datetime):
            return when < ooo
        return bool(ooo)

    def display(self) -> str:
        return self.name or self.user


__all__ = ["Actor", "ApprovalRule", "Delegation", "Fact", "parse_days", "parse_duration"]
