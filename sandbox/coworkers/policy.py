"""The deterministic policy: what a co-worker does with one request. Pure: same actor and request,
same decision (the engine then words it and schedules it on the world clock)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from apps_web.messaging import Request

from .profile import Actor, ApprovalRule, Fact

Kind = Literal["answer", "clarify", "approve", "refuse", "delegate", "out_of_office", "defer"]
_APPROVAL = re.compile(r"\b(approv\w*|sign[- ]?off|authori[sz]\w*|ok(?:ay)? to|green[- ]light|allowed to)\b", re.I)
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|per ?cent\b)", re.I)
_MONEY = re.compile(r"(?:([$€£])\s?(\d[\d,]*(?:\.\d+)?)\s*(k|m|million|thousand)?\b|(\d[\d,]*(?:\.\d+)?)\s*(k|m|million|thousand)?\s*(usd|eur|gbp|dollars)\b)", re.I)
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6}


@dataclass(frozen=True)
class Decision:
    """What the actor does. ``then`` is the decision taken at ``at`` when the request is deferred."""

    kind: Kind
    fact: Fact | None = None
    rule: ApprovalRule | None = None
    amount: float | None = None
    reason: str = ""
    to: str | None = None  # delegate: who handles it
    options: tuple[str, ...] = ()  # clarify: the subjects the question could mean
    at: datetime | None = None  # defer: when working hours start again
    then: Decision | None = None
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def final(self) -> Decision:
        return self.then.final if self.then is not None else self


def mentions(text: str, keyword: str) -> bool:
    """Whether ``text`` names ``keyword`` (case-insensitive, from a word start: 'renewal' matches 'renewals')."""
    return re.search(r"(?<!\w)" + re.escape(keyword.lower()), text.lower()) is not None


def parse_amount(text: str, unit: str) -> float | None:
    """The amount in ``unit`` ("%" or a currency) a request names: the largest one, since asking for
    '10% now and 25% later' asks for 25%. None when it names none."""
    values: list[float] = []
    if unit == "%":
        values = [float(m.group(1)) for m in _PERCENT.finditer(text)]
    else:
        for m in _MONEY.finditer(text):
            number, scale = (m.group(2), m.group(3)) if m.group(2) else (m.group(4), m.group(5))
            try:
                v = float(number.replace(",", ""))
            except ValueError:
                continue
            values.append(v * _SCALE.get((scale or "").lower(), 1))
    return max(values) if values else None


def decide(actor: Actor, request: Request, *, others: Mapping[str, Actor] | None = None) -> Decision:
    """The actor's decision on ``request`` at its world time (``request.at``)."""
    if actor.away(request.at):
        return Decision("out_of_office", to=actor.manager)
    decision = _decide_content(actor, request)
    if not actor.at_work(request.at):
        return Decision("defer", at=actor.next_start(request.at), then=decision)
    return decision


def _decide_content(actor: Actor, request: Request) -> Decision:
    text = f"{request.subject}\n{request.text}"
    rules = [r for r in actor.approves if any(mentions(text, w) for w in r.what)]
    if request.kind == "approval" or (_APPROVAL.search(text) and rules):
        return _approval(actor, request, text, rules)
    return _question(actor, request, text)


def _record_amount(request: Request, unit: str) -> float | None:
    """The amount of the record the approval is for, when it is in the rule's unit (a record's total
    with no unit given is money; a percentage must say so), so text such as a quote's name is not read."""
    if request.amount is None:
        return None
    if request.amount_unit is None:
        return request.amount if unit != "%" else None
    return request.amount if request.amount_unit == unit else None


def _approval(actor: Actor, request: Request, text: str, rules: list[ApprovalRule]) -> Decision:
    if not rules:
        scope = "; ".join(", ".join(r.what) for r in actor.approves)
        why = f"I can only approve {scope}" if scope else "it is not something I can approve"
        return Decision("refuse", reason=why)
    rule = rules[0]
    amount = _record_amount(request, rule.unit)
    if amount is None:
        amount = parse_amount(text, rule.unit)
    if amount is None:
        return Decision("clarify", rule=rule, notes={"missing": "%" if rule.unit == "%" else "amount"})
    if amount <= rule.limit + 1e-9:
        return Decision("approve", rule=rule, amount=amount)
    return Decision("refuse", rule=rule, amount=amount, reason=f"{rule.amount_text(amount)} is over the {rule.limit_text()} limit in {rule.policy}")


def _question(actor: Actor, request: Request, text: str) -> Decision:
    scored = [(sum(mentions(text, w) for w in f.topic), i, f) for i, f in enumerate(actor.knows)]
    matched = [(s, i, f) for s, i, f in scored if s > 0]
    delegate = next((d for d in actor.delegates if any(mentions(text, w) for w in d.topic)), None)
    if not matched:
        if delegate is not None:
            return Decision("delegate", to=delegate.to)
        return Decision("clarify")
    named = [(s, i, f) for s, i, f in matched if f.about and mentions(text, f.about)]
    if named:
        subjects = list(dict.fromkeys(f.about for _, _, f in named))
        if len(subjects) > 1:  # the question names several subjects of the topic: which one?
            return Decision("clarify", options=tuple(subjects))
        pool = named
    else:
        general = [(s, i, f) for s, i, f in matched if not f.about]
        subjects = list(dict.fromkeys(f.about for _, _, f in matched if f.about))
        if general:
            pool = general
        elif len(subjects) == 1:
            pool = matched
        else:  # the topic is known for several subjects and the question names none
            return Decision("clarify", options=tuple(subjects))
    _, _, fact = max(pool, key=lambda t: (t[0], -t[1]))
    if fact.confidential and request.sender not in fact.share_with:
        return Decision("refuse", fact=fact, reason=actor.never_share)
    return Decision("answer", fact=fact)


__all__ = ["Decision", "decide", "mentions", "parse_amount"]
